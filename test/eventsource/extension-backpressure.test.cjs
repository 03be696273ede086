'use strict'

// Backpressure of `for await`: with highWaterMark events queued and the consumer not reading, the
// EventSource stops reading the socket, and the server sees it (its writes back up); once the consumer
// reads, everything arrives, in order. Run on both handler APIs an undici dispatcher may speak:
// undici 7's Agent (onRequestStart/onResponseStart: controller.pause()) and the Agent of the undici
// that Node bundles for fetch() (undici 6 on Node 20 and 22: onHeaders/onData returning false).

const t = require('tap')
const { gzipSync } = require('node:zlib')
const { randomBytes } = require('node:crypto')
const { EventSource } = require('../../')
const { SSE_HEADERS, serve, open, record, bounded, onceBounded } = require('../helpers/index.cjs')

// 512 events of 64 KiB: 32 MiB, far more than the socket buffers of both ends can hold.
const COUNT = 512
const SIZE = 64 * 1024
const EVENTS = Array.from({ length: COUNT }, (_, i) => {
  const head = `data: ${String(i).padStart(4, '0')} `
  return Buffer.from(head + 'x'.repeat(SIZE - head.length - 2) + '\n\n')
})
const TOTAL = COUNT * SIZE

/** Writes all the events at once, as a producer that ignores write()'s return value would. */
function flood (res, log) {
  res.writeHead(200, SSE_HEADERS)
  let refused = 0
  for (const event of EVENTS) if (!res.write(event)) refused++
  res.end()
  log.push({ res, refused })
}

const apis = [
  { name: 'undici 7 Agent', dispatcher: () => new (require('undici').Agent)() },
  { name: 'Node\'s bundled fetch dispatcher', dispatcher: () => bundled }
]
let bundled = null

// Node's fetch() installs its own Agent as the global dispatcher when none is set; undici 7 is not
// loaded yet in this process, so this is the bundled undici's.
t.before(async () => {
  const server = await serve(t, (req, res) => res.end('ok'))
  await (await fetch(server.url())).text()
  bundled = globalThis[Symbol.for('undici.globalDispatcher.1')]
  server.server.closeAllConnections()
})

t.test('the bundled dispatcher is not undici 7\'s', async (t) => {
  // Node 26's undici 8 installs, under the legacy symbol, a wrapper of its Agent for the older handler API.
  t.equal(bundled?.constructor.name, Number(process.versions.undici.split('.')[0]) >= 8 ? 'Dispatcher1Wrapper' : 'Agent')
  t.notOk(bundled instanceof require('undici').Agent, `Node's undici ${process.versions.undici}`)
})
t.teardown(() => bundled?.destroy())

/**
 * With the consumer stalled, proves the server is held back: a control EventSource on the same
 * dispatcher and server reads the same 32 MiB to the end meanwhile, and the stalled response still has
 * most of its bytes unwritten, and the stalled source has dispatched a few events only.
 */
async function checkStalled (t, server, dispatcher, stalledRes, dispatched, log) {
  const control = open(t, server.url('/control'), { dispatcher })
  await record(control).wait('message', COUNT, 20000)
  control.close()
  const controlRes = log.find((e) => e.res.req.url === '/control').res
  t.equal(controlRes.writableLength, 0, 'the control stream was read to the end meanwhile')
  t.ok(stalledRes.writableLength > TOTAL / 2, `the stalled response still holds ${stalledRes.writableLength} of ${TOTAL} bytes`)
  t.equal(stalledRes.writableFinished, false, 'and has not finished')
  t.ok(dispatched() < 32, `the stalled source dispatched ${dispatched()} events of ${COUNT}`)
}

/** Reads the rest of an iteration and checks every event arrived, in order. */
async function drain (t, iterator, from) {
  let next = from
  for (;;) {
    const { value, done } = await iterator.next()
    if (done) break
    const index = Number(value.data.slice(0, 4))
    if (index !== next) t.fail(`expected event ${next}, got ${index}`)
    if (value.data.length !== SIZE - 8) t.fail(`event ${index} has ${value.data.length} characters`)
    if (++next === COUNT) break
  }
  t.equal(next, COUNT, 'every event arrived, in order')
}

