'use strict'

// Soak: 10,000 connect/disconnect cycles of one EventSource in a child process with --expose-gc.
// heapUsed after GC at cycle 1,000 (past warm-up) and at cycle 10,000 must differ by less than 1 MiB;
// after close() no timer or socket is left and the child exits on its own. Run by `npm run test:soak`
// (not by `npm test`: the file name does not match test/**/*.test.cjs). SOAK_CYCLES overrides the count.

const t = require('tap')
const { lifecycleServer, runLeakChild } = require('../helpers/index.cjs')

const CYCLES = Number(process.env.SOAK_CYCLES ?? 10_000)
const WARM = 1000
const MiB = 1024 * 1024

t.test(`${CYCLES} connect/disconnect cycles: heap growth < 1 MiB after warm-up, nothing left after close()`, async (t) => {
  const server = await lifecycleServer(t)
  const started = performance.now()
  const { report, code, stderr, exitMsAfterReport } = await runLeakChild(t, ['cycles', server.origin, CYCLES, WARM], 600_000)
  t.equal(report.error, undefined, 'the child ran')
  t.equal(code, 0, 'the child exited on its own, with code 0')
  t.equal(stderr, '')
  t.equal(report.cycles, CYCLES)
  t.equal(report.messages, CYCLES)
  t.equal(report.errors, CYCLES)
  const warm = report.samples.find((s) => s.cycle === WARM).heapUsed
  const last = report.samples.find((s) => s.cycle === CYCLES).heapUsed
  t.comment(`samples (cycle: heapUsed after GC): ${report.samples.map((s) => `${s.cycle}: ${s.heapUsed}`).join(', ')}`)
  t.comment(`growth from cycle ${WARM} to ${CYCLES}: ${last - warm} bytes; ${server.srv.connections} TCP connections; ` +
    `${Math.round(performance.now() - started)} ms; exited ${exitMsAfterReport} ms after its report`)
  t.ok(last - warm < MiB, `heap growth ${((last - warm) / 1024).toFixed(1)} KiB < 1 MiB`)
  t.same(report.activeAfterClose, [], 'no timer or socket left')
})
