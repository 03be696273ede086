'use strict'

// Hostile clients of a writer and a channel (issue 49, item 5): a 1 MB Last-Event-ID header (on a server whose
// maxHeaderSize lets it through to us), 10,000 connects and disconnects (in a child process, with --expose-gc:
// heap bounded, no subscriber and no heartbeat timer left), and half-open clients that send their request and
// then neither read nor close, bounded by maxBufferedBytes and by the history.

const t = require('tap')
const http = require('node:http')
const path = require('node:path')
const { Channel, EventStreamWriter } = require('../../lib/entries/server.js')
const { listen, rawGet, parseAll, runHeapChild, macrotask, bounded, deferred } = require('../helpers/index.cjs')

const KiB = 1024
const MiB = 1024 * KiB
const CHURN = path.join(__dirname, '..', 'children', 'server-churn.cjs')

t.test('a 1 MB Last-Event-ID: unknown, a gap, nothing of it echoed', async (t) => {
  const channel = new Channel({ heartbeat: 0 })
  t.teardown(() => channel.close())
  const writers = []
  const server = http.createServer({ maxHeaderSize: 4 * MiB }, (req, res) => {
    writers.push(req.url === '/channel' ? channel.subscribe(res) : new EventStreamWriter(res, { heartbeat: 0 }))
  })
  const { port } = await listen(t, server)
  const newest = channel.publish({ data: 'x' })
  // ASCII, and bytes past ASCII (left undecoded: a value this long is not looked at).
  for (const huge of ['9'.repeat(MiB), '\xe9'.repeat(MiB)]) {
    const client = await rawGet(t, port, { path: '/channel', headers: { 'Last-Event-ID': huge } })
    await client.until((r) => r.chunks.length > 0, 'the gap')
    t.equal(client.head.status, 200, 'it reached the handler')
    t.equal(writers.at(-1).lastEventId, null, 'not taken for an id')
    t.equal(client.text, `event: gap\nid: ${newest}\ndata: \n\n`, 'a gap with the newest id, and nothing of the header')
    const plain = await rawGet(t, port, { path: '/writer', headers: { 'Last-Event-ID': huge } })
    await plain.until((r) => r.head !== null, 'the head')
    t.equal(writers.at(-1).lastEventId, null)
    t.ok(plain.received < 1024, `a head of ${plain.received} bytes: nothing echoed`)
  }
})

t.test('10,000 connects and disconnects to a channel: nothing left, heap bounded (child process)', async (t) => {
  const { report, code, stderr } = await runHeapChild(t, CHURN, [10_000, 2000, 100], 120_000)
  t.equal(report.error, undefined, 'the child ran')
  t.equal(code, 0, 'and exited on its own')
  t.equal(stderr, '')
  t.equal(report.cycles, 10_000)
  t.ok(Object.values(report.ways).every((n) => n === 2500), `every way of leaving: ${JSON.stringify(report.ways)}`)
  t.equal(report.size, 0, 'no subscriber left')
  t.ok(report.heartbeatTimers >= 1, `${report.heartbeatTimers} heartbeat timers made along the way`)
  t.equal(report.heartbeatCleared, true, 'the last one cleared')
  t.equal(report.sockets, 0, 'no socket left open')
  const [warm, last] = report.samples
  const growth = last.heapUsed - warm.heapUsed
  t.comment(`heapUsed after GC: ${warm.heapUsed} after ${warm.cycle} cycles, ${last.heapUsed} after ${last.cycle}`)
  // A leak of 64 bytes per connection would be 512 KiB over the 8,000 between the samples.
  t.ok(growth < 512 * KiB, `heap growth ${(growth / KiB).toFixed(1)} KiB < 512 KiB over 8,000 connections`)
})

t.test('half-open clients: bounded by maxBufferedBytes (a writer) and by the history (a channel)', async (t) => {
  const HALF_OPEN = 20
  const MAX = 128 * KiB
  const HISTORY = 30
  const channel = new Channel({ heartbeat: 0, history: HISTORY })
  t.teardown(() => channel.close())
  const subscribers = []
  const writers = []
  const all = deferred()
  const server = http.createServer((req, res) => {
    if (req.url === '/channel') subscribers.push({ res, writer: channel.subscribe(res) })
    else writers.push({ res, writer: new EventStreamWriter(res, { heartbeat: 0, maxBufferedBytes: MAX }) })
    if (subscribers.length + writers.length === 2 * HALF_OPEN + 1) all.resolve()
  })
  const { port } = await listen(t, server)
  const reader = await rawGet(t, port, { path: '/channel' })
  for (let i = 0; i < HALF_OPEN; i++) {
    await rawGet(t, port, { path: '/channel', read: false })
    await rawGet(t, port, { path: '/writer', read: false })
  }
  await bounded(all.promise, 'every request')
  const data = 'h'.repeat(16 * KiB)
  const open = (list) => list.filter(({ writer }) => !writer.signal.aborted).length
  let ticks = 0
  let held = 0
  // Events to everyone, a tick each, ignoring send()'s answer: only the bounds stop it (2,000 ticks: 31 MiB each).
  while ((open(subscribers) > 1 || open(writers) > 0) && ticks < 2000) {
    channel.publish({ data })
    for (const { writer } of writers) writer.send({ data })
    ticks++
    await macrotask()
    held = Math.max(held, [...subscribers, ...writers].reduce((sum, { res }) => sum + res.writableLength, 0))
  }
  t.equal(open(writers), 0, `every half-open writer cut after ${ticks} ticks`)
  t.same(writers.map(({ writer }) => writer.signal.reason?.code), writers.map(() => 'ERR_EVENTSOURCE_CLIENT_TOO_SLOW'))
  t.equal(open(subscribers), 1, 'every half-open subscriber cut; the reader stays')
  t.same(subscribers.slice(1).map(({ writer }) => writer.signal.reason?.code), subscribers.slice(1).map(() => 'ERR_EVENTSOURCE_CLIENT_TOO_SLOW'))
  t.equal(channel.size, 1)
  t.ok([...subscribers, ...writers].slice(1).every(({ res }) => res.destroyed), 'their connections cut')
  // Per writer: maxBufferedBytes past the write that filled it (at most the high-water mark and an event); per
  // subscriber: that write alone.
  const hwm = writers[0].res.writableHighWaterMark
  const bound = HALF_OPEN * (MAX + hwm + 2 * data.length) + HALF_OPEN * (hwm + 2 * data.length)
  t.ok(held < bound, `Node held at most ${(held / MiB).toFixed(2)} MiB for ${2 * HALF_OPEN} half-open clients (bound ${(bound / MiB).toFixed(2)} MiB)`)
  const last = channel.publish({ data: 'still here' })
  await reader.until((r) => r.text.includes(`id: ${last}\n`), 'the reader\'s events')
  t.equal(parseAll([reader.body]).filter(([kind]) => kind === 'event').length, ticks + 1, 'the reader had every event')
})
