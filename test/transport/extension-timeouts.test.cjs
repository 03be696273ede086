'use strict'

// init.connectTimeout (no response head in time) and init.idleTimeout (an open stream gone silent):
// both are network errors, so the EventSource reconnects, with Last-Event-ID.

const t = require('tap')
const { EventSource } = require('../../')
const { SSE_HEADERS, serve, open, record, reconnectionCycle, fakeClock, stamped, onceBounded } = require('../helpers/index.cjs')

t.test('connectTimeout: a server that accepts but never answers', async (t) => {
  const closed = []
  // No request gets an answer.
  const server = await serve(t, (req, res, i) => req.socket.once('close', () => closed.push(i)))
  // Node's timers count from the event loop's clock, read at the start of a loop turn; a timer armed
  // later in the turn than `start` was taken would seem to fire early. Arm it in a later turn.
  const start = performance.now()
  await new Promise((resolve) => setTimeout(resolve, 0))
  const es = open(t, server.url(), { connectTimeout: 50, reconnectionTime: 0 })
  const rec = record(es)
  const { event: error } = await rec.wait('error')
  const waited = rec.events[0].time - start
  t.ok(waited >= 49, `timed out after ${waited.toFixed(1)} ms, not before 50`)
  t.equal(error.code, 'ERR_EVENTSOURCE_CONNECT_TIMEOUT')
  t.equal(error.message, `No response from ${server.origin} within 50 ms (connectTimeout)`)
  t.equal(error.willReconnect, true)
  t.equal(error.reconnectDelay, 0)
  t.equal(rec.events[0].readyState, EventSource.CONNECTING)
  t.equal(error.status, undefined)
  t.ok(error.cause instanceof Error && error.cause.code === 'ERR_EVENTSOURCE_CONNECT_TIMEOUT', 'cause: the timeout error itself')
  t.equal(error.cause.url, server.url())
  await server.request(1)
  t.pass('reconnected')
  const socket = server.requests[0].socket
  if (!socket.destroyed) await onceBounded(socket, 'close')
  t.ok(closed.includes(0), 'the timed-out request was aborted, its socket closed')
})

t.test('connectTimeout is 30 s by default', async (t) => {
  const clock = fakeClock(t)
  // No request gets an answer.
  const server = await serve(t, () => {})
  const source = stamped(t, clock, server.url())
  await server.request(0)
  clock.tick(29_999)
  t.same(source.rec.types, [], 'nothing after 29,999 ms')
  clock.tick(1)
  t.same(source.rec.types, ['error'], 'a network error at 30,000 ms')
  const { event: error } = source.rec.of('error')[0]
  t.equal(error.code, 'ERR_EVENTSOURCE_CONNECT_TIMEOUT')
  t.equal(error.message, `No response from ${server.origin} within 30000 ms (connectTimeout)`)
  t.equal(error.willReconnect, true)
  t.equal(error.reconnectDelay, 3000)
  clock.tick(3000)
  t.same(source.attempts, [0, 33_000], 'then a reconnection after the reconnection time')
  await server.request(1)
})

t.test('connectTimeout: 0 waits for the response head as long as undici does', async (t) => {
  const clock = fakeClock(t)
  const server = await serve(t, () => {})
  const source = stamped(t, clock, server.url(), { connectTimeout: 0 })
  await server.request(0)
  // undici's own headersTimeout is 300 s.
  clock.tick(299_000)
  t.same(source.rec.types, [], 'no timeout of ours')
  t.equal(source.es.readyState, EventSource.CONNECTING)
  t.same(source.attempts, [0])
})

t.test('connectTimeout does not limit an open stream', async (t) => {
  let later
  const server = await serve(t, (req, res) => {
    res.writeHead(200, SSE_HEADERS).flushHeaders()
    later = () => res.write('data: late\n\n')
  })
  const es = open(t, server.url(), { connectTimeout: 150, reconnectionTime: 0 })
  const rec = record(es)
  await rec.wait('open')
  await reconnectionCycle(t, 160)
  later()
  await rec.wait('message')
  t.same(rec.types, ['open', 'message'], 'no error in between')
})

t.test('connectTimeout also bounds the request a redirect leads to', async (t) => {
  const server = await serve(t, (req, res) => {
    if (req.url === '/start') res.writeHead(302, { location: '/hang' }).end()
    // /hang never answers.
  })
  // The clock is fake, so that a loaded machine cannot time out /start before its redirect is seen.
  const clock = fakeClock(t)
  const es = open(t, server.url('/start'), { connectTimeout: 50, reconnectionTime: 60000 })
  const rec = record(es)
  // /hang has arrived: its timer was armed before it was sent.
  await server.request(1)
  clock.tick(49)
  t.same(rec.types, [], 'no timeout before 50 ms')
  clock.tick(1)
  t.same(rec.types, ['error'], 'a network error at 50 ms')
  const { event: error } = rec.of('error')[0]
  t.equal(error.code, 'ERR_EVENTSOURCE_CONNECT_TIMEOUT')
  t.equal(error.willReconnect, true)
  t.same(server.requests.map((r) => r.url), ['/start', '/hang'], 'the redirected request timed out')
})

