'use strict'

// No leaks: connect/disconnect cycles leave neither heap growth nor sockets or timers behind, and an
// EventSource that is closed (or failed) and dropped is garbage-collected, whatever state it was in.
// The EventSource runs in a child process with --expose-gc (test/children/leak.cjs),
// the server here. This is the 1,000-cycle run; `npm run test:soak` runs 10,000 (test/soak/leaks.cjs).

const t = require('tap')
const { lifecycleServer, runLeakChild } = require('../helpers/index.cjs')

const CYCLES = 1000
const WARM = 200
const MiB = 1024 * 1024
const OURS = ['Timeout', 'TCPSocketWrap']

t.test(`${CYCLES} connect/disconnect cycles: bounded heap, nothing left after close()`, async (t) => {
  const server = await lifecycleServer(t)
  const { report, code, stderr, exitMsAfterReport } = await runLeakChild(t, ['cycles', server.origin, CYCLES, WARM], 60_000)
  t.equal(report.error, undefined, 'the child ran')
  t.equal(code, 0, 'the child exited on its own, with code 0')
  t.equal(stderr, '')
  t.equal(report.cycles, CYCLES)
  t.equal(report.messages, CYCLES, 'one event per cycle')
  t.equal(report.errors, CYCLES, 'one error per cycle')
  t.same(Object.keys(report.errorCodes).sort(), ['ERR_EVENTSOURCE_NETWORK', 'ERR_EVENTSOURCE_STREAM_ENDED'])
  t.ok(server.srv.connections >= CYCLES / 2, `new TCP connections: ${server.srv.connections}`)
  const warm = report.samples.find((s) => s.cycle === WARM).heapUsed
  const last = report.samples.find((s) => s.cycle === CYCLES).heapUsed
  t.comment(`heapUsed after GC: ${warm} at cycle ${WARM}, ${last} at cycle ${CYCLES} (${last - warm} bytes)`)
  t.ok(last - warm < MiB, `heap growth ${((last - warm) / 1024).toFixed(1)} KiB < 1 MiB`)
  t.equal(report.readyState, 2, 'CLOSED')
  t.same(report.activeAfterClose.filter((type) => OURS.includes(type)), [], 'no timer or socket left')
  t.comment(`active after close: ${JSON.stringify(report.allActiveAfterClose)}; exited ${exitMsAfterReport} ms after its report`)
})

t.test('an EventSource that is closed and dropped is garbage-collected, in every state', async (t) => {
  const server = await lifecycleServer(t)
  const { report, code } = await runLeakChild(t, ['finalization', server.origin], 30_000)
  t.equal(report.error, undefined, 'the child ran')
  t.equal(code, 0, 'the child exited on its own')
  t.ok(report.scenarios.length >= 9)
  t.same(report.collected, report.scenarios, 'every one was collected')
  t.same(report.activeAfterClose, [], 'no timer or socket left')
  t.comment(`collected after ${report.rounds} GC rounds`)
})
