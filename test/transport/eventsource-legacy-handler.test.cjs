'use strict'

// The EventSource on the dispatcher that Node's own fetch() installs as the global one: on Node 20
// and 22 that is the bundled undici 6, which drives handlers through the older API (onConnect,
// onHeaders, onData, onComplete, onError). This file checks the paths that API takes differently:
// an abort before the request is written, pausing and resuming the body, raw response headers.
// (The plain exchange on every dispatcher is eventsource-dispatcher.test.cjs.)

const t = require('tap')
const zlib = require('node:zlib')
const { EventSource } = require('../../')
const { serve, sse, record, reconnectionCycle, onceBounded } = require('../helpers/index.cjs')

const { OPEN, CLOSED } = EventSource
const GLOBAL_DISPATCHER = Symbol.for('undici.globalDispatcher.1')
const BUNDLED_MAJOR = Number(process.versions.undici.split('.')[0])

t.before(async () => {
  // Nothing has loaded undici yet: the first fetch() makes Node's bundled copy set its Agent as the
  // global dispatcher, and the undici the package requires later keeps it.
  t.equal(globalThis[GLOBAL_DISPATCHER], undefined, 'no global dispatcher yet')
  await fetch('data:,x').then((r) => r.text())
  t.ok(globalThis[GLOBAL_DISPATCHER], 'Node\'s fetch installed its dispatcher')
})

t.test('the EventSource uses Node\'s bundled dispatcher', async (t) => {
  const { getGlobalDispatcher, Agent } = require('undici')
  t.equal(getGlobalDispatcher(), globalThis[GLOBAL_DISPATCHER])
  if (BUNDLED_MAJOR < 7) t.notOk(getGlobalDispatcher() instanceof Agent, `undici ${process.versions.undici}, not the package's`)
  const srv = await serve(t, (req, res, i) => sse(res, `id: ${i}\ndata: ${i}\n\n`, { end: i === 0 }))
  const rec = record(srv.eventSource('/'))
  await rec.wait('message', 2)
  t.same(rec.types, ['open', 'message', 'error', 'open', 'message'])
  t.equal(srv.requests[1].headers['last-event-id'], '0')
})

t.test('close() before the request is written: it is never sent', async (t) => {
  const srv = await serve(t, (req, res) => sse(res, 'data: x\n\n'))
  const es = srv.eventSource('/')
  const rec = record(es)
  await null // the request has been handed to the dispatcher, not yet written
  es.close()
  await reconnectionCycle(t)
  t.same(rec.types, [])
  t.equal(srv.requests.length, 0)
})

t.test('close() while open aborts the response', async (t) => {
  const srv = await serve(t, (req, res) => sse(res, 'data: x\n\n', { end: false }))
  const es = srv.eventSource('/')
  const rec = record(es)
  await rec.wait('message')
  es.close()
  await onceBounded(srv.requests[0].socket, 'close')
  t.same(rec.types, ['open', 'message'])
})

t.test('a repeated response header is combined', async (t) => {
  const srv = await serve(t, (req, res) => {
    res.setHeader('content-type', ['text/plain', 'text/event-stream'])
    res.writeHead(200)
    res.write('data: x\n\n')
  })
  const rec = record(srv.eventSource('/'))
  t.equal((await rec.first(['message', 'error'])).type, 'message', 'the last Content-Type counts')
})

t.test('redirects, failures and decoding', async (t) => {
  const srv = await serve(t, (req, res) => {
    if (req.url === '/start') res.writeHead(302, { location: '/gzip' }).end()
    else if (req.url === '/gzip') sse(res, zlib.gzipSync('data: unzipped\n\n'), { end: false, headers: { 'content-encoding': 'gzip' } })
    else res.writeHead(404).end()
  })
  const rec = record(srv.eventSource('/start'))
  const message = await rec.wait('message')
  t.equal(message.data, 'unzipped')
  t.equal(message.readyState, OPEN)
  const failed = record(srv.eventSource('/missing'))
  const { readyState, event } = await failed.wait('error')
  t.equal(readyState, CLOSED)
  t.equal(event.status, 404)
})

t.test('backpressure pauses and resumes the body', async (t) => {
  const COUNT = 12_000
  const payload = 'q'.repeat(1000)
  let res0
  const srv = await serve(t, (req, res) => {
    res0 = res
    sse(res)
    for (let i = 0; i < COUNT; i++) res.write(`id: ${i}\ndata: ${payload}\n\n`)
    res.end()
  })
  const es = srv.eventSource('/', { highWaterMark: 4 })
  const rec = record(es)
  const iterator = es[Symbol.asyncIterator]()
  t.equal((await iterator.next()).value.lastEventId, '0')
  await reconnectionCycle(t, 100)
  t.ok(rec.count('message') < COUNT / 2, `reading paused: ${rec.count('message')} of ${COUNT} dispatched`)
  t.notOk(res0.writableFinished, 'the server could not write everything')
  let expected = 1
  for await (const event of iterator) {
    if (event.lastEventId !== String(expected)) break
    if (++expected === COUNT) break
  }
  t.equal(expected, COUNT, 'every event, in order, once the consumer read them')
})