for (const api of apis) {
  t.test(`${api.name}: the server observes the stall, then everything arrives`, async (t) => {
    const dispatcher = api.dispatcher()
    if (dispatcher !== bundled) t.teardown(() => dispatcher.close())
    const log = []
    const server = await serve(t, (req, res) => flood(res, log))
    const es = open(t, server.url('/stalled'), { dispatcher, highWaterMark: 2, reconnectionTime: 60000 })
    let dispatched = 0
    es.addEventListener('message', () => dispatched++)
    const iterator = es[Symbol.asyncIterator]()
    const first = await iterator.next()
    t.equal(first.value.data.slice(0, 4), '0000')
    const stalled = log[0]
    t.ok(stalled.refused > 0, 'res.write() returned false')

    await checkStalled(t, server, dispatcher, stalled.res, () => dispatched, log)

    const finished = stalled.res.writableFinished ? null : onceBounded(stalled.res, 'finish')
    await drain(t, iterator, 1)
    await finished
    t.equal(stalled.res.writableLength, 0, 'the server wrote everything once the consumer read')
    t.equal(dispatched, COUNT)
    await iterator.return()
    t.equal(es.readyState, EventSource.CLOSED)
  })

  t.test(`${api.name}: a reconnection while the queue is full starts paused`, async (t) => {
    const dispatcher = api.dispatcher()
    if (dispatcher !== bundled) t.teardown(() => dispatcher.close())
    const log = []
    // The first response is gzipped: its events are decoded (and queued past the high-water mark)
    // after the body has been received, so the stream ends, and reconnects, with the queue full.
    const small = gzipSync('data: a\n\ndata: b\n\ndata: c\n\n')
    const server = await serve(t, (req, res) => {
      if (req.url === '/stalled' && log.length === 0 && !req.headers['last-event-id']) {
        log.push({ res, first: true })
        res.writeHead(200, { ...SSE_HEADERS, 'content-encoding': 'gzip', 'content-length': small.length }).end(small)
      } else {
        flood(res, log)
      }
    })
    const es = open(t, server.url('/stalled'), { dispatcher, highWaterMark: 2, reconnectionTime: 0 })
    const rec = record(es)
    let dispatched = 0
    es.addEventListener('message', () => dispatched++)
    const iterator = es[Symbol.asyncIterator]()
    await rec.wait('open', 2)
    t.same(rec.types, ['open', 'message', 'message', 'message', 'error', 'open'], 'reconnected, nothing read')
    await bounded(server.request(1), () => 'the second request')
    const stalled = log[1]
    await checkStalled(t, server, dispatcher, stalled.res, () => dispatched - 3, log)

    const queued = []
    for (let i = 0; i < 3; i++) queued.push((await iterator.next()).value.data)
    t.same(queued, ['a', 'b', 'c'])
    await drain(t, iterator, 0)
    await iterator.return()
  })
}

t.test('highWaterMarkBytes: large events stop the queue long before highWaterMark', async (t) => {
  const dispatcher = new (require('undici').Agent)()
  t.teardown(() => dispatcher.close())
  const log = []
  const server = await serve(t, (req, res) => flood(res, log))
  // An event of 64 Ki characters counts 128 KiB (two bytes a character) and 512: 1 MiB is 8 of them,
  // where highWaterMark (1000 by default) would take all 512.
  const limit = 1024 * 1024
  const es = open(t, server.url('/stalled'), { dispatcher, highWaterMarkBytes: limit, reconnectionTime: 60000 })
  let dispatched = 0
  es.addEventListener('message', () => dispatched++)
  const iterator = es[Symbol.asyncIterator]()
  t.equal((await iterator.next()).value.data.slice(0, 4), '0000')
  await checkStalled(t, server, dispatcher, log[0].res, () => dispatched, log)
  const cost = 512 + 2 * (SIZE - 8 + 'message'.length)
  // Full at 8 queued; the network chunk that filled it may hold one more event.
  t.ok(iterator.bytes >= limit && iterator.bytes <= limit + 2 * cost, `${iterator.bytes} bytes queued`)
  await drain(t, iterator, 1)
  await iterator.return()
})

t.test('a gzip body: pausing stops the decoder, and the server sees the stall', async (t) => {
  const dispatcher = new (require('undici').Agent)()
  t.teardown(() => dispatcher.close())
  // The same 512 events of 64 KiB, of random characters so that gzip keeps them large (about 24 MiB):
  // the decoder's input fills up, and the socket is read no further until it drains.
  const events = Array.from({ length: COUNT }, (_, i) => {
    const head = `data: ${String(i).padStart(4, '0')} `
    const fill = randomBytes(SIZE).toString('base64').slice(0, SIZE - head.length - 2)
    return head + fill + '\n\n'
  })
  const body = gzipSync(events.join(''))
  const log = []
  const server = await serve(t, (req, res) => {
    if (req.url !== '/gzip') return flood(res, log)
    res.writeHead(200, { ...SSE_HEADERS, 'content-encoding': 'gzip' })
    res.end(body)
    log.push({ res })
  })
  const es = open(t, server.url('/gzip'), { dispatcher, highWaterMark: 2, reconnectionTime: 60000 })
  let dispatched = 0
  es.addEventListener('message', () => dispatched++)
  const iterator = es[Symbol.asyncIterator]()
  t.equal((await iterator.next()).value.data.slice(0, 4), '0000')
  const stalled = log[0].res
  const control = open(t, server.url('/control'), { dispatcher })
  await record(control).wait('message', COUNT, 20000)
  control.close()
  t.ok(stalled.writableLength > body.length / 2, `the stalled response still holds ${stalled.writableLength} of ${body.length} bytes`)
  t.ok(dispatched < 32, `the stalled source dispatched ${dispatched} events of ${COUNT}`)
  await drain(t, iterator, 1)
  await iterator.return()
})
