'use strict'

// EventStreamWriter on a WHATWG Request (lib/server/web-sink.js), as Bun, Deno, workers and hono use it: Node's
// global Request and Response here. writer.response(): its head; the body's bytes, a tick's events in one
// chunk; the client's pace through the ReadableStream's queue; the body cancelled, the request aborted; what
// does not apply (compress) and what is no target. Last, the same served by @hono/node-server over real sockets
// to this package's EventSource.

const t = require('tap')
const http = require('node:http')
const { getEventListeners } = require('node:events')
const { EventStreamWriter } = require('../../lib/entries/server.js')
const { listen, record, open, bounded, macrotask, fakeClock } = require('../helpers/index.cjs')

const KiB = 1024
const decoder = new TextDecoder()
const request = (init) => new Request('http://127.0.0.1/events', init)

t.test('response(): 200 and the event stream\'s head, init\'s headers merged', async (t) => {
  const writer = new EventStreamWriter(request(), { heartbeat: 0, headers: { 'x-trace': 'abc' } })
  const response = writer.response({ headers: { 'x-more': '1', 'content-type': 'text/plain' }, statusText: 'Fine' })
  t.ok(response instanceof Response)
  t.equal(response.status, 200)
  t.equal(response.statusText, 'Fine')
  t.equal(response.headers.get('content-type'), 'text/event-stream', 'the event stream\'s type wins')
  t.equal(response.headers.get('cache-control'), 'no-cache')
  t.equal(response.headers.get('x-accel-buffering'), 'no')
  t.equal(response.headers.get('x-trace'), 'abc')
  t.equal(response.headers.get('x-more'), '1')
  t.equal(response.headers.get('connection'), null)
  t.equal(response.headers.get('transfer-encoding'), null)
  t.equal(response.body, writer.readable, 'the body is the writer\'s stream')
  t.throws(() => writer.response(null), { name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE' })
  t.throws(() => writer.response('x'), { name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE' })
  writer.close()
})

t.test('lastEventId from the request; no request at all is fine', async (t) => {
  const id = 'é-9'
  // A Request's header holds bytes, one character each, as a runtime hands over what a client sent (UTF-8).
  const withId = new EventStreamWriter(request({ headers: { 'last-event-id': Buffer.from(id).toString('latin1') } }), { heartbeat: 0 })
  t.equal(withId.lastEventId, id)
  t.equal(new EventStreamWriter(request(), { heartbeat: 0 }).lastEventId, '')
  t.equal(new EventStreamWriter(request({ headers: { 'last-event-id': 'x'.repeat(1025) } }), { heartbeat: 0 }).lastEventId, null)
  for (const none of [undefined, null]) {
    const writer = new EventStreamWriter(none, { heartbeat: 0, lastEventId: 'given' })
    t.equal(writer.lastEventId, 'given')
    t.equal(writer.response().status, 200)
    writer.close()
  }
})

t.test('the body: a tick\'s events in one chunk, then the end', async (t) => {
  const writer = new EventStreamWriter(request(), { heartbeat: 0, retry: 1000 })
  const reader = writer.response().body.getReader()
  writer.send({ id: '1', data: 'one' })
  writer.send([{ event: 'two', data: 'b' }, { data: 'c\r\nd' }])
  writer.comment('x')
  const first = await reader.read()
  t.ok(first.value instanceof Uint8Array)
  t.equal(decoder.decode(first.value), 'retry: 1000\n\nid: 1\ndata: one\n\nevent: two\ndata: b\n\ndata: c\ndata: d\n\n: x\n\n')
  writer.send({ data: 'next tick' })
  writer.close()
  t.equal(decoder.decode((await reader.read()).value), 'data: next tick\n\n')
  t.same(await reader.read(), { done: true, value: undefined }, 'close() ends the body')
  await bounded(writer.closed, 'closed')
  t.match(writer.signal.reason.message, /closed by the server/)
})

t.test('backpressure: send() returns false while nobody reads; reading resolves ready', async (t) => {
  const writer = new EventStreamWriter(request(), { heartbeat: 0, maxBufferedBytes: Infinity })
  const reader = writer.readable.getReader()
  const data = 'x'.repeat(16 * KiB)
  let sent = 0
  while (writer.send({ id: `${++sent}`, data })) {
    if (sent > 100) throw new Error('send() never said to wait')
    await macrotask()
  }
  t.ok(sent >= 4, `send() said to wait after ${sent} events of 16 KiB (a queue of 64 KiB)`)
  const state = { ready: false }
  const waiting = writer.ready.then(() => { state.ready = true })
  await macrotask()
  t.equal(state.ready, false, 'ready waits while nobody reads')
  let text = ''
  while (!state.ready) {
    const { value } = await reader.read()
    text += decoder.decode(value)
    await macrotask()
  }
  await waiting
  t.equal(writer.send({ id: 'last', data: 'last' }), true)
  writer.close()
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    text += decoder.decode(value)
  }
  t.same(text.match(/^id: .*$/gm), [...Array.from({ length: sent }, (_, i) => `id: ${i + 1}`), 'id: last'])
})

t.test('the body cancelled: the writer closes', async (t) => {
  const writer = new EventStreamWriter(request(), { heartbeat: 0 })
  const { signal } = writer
  await writer.readable.cancel('gone')
  await bounded(writer.closed, 'closed')
  t.ok(signal.aborted)
  t.match(signal.reason.message, /the client left/)
  t.equal(writer.send({ data: 'x' }), false)
  writer.close()
})

t.test('closed by the server: its listener leaves the request\'s signal, which may live on', async (t) => {
  const controller = new AbortController()
  const req = request({ signal: controller.signal })
  const before = getEventListeners(req.signal, 'abort').length
  const writer = new EventStreamWriter(req, { heartbeat: 0 })
  t.equal(getEventListeners(req.signal, 'abort').length, before + 1, 'the writer listens while it is open')
  writer.close()
  t.equal(getEventListeners(req.signal, 'abort').length, before, 'and no longer once closed')
  controller.abort()
  t.match(writer.signal.reason.message, /closed by the server/, 'the abort after the close changes nothing')
})

t.test('the request aborted: the writer closes, also when it was aborted before', async (t) => {
  const controller = new AbortController()
  const writer = new EventStreamWriter(request({ signal: controller.signal }), { heartbeat: 0 })
  controller.abort()
  await bounded(writer.closed, 'closed')
  t.match(writer.signal.reason.message, /the client left/)

  // A handler that ran after its client left (an await before the writer was made).
  const clock = fakeClock(t)
  const timers = clock.countTimers()
  const late = new EventStreamWriter(request({ signal: AbortSignal.abort() }), { heartbeat: 1000, retry: 5 })
  t.ok(late.signal.aborted, 'closed at once')
  t.equal(late.send({ data: 'x' }), false)
  t.equal(clock.countTimers(), timers, 'no heartbeat for it')
  await t.rejects(late.ready, { code: 'ERR_EVENTSOURCE_WRITER_CLOSED' })
})

t.test('a client too slow: the body errors with ERR_EVENTSOURCE_CLIENT_TOO_SLOW, its queue dropped', async (t) => {
  const writer = new EventStreamWriter(request(), { heartbeat: 0, maxBufferedBytes: 256 * KiB })
  const reader = writer.readable.getReader()
  const data = 'x'.repeat(16 * KiB)
  let sent = 0
  while (!writer.signal.aborted && sent < 1000) {
    writer.send({ data })
    sent++
    await macrotask()
  }
  t.equal(writer.signal.reason?.code, 'ERR_EVENTSOURCE_CLIENT_TOO_SLOW', `cut after ${sent} events of 16 KiB`)
  t.ok(sent * 16 * KiB < 512 * KiB, 'bounded')
  await t.rejects(reader.read(), { code: 'ERR_EVENTSOURCE_CLIENT_TOO_SLOW' }, 'what was queued is gone')
})

t.test('heartbeats go into the body', async (t) => {
  const clock = fakeClock(t)
  const writer = new EventStreamWriter(request(), { heartbeat: 1000 })
  const reader = writer.readable.getReader()
  clock.tick(1000)
  t.equal(decoder.decode((await reader.read()).value), ':\n\n')
  writer.close()
})

t.test('what a WHATWG target refuses', async (t) => {
  t.throws(() => new EventStreamWriter(request(), { compress: true }),
    { name: 'TypeError', code: 'ERR_INVALID_ARG_VALUE', message: /options\.compress/ })
  for (const target of [{}, 'http://x/', 42, { headers: {} }, new Map()]) {
    t.throws(() => new EventStreamWriter(target), { name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE', message: /Request/ },
      `${typeof target} ${JSON.stringify(target)}`)
  }
})

t.test('through @hono/node-server: this package\'s EventSource receives the events; leaving closes the writer', async (t) => {
  const { getRequestListener } = require('@hono/node-server')
  const writers = []
  const server = http.createServer(getRequestListener((req) => {
    const writer = new EventStreamWriter(req, { heartbeat: 0 })
    writers.push(writer)
    writer.send({ id: `${writers.length}`, data: `hello ${writer.lastEventId}` })
    return writer.response()
  }))
  const { port } = await listen(t, server)
  const es = open(t, `http://127.0.0.1:${port}/events`, { reconnectionTime: 10 })
  const rec = record(es)
  await rec.wait('message')
  writers[0].close()
  await rec.wait('message', 2)
  t.same(rec.data(), ['hello ', 'hello 1'], 'the reconnection sent Last-Event-ID')
  es.close()
  await bounded(writers[1].closed, 'the writer to close once the client left')
  t.match(writers[1].signal.reason.message, /the client left/)
})

t.test('the browser and worker entry (server.browser.js): WHATWG bodies only', async (t) => {
  const web = require('../../lib/entries/server.browser.js')
  t.same(Object.keys(web).sort(), Object.keys(require('../../lib/entries/server.js')).sort(), 'the same exports')
  const channel = new web.Channel({ heartbeat: 0 })
  const writer = channel.subscribe(request({ headers: { 'last-event-id': 'unknown' } }))
  t.ok(writer instanceof web.EventStreamWriter)
  const reader = writer.response().body.getReader()
  const id = channel.publish({ data: 'x' })
  channel.close()
  let text = ''
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += decoder.decode(chunk.value)
  t.equal(text, `event: gap\nid: \ndata: \n\nid: ${id}\ndata: x\n\n`, 'a gap (its empty id resets the client\'s), the event, the end')
  // A Node response is no target here.
  const { ServerResponse, IncomingMessage } = http
  const res = new ServerResponse(new IncomingMessage(null))
  t.throws(() => new web.EventStreamWriter(res), { name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE' })
  t.throws(() => new web.EventStreamWriter(request(), { compress: true }), { code: 'ERR_INVALID_ARG_VALUE' })
})
