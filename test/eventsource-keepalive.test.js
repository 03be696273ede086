'use strict'

// The keep-alive rule: an EventSource that is not CLOSED keeps the process alive, also while it waits
// to reconnect (nothing else does); once close() has run, nothing of it keeps the process alive. Each
// case runs an EventSource in a child process (test/fixtures/keepalive-child.js) against a server in
// this process, and watches whether the child is still there and whether it exits on its own.
// Each case runs on undici 7's default Agent and on the Agent that Node's own fetch() installs as the
// global dispatcher (undici 6 and its older handler API on Node 20 and 22).

const t = require('tap')
const { bounded } = require('./helpers/sse-server')
const http = require('node:http')
const path = require('node:path')
const { once } = require('node:events')
const { spawn } = require('node:child_process')

const CHILD = path.join(__dirname, 'fixtures', 'keepalive-child.js')
// How long a child may take to start, and to exit once its EventSource is closed. A child whose
// EventSource still held a socket or its 60 s reconnection timer would run past it.
const TIMEOUT = 5000
// The reconnection time of the close-on-event child.
const RECONNECTION_TIME = 300

const OPEN = 1
const CONNECTING = 0
const CLOSED = 2

/** Rejects with `what` when `promise` has not settled within `ms`. */
const within = (promise, what, ms = TIMEOUT) => bounded(promise, () => what, ms)

/**
 * A server whose /events answers are scripted by the test: respond(req, res, index). /plain answers
 * a text body (for the child's fetch()); /redirect a 302 to /events. Each /events request is
 * recorded with the time it arrived and a promise of its connection closing.
 */
async function startServer (t, respond) {
  const requests = []
  const waiters = []
  const server = http.createServer((req, res) => {
    if (req.url === '/plain') {
      res.end('plain')
      return
    }
    if (req.url === '/redirect') {
      res.writeHead(302, { location: '/events' })
      res.end()
      return
    }
    const request = {
      headers: req.headers,
      arrived: performance.now(),
      socketClosed: new Promise((resolve) => req.socket.once('close', resolve)),
      res
    }
    requests.push(request)
    respond(req, res, requests.length - 1)
    for (const waiter of waiters.splice(0)) waiter()
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  t.teardown(async () => {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  })
  const base = `http://127.0.0.1:${server.address().port}`
  return {
    base,
    url: `${base}/events`,
    plainUrl: `${base}/plain`,
    requests,
    /** Resolves with the n-th /events request (0-based) once it has arrived. */
    request (n) {
      const arrived = async () => {
        while (requests.length <= n) await new Promise((resolve) => waiters.push(resolve))
        return requests[n]
      }
      return within(arrived(), `request ${n} to arrive`)
    }
  }
}

function eventStream (res) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
}

function startChild (t, scenario, dispatcher, server, { stdin = 'ignore', url = server.url } = {}) {
  const child = spawn(process.execPath, [CHILD, scenario, dispatcher, url, server.plainUrl], {
    stdio: [stdin, 'pipe', 'pipe']
  })
  t.teardown(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  })
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (chunk) => { stdout += chunk })
  child.stderr.setEncoding('utf8').on('data', (chunk) => { stderr += chunk })
  const closed = once(child, 'close')
  return {
    child,
    alive: () => child.exitCode === null && child.signalCode === null,
    /** Resolves with `promise`, or rejects at once if the child exits first. */
    whileAlive (promise) {
      return Promise.race([promise, closed.then(() => {
        throw new Error(`the child exited (code ${child.exitCode}) while it should have been waiting\n` +
          `stdout: ${stdout}\nstderr: ${stderr}`)
      })])
    },
    /** Resolves once the child has exited on its own (and its output is complete). */
    async exited (what, ms = TIMEOUT) {
      try {
        await within(closed, what, ms)
      } catch (err) {
        err.message += `\nstdout: ${stdout}\nstderr: ${stderr}`
        throw err
      }
      const reports = stdout.trim().split('\n').filter(Boolean).map((line) => JSON.parse(line))
      return { code: child.exitCode, signal: child.signalCode, report: reports[reports.length - 1] ?? {}, reports, stderr }
    }
  }
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
    second.res.write('data: close\n\n')
    const result = await proc.exited('the child to exit after close()')
    checkExit(t, result)
    t.same(result.report.log, [
      ['open', OPEN], ['message', 'one'], ['error', CONNECTING], ['open', OPEN], ['message', 'close']
    ], 'the EventSource reported open, message, error, open, message and nothing after close()')
    t.equal(result.report.readyStateBeforeClose, OPEN)
    t.equal(result.report.readyStateAfterClose, CLOSED)
    await within(second.socketClosed, 'the server to see the connection closed')
    t.pass('close() closed the open connection')
    t.equal(server.requests.length, 2, 'no request after close()')
  })

  t.test(`close() in the error listener: nothing waits to reconnect (${on})`, async (t) => {
    const server = await startServer(t, (req, res) => {
      eventStream(res)
      res.end('data: one\n\n')
    })
    const proc = startChild(t, 'close-in-onerror', dispatcher, server)
    const result = await proc.exited('the child to exit after close() in onerror')
    checkExit(t, result)
    t.same(result.report.log, [['open', OPEN], ['message', 'one'], ['error', CONNECTING]])
    t.equal(result.report.closedOn, 'error')
    t.equal(result.report.readyStateBeforeClose, CONNECTING)
    t.equal(result.report.readyStateAfterClose, CLOSED)
    t.equal(server.requests.length, 1, 'no reconnection')
  })

  t.test(`close() while the reconnection timer is pending (${on})`, async (t) => {
    const server = await startServer(t, (req, res) => {
      eventStream(res)
      res.end('data: one\n\n')
    })
    const proc = startChild(t, 'close-while-waiting', dispatcher, server)
    const result = await proc.exited('the child to exit after close() while waiting to reconnect')
    checkExit(t, result)
    t.same(result.report.log, [['open', OPEN], ['message', 'one'], ['error', CONNECTING]])
    t.equal(result.report.closedOn, 'task after error')
    t.equal(result.report.readyStateBeforeClose, CONNECTING)
    t.equal(result.report.readyStateAfterClose, CLOSED)
    t.equal(server.requests.length, 1, 'no reconnection')
  })

  t.test(`close() while connecting to a server that never answers (${on})`, async (t) => {
    // The request is read and never answered: no status line, no headers.
    const server = await startServer(t, () => {})
    const proc = startChild(t, 'close-while-connecting', dispatcher, server, { stdin: 'pipe' })

    const request = await proc.whileAlive(server.request(0))
    t.ok(proc.alive(), 'the child is running, its request unanswered')
    proc.child.stdin.end('close\n')
    const result = await proc.exited('the child to exit after close() while connecting')
    checkExit(t, result)
    t.same(result.report.log, [], 'no event at all, not even error')
    t.equal(result.report.readyStateBeforeClose, CONNECTING)
    t.equal(result.report.readyStateAfterClose, CLOSED)
    await within(request.socketClosed, 'the server to see the connection closed')
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
  const result = await proc.exited('the child to exit after close()')
  checkExit(t, result)
  t.same(result.report.log, [['open', OPEN], ['message', 'one']], 'the redirect was followed')
  t.equal(result.report.readyStateAfterClose, CLOSED)
  t.equal(server.requests.length, 1, 'one request to /events')
  await within(server.requests[0].socketClosed, 'the server to see the connection closed')
  t.pass('close() closed the redirected request\'s connection')
})
