'use strict'

// close() in every state: nothing is dispatched afterwards, no request follows, the socket is
// released. (That nothing keeps the process alive afterwards is eventsource-keepalive.test.cjs.)
// https://html.spec.whatwg.org/multipage/server-sent-events.html#dom-eventsource-close

const t = require('tap')
const { EventSource } = require('../../')
const { serve, sse, record, reconnectionCycle, onceBounded } = require('../helpers/index.cjs')

const { CONNECTING, CLOSED } = EventSource

t.test('close() inside onmessage drops the rest of the chunk', async (t) => {
  const srv = await serve(t, (req, res) => sse(res, 'data: 1\n\ndata: 2\n\nevent: x\ndata: 3\n\n', { end: false }))
  const es = srv.eventSource('/')
  const rec = record(es, ['open', 'message', 'error', 'x'])
  const others = []
  es.onmessage = () => es.close()
  es.addEventListener('message', (e) => others.push(e.data))
  await rec.wait('message')
  await onceBounded(srv.requests[0].socket, 'close')
  t.same(rec.types, ['open', 'message'], 'nothing after the first message')
  t.same(others, ['1'], 'listeners of the current event still run')
  t.equal(es.readyState, CLOSED)
})

t.test('close() inside onopen: no message and no error follow', async (t) => {
  // Head and body go out together; the body is already there when open is dispatched.
  const srv = await serve(t, (req, res) => sse(res, 'data: 1\n\ndata: 2\n\n'))
  const es = srv.eventSource('/')
  const rec = record(es)
  es.onopen = () => es.close()
  await rec.wait('open')
  await reconnectionCycle(t)
  t.same(rec.types, ['open'])
  t.equal(srv.requests.length, 1)
  t.equal(es.readyState, CLOSED)
})

t.test('close() inside onerror stops the reconnection', async (t) => {
  const srv = await serve(t, (req, res) => sse(res, 'data: 1\n\n'))
  const es = srv.eventSource('/')
  const rec = record(es)
  es.onerror = () => es.close()
  await rec.wait('error')
  t.equal(rec.events[2].readyState, CONNECTING, 'error is dispatched while CONNECTING')
  await reconnectionCycle(t)
  t.same(rec.types, ['open', 'message', 'error'])
  t.equal(srv.requests.length, 1, 'no reconnection')
  t.equal(es.readyState, CLOSED)
})

t.test('close() while connecting aborts the request', async (t) => {
  let respond
  const srv = await serve(t, (req, res) => { respond = () => sse(res, 'data: late\n\n', { end: false }) })
  const es = srv.eventSource('/')
  const rec = record(es)
  const req = await srv.request(0)
  es.close()
  t.equal(es.readyState, CLOSED)
  await onceBounded(req.socket, 'close')
  respond()
  await reconnectionCycle(t)
  t.same(rec.types, [], 'no event at all')
  t.equal(srv.requests.length, 1)
})

t.test('close() while open releases the socket and drops later data', async (t) => {
  let res0
  const srv = await serve(t, (req, res) => {
    res0 = res
    sse(res, 'data: 1\n\n', { end: false })
  })
  const es = srv.eventSource('/')
  const rec = record(es)
  await rec.wait('message')
  es.close()
  t.equal(es.readyState, CLOSED)
  await onceBounded(res0, 'close')
  t.ok(res0.socket === null || res0.socket.destroyed, 'the server sees the connection closed')
  res0.write('data: 2\n\n')
  await reconnectionCycle(t)
  t.same(rec.types, ['open', 'message'])
})

t.test('close() while waiting to reconnect', async (t) => {
  const srv = await serve(t, (req, res) => sse(res, 'data: 1\n\n'))
  const es = srv.eventSource('/', { reconnectionTime: 20 })
  const rec = record(es)
  await rec.wait('error')
  t.equal(es.readyState, CONNECTING)
  es.close()
  t.equal(es.readyState, CLOSED)
  await reconnectionCycle(t, 20)
  t.same(rec.types, ['open', 'message', 'error'])
  t.equal(srv.requests.length, 1, 'the pending reconnection was cancelled')
})

t.test('close() right after new sends nothing and dispatches nothing', async (t) => {
  const srv = await serve(t, (req, res) => sse(res, 'data: 1\n\n'))
  const es = srv.eventSource('/')
  const rec = record(es)
  es.close()
  await reconnectionCycle(t)
  t.equal(srv.requests.length, 0)
  t.same(rec.types, [])
})

t.test('close() after the connection failed changes nothing', async (t) => {
  const es = new EventSource('data:,x')
  const rec = record(es)
  await rec.wait('error')
  es.close()
  es.close()
  t.equal(es.readyState, CLOSED)
  t.same(rec.types, ['error'])
})

t.test('close() from another listener between two events of the same chunk', async (t) => {
  const srv = await serve(t, (req, res) => sse(res, 'event: a\ndata: 1\n\nevent: b\ndata: 2\n\n', { end: false }))
  const es = srv.eventSource('/')
  const rec = record(es, ['open', 'a', 'b', 'error'])
  es.addEventListener('a', () => es.close())
  await rec.wait('a')
  await reconnectionCycle(t)
  t.same(rec.types, ['open', 'a'])
})
