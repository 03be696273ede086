'use strict'

// The keep-alive rule: an EventSource that is not CLOSED keeps the process alive, also while it waits
// to reconnect (nothing else does); once close() has run, nothing of it keeps the process alive. Each
// case runs an EventSource in a child process (test/children/keepalive.cjs) against a server in
// this process, and watches whether the child is still there and whether it exits on its own.
// Each case runs on undici 7's default Agent and on the Agent that Node's own fetch() installs as the
// global dispatcher (undici 6 and its older handler API on Node 20 and 22).

const t = require('tap')
const path = require('node:path')
const { serve, bounded, runChild } = require('../helpers/index.cjs')

const CHILD = path.join(__dirname, '..', 'children', 'keepalive.cjs')
// How long a child may take to start, and to exit once its EventSource is closed. A child whose
// EventSource still held a socket or its 60 s reconnection timer would run past it.
const TIMEOUT = 5000
// The reconnection time of the close-on-event child.
const RECONNECTION_TIME = 300

const { CONNECTING, OPEN, CLOSED } = require('../..').EventSource

/**
 * A server whose /events answers are scripted by the test: respond(req, res, index), index counting
 * /events requests only. /plain answers a text body (for the child's fetch()); /redirect a 302 to
 * /events. Each /events request is noted with the time it arrived.
 */
async function startServer (t, respond) {
  const events = []
  const srv = await serve(t, (req, res) => {
    if (req.url === '/plain') {
      res.end('plain')
      return
    }
    if (req.url === '/redirect') {
      res.writeHead(302, { location: '/events' })
      res.end()
      return
    }
    req.arrived = performance.now()
    req.response = res
    // Made now: the connection may be gone before the test asks.
    req.socketClosed = new Promise((resolve) => req.socket.once('close', resolve))
    events.push(req)
    respond(req, res, events.length - 1)
  })
  return {
    base: srv.origin,
    url: srv.url('/events'),
    plainUrl: srv.url('/plain'),
    /** The /events requests. */
    requests: events,
    /** Resolves with the n-th /events request (0-based) once it has arrived. */
    async request (n) {
      for (let i = 0; events.length <= n; i++) await srv.request(i, TIMEOUT)
      return events[n]
    }
  }
}

function eventStream (res) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
}

function startChild (t, scenario, dispatcher, server, { stdin = 'ignore', url = server.url } = {}) {
  // Without the test runner's hooks (still with coverage): nothing but the EventSource may keep the
  // child alive.
  return runChild(t, [CHILD, scenario, dispatcher, url, server.plainUrl], { stdin, isolate: true })
}

function checkExit (t, { code, signal, reports, stderr }) {
  t.same(reports.filter((r) => r.error), [], 'the child reported no error', { stderr })
  t.equal(code, 0, 'the child exited on its own, with code 0', { stderr })
  t.equal(signal, null, 'the child was not killed')
}

for (const dispatcher of ['undici7', 'node-fetch']) {
  const on = dispatcher === 'undici7' ? 'undici 7\'s Agent' : 'the dispatcher of Node\'s fetch()'

  t.test(`alive while waiting to reconnect, gone after close() (${on})`, async (t) => {
    const server = await startServer(t, (req, res, index) => {
      eventStream(res)
      // The first response ends after one event: the child waits the reconnection time. The second
      // stays open, quiet until the test writes to it.
      if (index === 0) res.end('data: one\n\n')
      else res.flushHeaders()
    })
    const proc = startChild(t, 'close-on-event', dispatcher, server)

    const first = await proc.whileAlive(server.request(0))
    const second = await proc.whileAlive(server.request(1))
    t.ok(proc.alive(), 'the child was still running when its reconnection arrived')
    t.ok(second.arrived - first.arrived >= RECONNECTION_TIME - 50,
      `the reconnection came after the reconnection time (${Math.round(second.arrived - first.arrived)} ms)`)
    t.equal(second.headers.accept, 'text/event-stream')

    // The child closes its EventSource on this event; then nothing may keep it alive.
    second.response.write('data: close\n\n')
    const result = await proc.exited(TIMEOUT, 'the child to exit after close()')
    checkExit(t, result)
    t.same(result.report.log, [
      ['open', OPEN], ['message', 'one'], ['error', CONNECTING], ['open', OPEN], ['message', 'close']
    ], 'the EventSource reported open, message, error, open, message and nothing after close()')
    t.equal(result.report.readyStateBeforeClose, OPEN)
    t.equal(result.report.readyStateAfterClose, CLOSED)
    await bounded(second.socketClosed, 'the server to see the connection closed', TIMEOUT)
    t.pass('close() closed the open connection')
    t.equal(server.requests.length, 2, 'no request after close()')
  })

  // The body ends after one event; the child closes its EventSource in the error listener, or in a
  // later task while the reconnection timer is pending.
  for (const [scenario, closedOn, title] of [
    ['close-in-onerror', 'error', 'close() in the error listener: nothing waits to reconnect'],
    ['close-while-waiting', 'task after error', 'close() while the reconnection timer is pending']
  ]) {
    t.test(`${title} (${on})`, async (t) => {
      const server = await startServer(t, (req, res) => {
        eventStream(res)
        res.end('data: one\n\n')
      })
      const proc = startChild(t, scenario, dispatcher, server)
      const result = await proc.exited(TIMEOUT, `the child to exit after ${title}`)
      checkExit(t, result)
      t.same(result.report.log, [['open', OPEN], ['message', 'one'], ['error', CONNECTING]])
      t.equal(result.report.closedOn, closedOn)
      t.equal(result.report.readyStateBeforeClose, CONNECTING)
      t.equal(result.report.readyStateAfterClose, CLOSED)
      t.equal(server.requests.length, 1, 'no reconnection')
    })
  }

  t.test(`close() while connecting to a server that never answers (${on})`, async (t) => {
    // The request is read and never answered: no status line, no headers.
    const server = await startServer(t, () => {})
    const proc = startChild(t, 'close-while-connecting', dispatcher, server, { stdin: 'pipe' })

    const request = await proc.whileAlive(server.request(0))
    t.ok(proc.alive(), 'the child is running, its request unanswered')
    proc.child.stdin.end('close\n')
    const result = await proc.exited(TIMEOUT, 'the child to exit after close() while connecting')
    checkExit(t, result)
    t.same(result.report.log, [], 'no event at all, not even error')
    t.equal(result.report.readyStateBeforeClose, CONNECTING)
    t.equal(result.report.readyStateAfterClose, CLOSED)
    await bounded(request.socketClosed, 'the server to see the connection closed', TIMEOUT)
    t.pass('close() closed the pending request\'s connection')
    t.equal(server.requests.length, 1, 'no other request')
  })
}