t.test('idleTimeout: a stalled stream is dropped and resumed with Last-Event-ID', async (t) => {
  let lastWrite = 0
  const server = await serve(t, (req, res, i) => {
    res.writeHead(200, SSE_HEADERS)
    // Request 0 sends one event and goes silent, its connection kept open.
    res.write(i === 0 ? 'id: 1\ndata: first\n\n' : 'id: 2\ndata: second\n\n')
    if (i === 0) lastWrite = performance.now()
  })
  const es = open(t, server.url(), { idleTimeout: 100, reconnectionTime: 0 })
  const rec = record(es)
  const { event: error } = await rec.wait('error')
  // Timed from the server's last write, which the client's last byte cannot precede: the message event
  // itself may be dispatched late on a loaded machine, and the silence is the server's, not the
  // listener's.
  const silent = rec.events[2].time - lastWrite
  t.ok(silent >= 99, `silent for ${silent.toFixed(1)} ms, not less than 100`)
  t.equal(error.code, 'ERR_EVENTSOURCE_IDLE_TIMEOUT')
  t.equal(error.message, `No data from ${server.origin} for 100 ms (idleTimeout)`)
  t.equal(error.willReconnect, true)
  t.equal(error.cause.code, 'ERR_EVENTSOURCE_IDLE_TIMEOUT')
  t.equal(error.status, undefined, 'not a response problem')
  await rec.wait('message', 2)
  t.same(rec.events.map((e) => [e.type, e.readyState]), [
    ['open', EventSource.OPEN], ['message', EventSource.OPEN], ['error', EventSource.CONNECTING],
    ['open', EventSource.OPEN], ['message', EventSource.OPEN]
  ])
  t.equal(server.requests[1].headers['last-event-id'], '1')
  const first = server.requests[0]
  if (!first.socket.destroyed) await onceBounded(first.socket, 'close')
  t.pass('the stalled connection was closed')
})

t.test('idleTimeout: a server silent right after the head', async (t) => {
  const server = await serve(t, (req, res) => res.writeHead(200, SSE_HEADERS).flushHeaders())
  const es = open(t, server.url(), { idleTimeout: 30, connectTimeout: 1000, reconnectionTime: 0 })
  const rec = record(es)
  await rec.wait('open', 2)
  t.same(rec.types, ['open', 'error', 'open'])
  t.equal(rec.of('error')[0].code, 'ERR_EVENTSOURCE_IDLE_TIMEOUT', 'the idle timer, not the connect timer')
})

// Both of undici's handler APIs hand the body to the transport through a call of their own: the global dispatcher
// has taken the older one since this file's first request (undici 7 wraps the other), and a fresh undici 7 Agent
// takes the controller API for its first request.
const HEARTBEAT_DISPATCHERS = {
  'undici\'s older handler API': () => undefined,
  'the controller API': (t) => {
    const agent = new (require('undici').Agent)()
    t.teardown(() => agent.destroy())
    return agent
  }
}

for (const [api, dispatcherFor] of Object.entries(HEARTBEAT_DISPATCHERS)) {
  t.test(`idleTimeout: comment heartbeats count as activity (${api})`, async (t) => {
    // A heartbeat every 20 ms for 500 ms, then an event: with a 250 ms idle timeout, never cut.
    const server = await serve(t, (req, res) => {
      res.writeHead(200, SSE_HEADERS).flushHeaders()
      let beats = 0
      const timer = setInterval(() => {
        if (++beats < 25) {
          res.write(':\n')
          return
        }
        clearInterval(timer)
        res.write('data: done\n\n')
      }, 20)
      res.on('close', () => clearInterval(timer))
    })
    const dispatcher = dispatcherFor(t)
    const init = dispatcher === undefined ? {} : { dispatcher }
    const es = open(t, server.url(), { ...init, idleTimeout: 250, reconnectionTime: 0 })
    const rec = record(es)
    const start = performance.now()
    const { event: message } = await rec.wait('message')
    t.ok(performance.now() - start >= 250, 'the stream outlived the idle timeout')
    t.equal(message.data, 'done')
    t.same(rec.types, ['open', 'message'], 'no idle timeout')
    t.equal(server.requests.length, 1)
  })
}

t.test('idleTimeout: a consumer that holds the stream back is not taken for a silent server', async (t) => {
  let write
  const server = await serve(t, (req, res, i) => {
    res.writeHead(200, SSE_HEADERS)
    res.write('data: 1\n\ndata: 2\n\ndata: 3\n\n')
    write = (text) => res.write(text)
  })
  const es = open(t, server.url(), { idleTimeout: 100, highWaterMark: 2, reconnectionTime: 0 })
  const rec = record(es)
  const iterator = es[Symbol.asyncIterator]()
  await rec.wait('message', 3)
  // The queue is full and reading paused. The idle timer, armed before the control's, fires first.
  await reconnectionCycle(t, 110)
  t.same(rec.types, ['open', 'message', 'message', 'message'], 'no idle timeout while paused')
  const data = []
  for (let i = 0; i < 3; i++) data.push((await iterator.next()).value.data)
  write('data: 4\n\n')
  data.push((await iterator.next()).value.data)
  t.same(data, ['1', '2', '3', '4'])
  // Once resumed the timer runs again: a silent server is still detected.
  const { event: error } = await rec.wait('error')
  t.equal(error.code, 'ERR_EVENTSOURCE_IDLE_TIMEOUT')
  await iterator.return()
})
