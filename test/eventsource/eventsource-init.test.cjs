'use strict'

// What the Node members of EventSourceInit do: node.dispatcher, dispatcher, maxEventSize, and when the
// dispatcher is asked. (How each is validated:
// test/validators/extension-options.test.cjs.)

const t = require('tap')
const { getGlobalDispatcher, setGlobalDispatcher } = require('undici')
const { EventSource } = require('../../')
const { serve, sse, record, macrotask, countingDispatcher } = require('../helpers/index.cjs')

const URL_ = 'http://127.0.0.1:1/'

t.test('node.dispatcher carries the requests', async (t) => {
  const srv = await serve(t, (req, res) => sse(res, 'data: via node.dispatcher\n\n', { end: false }))
  const dispatcher = countingDispatcher(t)
  const rec = record(srv.eventSource('/d', { node: { dispatcher } }))
  t.equal((await rec.wait('message')).data, 'via node.dispatcher')
  t.equal(dispatcher.calls.length, 1)
  t.equal(dispatcher.calls[0].origin, srv.origin)
  t.equal(dispatcher.calls[0].path, '/d')
  t.equal(dispatcher.calls[0].method, 'GET')
})

t.test('the top-level dispatcher member takes precedence over node.dispatcher', async (t) => {
  const srv = await serve(t, (req, res) => sse(res, 'data: x\n\n', { end: false }))
  const top = countingDispatcher(t)
  const nested = countingDispatcher(t)
  const rec = record(srv.eventSource('/', { dispatcher: top, node: { dispatcher: nested } }))
  await rec.wait('message')
  t.equal(top.calls.length, 1)
  t.equal(nested.calls.length, 0)
})

t.test('without a dispatcher, the global one is looked up for every attempt', async (t) => {
  const previous = getGlobalDispatcher()
  t.teardown(() => setGlobalDispatcher(previous))
  const first = countingDispatcher(t)
  const second = countingDispatcher(t)
  setGlobalDispatcher(first)
  const srv = await serve(t, (req, res, i) => sse(res, `data: attempt ${i}\n\n`, { end: i === 0 }))
  const es = srv.eventSource('/')
  const rec = record(es)
  // Swap the global dispatcher while the EventSource waits to reconnect.
  es.addEventListener('error', () => setGlobalDispatcher(second), { once: true })
  await rec.wait('message', 2)
  t.same(rec.data(), ['attempt 0', 'attempt 1'])
  t.equal(first.calls.length, 1, 'the first attempt went through the first global dispatcher')
  t.equal(second.calls.length, 1, 'the reconnection went through the new global dispatcher')
})

t.test('no dispatcher is used when close() follows new synchronously', async (t) => {
  const dispatcher = countingDispatcher(t)
  const es = new EventSource(URL_, { dispatcher })
  es.close()
  await macrotask()
  t.equal(dispatcher.calls.length, 0)
})

t.test('the request starts after the constructor, in a microtask', async (t) => {
  const dispatcher = countingDispatcher(t)
  const es = new EventSource('http://127.0.0.1:1/', { dispatcher, reconnectionTime: 60000 })
  t.teardown(() => es.close())
  t.equal(dispatcher.calls.length, 0, 'not during the constructor')
  await null
  t.equal(dispatcher.calls.length, 1, 'started once the constructor has returned')
})

t.test('maxEventSize: an event over the limit fails the connection', async (t) => {
  const srv = await serve(t, (req, res) =>
    sse(res, `data: small\n\ndata: ${'x'.repeat(100)}\n\ndata: after\n\n`, { end: false }))
  const es = srv.eventSource('/', { maxEventSize: 32, reconnectionTime: 10 })
  const rec = record(es)
  await rec.wait('error')
  t.same(rec.types, ['open', 'message', 'error'], 'the small event is delivered, nothing after the big one')
  t.equal(rec.events[2].readyState, EventSource.CLOSED, 'failed, not reestablished')
  t.equal(es.readyState, EventSource.CLOSED)
  t.equal(srv.requests.length, 1)
})

t.test('maxEventSize: a limit also bounds an event spread over many lines and chunks', async (t) => {
  const srv = await serve(t, (req, res) => {
    sse(res, undefined)
    for (let i = 0; i < 20; i++) res.write('data: 0123456789\n')
  })
  const es = srv.eventSource('/', { maxEventSize: 100 })
  const rec = record(es)
  await rec.wait('error')
  t.same(rec.types, ['open', 'error'])
  t.equal(es.readyState, EventSource.CLOSED)
})

t.test('maxEventSize: Infinity lifts the limit', async (t) => {
  const big = 'y'.repeat(256 * 1024)
  const srv = await serve(t, (req, res) => sse(res, `data: ${big}\n\n`, { end: false }))
  const rec = record(srv.eventSource('/', { maxEventSize: Infinity }))
  t.equal((await rec.wait('message')).data, big)
})

// A source whose dictionary resolves to the same values as the last one shares that resolved init
// (lib/eventsource/init.js, sameInit): a few hundred bytes less on every idle source. Dictionaries that
// differ in any value, however alike, must each keep their own.
t.test('sources given dictionaries that differ only a little each keep their own values', async (t) => {
  const srv = await serve(t, (req, res) => sse(res, `data: ${req.headers['x-v'] ?? '-'} ${req.headers['x-w'] ?? '-'}\n\n`, { end: false }))
  const inits = [
    { headers: { 'x-v': '1' } },
    { headers: { 'x-v': '1' } }, // equal to the previous one: shared
    { headers: { 'x-v': '2' } }, // the same name, another value
    { headers: { 'x-v': '2', 'x-w': 'w' } }, // one more header
    { headers: { 'x-w': 'w', 'x-v': '2' } }, // equal, in another order: shared
    { headers: { 'x-v': '2' }, credentialHeaders: ['x-v'] }, // another list of credential headers
    { headers: { 'x-v': '2' }, credentialHeaders: ['x-w'] }, // a list of the same length
    { headers: { 'x-v': '2' }, credentialHeaders: ['x-w'] },
    { headers: () => ({ 'x-v': 'f' }) }, // a function is never the same
    { headers: { 'x-v': '3' }, withCredentials: true },
    {}
  ]
  const sources = inits.map((init) => srv.eventSource('/', init))
  const data = await Promise.all(sources.map((es) => record(es).wait('message').then(({ data }) => data)))
  t.same(data, ['1 -', '1 -', '2 -', '2 w', '2 w', '2 -', '2 -', '2 -', 'f -', '3 -', '- -'])
  t.same(sources.map((es) => es.withCredentials), inits.map((init) => init.withCredentials === true))
  for (const es of sources) es.close()
})