// A redirect makes the connection abort the first request and send another. After close(), neither
// may be left running. (At 918667c the aborted redirect response was taken for a network error, and
// the request to the Location was still sent on the finished connection, where close() could not
// reach it: it kept the process alive.)
t.test('after a redirect, close() leaves no request behind (undici 7\'s Agent)', async (t) => {
  // The redirected request gets an event and stays open.
  const server = await startServer(t, (req, res) => {
    eventStream(res)
    res.write('data: one\n\n')
  })
  const proc = startChild(t, 'close-on-first', 'undici7', server, { url: `${server.base}/redirect` })
  const result = await proc.exited(TIMEOUT, 'the child to exit after close()')
  checkExit(t, result)
  t.same(result.report.log, [['open', OPEN], ['message', 'one']], 'the redirect was followed')
  t.equal(result.report.readyStateAfterClose, CLOSED)
  t.equal(server.requests.length, 1, 'one request to /events')
  await bounded(server.requests[0].socketClosed, 'the server to see the connection closed', TIMEOUT)
  t.pass('close() closed the redirected request\'s connection')
})

// Whether the wait before a reconnection keeps the process alive is an option: keepAliveWhileReconnecting,
// true by default on the main entry (above), false by default on the `eventsource` package's entry, as
// that package unrefs its timer. An open connection keeps the process alive either way.
for (const [name, child, body] of [
  ['keepAliveWhileReconnecting false', 'unref-while-waiting', 'data: one\n\n'],
  ['the eventsource package\'s entry', 'compat-while-waiting', 'retry: 60000\ndata: one\n\n']
]) {
  t.test(`${name}: the process exits while the source waits to reconnect`, async (t) => {
    const server = await startServer(t, (req, res) => {
      eventStream(res)
      res.end(body)
    })
    const proc = startChild(t, child, 'undici7', server)
    const result = await proc.exited(TIMEOUT, 'the child to exit while its source waits to reconnect')
    checkExit(t, result)
    t.same(result.report.log, [['open', OPEN], ['message', 'one'], ['error', CONNECTING]])
    t.equal(result.report.readyStateAtExit, CONNECTING, 'exited without close(), while CONNECTING')
    t.equal(server.requests.length, 1)
  })
}

t.test('the eventsource package\'s entry with keepAliveWhileReconnecting true: alive until it reconnects', async (t) => {
  const server = await startServer(t, (req, res, index) => {
    eventStream(res)
    if (index === 0) res.end(`retry: ${RECONNECTION_TIME}\ndata: one\n\n`)
    else res.flushHeaders()
  })
  const proc = startChild(t, 'compat-keepalive', 'undici7', server)
  const second = await proc.whileAlive(server.request(1))
  t.ok(proc.alive(), 'the child was still running when its reconnection arrived')
  second.response.write('data: close\n\n')
  const result = await proc.exited(TIMEOUT, 'the child to exit after close()')
  checkExit(t, result)
  t.same(result.report.log, [['open', OPEN], ['message', 'one'], ['error', CONNECTING], ['open', OPEN], ['message', 'close']])
  t.equal(result.report.readyStateAtExit, CLOSED)
})
