'use strict'

// The serving benchmark's harness (benchmarks/server/), in a quick mode: its pieces over real sockets
// and processes, a few subscribers each, nothing timed. Every server the benchmark measures must
// deliver every event to every subscriber, exactly (each subscriber's body decoded by our parser); the
// client must count events through any framing; the encoders must encode what the servers write. A
// harness that miscounts, or a server adapter that loses or alters events, fails here.

const t = require('tap')
const net = require('node:net')
const { listen } = require('../helpers/index.cjs')

const sample = () => import('../../benchmarks/server/sample.mjs')
const servers = () => import('../../benchmarks/server/servers.mjs')

// Generous: each sample starts two processes, and the machine may be loaded.
const SAMPLE_MS = 60_000

t.test('the client counts events through chunked framing cut anywhere, and only blocks with data', async (t) => {
  const { startClient, decode } = await sample()
  // Events among what is no event (a comment, a retry block, a heartbeat, an empty data block counts: it
  // has a data line), in chunks of 1 to 7 bytes, upper-case sizes with an extension; the second
  // connection's body is not chunked at all, written a few bytes at a time.
  const blocks = [': hello\n\n', 'retry: 2000\n\n']
  const events = []
  for (let i = 0; i < 12; i++) {
    events.push([`${i}`, `data ${i}\nline two`])
    blocks.push(`event: message\nid: ${i}\ndata: data ${i}\ndata: line two\n\n`, ':\n\n')
  }
  const body = Buffer.from(blocks.join(''))
  let connection = 0
  const server = net.createServer((socket) => {
    const chunked = connection++ === 0
    socket.once('data', async () => {
      socket.write(`HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n${chunked ? 'Transfer-Encoding: chunked\r\n' : 'Connection: close\r\n'}\r\n`)
      for (let at = 0, size = 1; at < body.length; at += size, size = size % 7 + 1) {
        const piece = body.subarray(at, at + size)
        socket.write(chunked ? Buffer.concat([Buffer.from(`${piece.length.toString(16).toUpperCase()};x=y\r\n`), piece, Buffer.from('\r\n')]) : piece)
        await new Promise((resolve) => setImmediate(resolve))
      }
    })
    socket.on('error', () => {})
  })
  const { port } = await listen(t, server)
  const client = await startClient({ capture: 'all' })
  t.teardown(() => client.kill())
  await client.call('connect', { port, count: 2, group: 'a' })
  await client.call('expect', { events: events.length }, SAMPLE_MS)
  const report = await client.call('report')
  t.same(report.counts, [events.length, events.length], 'each socket counted every event, and nothing else')
  t.equal(report.captures.length, 2)
  for (const { body: captured } of report.captures) {
    t.same(Buffer.from(captured, 'base64'), body, 'the body, out of its framing, byte for byte')
    t.same(decode(Buffer.from(captured, 'base64')).map(([, id, data]) => [id, data]), events)
  }
})

t.test('a sample whose subscriber got the wrong events fails its check', async (t) => {
  const { checkReport } = await sample()
  const { expectedEvents } = await import('../../benchmarks/server/workload.mjs')
  const want = expectedEvents(2)
  const text = (events) => Buffer.from(events.map(([id, data]) => `id: ${id}\ndata: ${data}\n\n`).join('')).toString('base64')
  const report = (events, count = events.length) => ({ counts: [count], captures: [{ index: 0, body: text(events) }] })
  t.equal(checkReport(report(want), (c) => c === 3, () => want), null)
  t.match(checkReport(report(want, 2), (c) => c === 3, () => want), /subscriber 0 counted 2 events/)
  t.match(checkReport(report([want[0], want[2], want[1]]), (c) => c === 3, () => want), /subscriber 0: event 1 decoded as/)
  t.match(checkReport(report(want.slice(0, 2)), () => true, () => want), /2 events decoded, expected 3/)
  t.match(checkReport({ counts: [3], captures: [] }, () => true, () => want), /no body captured/)
})

t.test('every server delivers every event to every subscriber, exactly', async (t) => {
  const { SERVERS, supportedServers } = await servers()
  const { fanoutSample } = await sample()
  const { ids, skipped } = supportedServers(SERVERS)
  t.ok(ids.includes('ours') && ids.includes('bare') && ids.length >= 5, `servers: ${ids.join(', ')}; not: ${skipped.map((s) => s.id).join(', ')}`)
  // The servers side by side (each sample has processes and ports of its own), each mode in turn.
  await Promise.all(ids.map(async (id) => {
    for (const perTick of [1, 20]) {
      // Every subscriber's body captured and decoded: 1 welcome, 5 of warm-up, 45 timed.
      const r = await fanoutSample(id, { subscribers: 4, events: 45, perTick, warmup: 5, capture: 'all' })
      t.equal(r.error, null, `${id}, ${perTick} per tick: every subscriber got exactly the events published`)
      t.equal(r.published, 45, `${id}, ${perTick} per tick: all published`)
      t.ok(r.deliveriesPerSecond > 0)
    }
  }))
})

t.test('idle and not-reading samples of every server check what their subscribers got', async (t) => {
  const { SERVERS, supportedServers } = await servers()
  const { idleSample, slowSample } = await sample()
  await Promise.all(supportedServers(SERVERS).ids.map(async (id) => {
    const idle = await idleSample(id, { counts: [3, 6], warmup: 2, capture: 'all' })
    t.equal(idle.error, null, `${id}: idle, each subscriber has its welcomes`)
    t.same(idle.steps.map((s) => s.count), [3, 6])
    t.ok(idle.steps.every((s) => typeof s.perSubscriber.heapUsed === 'number'))
    const slow = await slowSample(id, { subscribers: 10, every: 5, events: 40, perTick: 20, bytes: 1024, capture: 'all' })
    t.equal(slow.error, null, `${id}: not reading, the readers got every event`)
    t.equal(slow.paused, 2, `${id}: every 5th stopped reading`)
    t.ok(slow.samples.length >= 3 && slow.samples.at(-1).last, `${id}: memory before, during and after`)
  }))
})

t.test('the encoders of the encoding benchmark write what a client decodes as the event', async (t) => {
  const { ENCODERS, availableEncoders } = await import('../../benchmarks/server/encoders.mjs')
  const { eventOf } = await import('../../benchmarks/server/workload.mjs')
  const { decode } = await sample()
  const ids = availableEncoders()
  t.same(ids, Object.keys(ENCODERS), 'every encoder, ours included')
  // The benchmark's events: one line of data each (better-sse, with `serializer: String`, loses what
  // follows a line break: issue 49).
  const events = [eventOf(1), eventOf(2), eventOf(2000)]
  for (const id of ids) {
    const encoder = ENCODERS[id]
    const encode = await encoder.setup()
    const outputs = []
    if (encoder.batch) outputs.push(encode(events))
    else for (const event of events) outputs.push(await encode(event))
    const bytes = Buffer.concat(outputs.map((o) => typeof o === 'string' ? Buffer.from(o) : o))
    t.same(decode(bytes), events.map((e) => ['message', e.id, e.data]), encoder.label)
  }
})
