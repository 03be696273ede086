'use strict'

// init.signal: aborting closes the EventSource, like close(): readyState CLOSED, no error event, no
// further events or requests; the abort listener does not outlive the EventSource.

const t = require('tap')
const { getEventListeners } = require('node:events')
const { Agent } = require('undici')
const { EventSource } = require('../../')
const { SSE_HEADERS, serve, open, record, reconnectionCycle, onceBounded } = require('../helpers/index.cjs')

const listeners = (signal) => getEventListeners(signal, 'abort').length

t.test('abort while open: CLOSED, no error, later data dropped, socket released', async (t) => {
  let write
  const server = await serve(t, (req, res) => {
    res.writeHead(200, SSE_HEADERS).write('data: before\n\n')
    write = (text) => res.write(text)
  })
  const controller = new AbortController()
  const es = open(t, server.url(), { signal: controller.signal, reconnectionTime: 0 })
  const rec = record(es)
  t.equal(listeners(controller.signal), 1, 'one abort listener while the source lives')
  await rec.wait('message')
  const socketClosed = onceBounded(server.requests[0].socket, 'close')
  controller.abort()
  t.equal(es.readyState, EventSource.CLOSED, 'CLOSED at once')
  t.equal(listeners(controller.signal), 0, 'the listener is gone')
  write('data: after\n\n')
  await socketClosed
  await reconnectionCycle(t, 10)
  t.same(rec.types, ['open', 'message'], 'no error event, nothing after the abort')
  t.equal(server.requests.length, 1, 'no reconnection')
})

t.test('abort while connecting: the request is aborted', async (t) => {
  const server = await serve(t, () => {}) // never answers
  const controller = new AbortController()
  const es = open(t, server.url(), { signal: controller.signal })
  const rec = record(es)
  const req = await server.request(0)
  const closed = onceBounded(req.socket, 'close')
  controller.abort()
  t.equal(es.readyState, EventSource.CLOSED)
  await closed
  t.same(rec.events, [])
})

t.test('abort while waiting to reconnect: the timer is cancelled', async (t) => {
  const server = await serve(t, (req, res) => res.writeHead(200, SSE_HEADERS).end('data: x\n\n'))
  const controller = new AbortController()
  const es = open(t, server.url(), { signal: controller.signal, reconnectionTime: 20 })
  const rec = record(es)
  const { event: error } = await rec.wait('error')
  t.equal(error.willReconnect, true)
  controller.abort()
  t.equal(es.readyState, EventSource.CLOSED)
  await reconnectionCycle(t, 20)
  t.equal(server.requests.length, 1, 'the reconnection due after 20 ms never came')
  t.same(rec.types, ['open', 'message', 'error'])
})

t.test('abort while an async headers function runs: nothing is sent', async (t) => {
  const agent = new Agent()
  t.teardown(() => agent.close())
  let dispatched = 0
  const dispatcher = { dispatch: (o, h) => { dispatched++; return agent.dispatch(o, h) } }
  const controller = new AbortController()
  let release
  const es = open(t, 'http://127.0.0.1:1/', {
    signal: controller.signal,
    dispatcher,
    headers: () => new Promise((resolve) => { release = resolve })
  })
  const rec = record(es)
  await new Promise((resolve) => setImmediate(resolve))
  t.type(release, 'function', 'the headers function was called')
  controller.abort()
  release({ 'x-late': '1' })
  await new Promise((resolve) => setImmediate(resolve))
  t.equal(dispatched, 0)
  t.same(rec.events, [])
})

t.test('an already-aborted signal: CLOSED from the start, no request, no listener', async (t) => {
  let dispatched = 0
  const dispatcher = { dispatch () { dispatched++ } }
  const signal = AbortSignal.abort()
  const es = open(t, 'http://127.0.0.1:1/', { signal, dispatcher })
  const rec = record(es)
  t.equal(es.readyState, EventSource.CLOSED)
  t.equal(listeners(signal), 0)
  const iteration = await es[Symbol.asyncIterator]().next()
  t.same(iteration, { value: undefined, done: true }, 'an iteration ends at once')
  await new Promise((resolve) => setImmediate(resolve))
  t.equal(dispatched, 0, 'no request was made')
  t.same(rec.events, [], 'no event')
  es.close()
  t.equal(es.readyState, EventSource.CLOSED)
})

t.test('close() removes the abort listener; a later abort changes nothing', async (t) => {
  const server = await serve(t, (req, res) => res.writeHead(200, SSE_HEADERS).flushHeaders())
  const controller = new AbortController()
  const es = open(t, server.url(), { signal: controller.signal })
  const rec = record(es)
  await rec.wait('open')
  es.close()
  t.equal(listeners(controller.signal), 0)
  controller.abort()
  t.same(rec.types, ['open'])
})

t.test('a failed connection removes the abort listener too', async (t) => {
  const server = await serve(t, (req, res) => res.writeHead(404).end())
  const controller = new AbortController()
  const es = open(t, server.url(), { signal: controller.signal })
  const rec = record(es)
  await rec.wait('error')
  t.equal(es.readyState, EventSource.CLOSED)
  t.equal(listeners(controller.signal), 0)
})

t.test('one signal for several sources; an iteration ends without an error', async (t) => {
  const server = await serve(t, (req, res) => res.writeHead(200, SSE_HEADERS).write('data: x\n\n'))
  const controller = new AbortController()
  const a = open(t, server.url('/a'), { signal: controller.signal })
  const b = open(t, server.url('/b'), { signal: controller.signal })
  const recA = record(a)
  const recB = record(b)
  t.equal(listeners(controller.signal), 2)
  const seen = []
  const iteration = (async () => {
    for await (const event of b) {
      seen.push(event.data)
      controller.abort()
    }
  })()
  await recA.wait('message')
  await iteration
  t.same(seen, ['x'], 'the loop ended after the abort, without throwing')
  t.equal(a.readyState, EventSource.CLOSED)
  t.equal(b.readyState, EventSource.CLOSED)
  t.equal(listeners(controller.signal), 0)
  t.notOk(recA.types.includes('error') || recB.types.includes('error'), 'no error events')
})
