'use strict'

// Servers and recorders for the extension tests (test/extension-*.test.js). Every server is a real
// node:http (or node:https) server on 127.0.0.1, port 0; every wait is bounded and ends on an event,
// never on the passage of time.

const http = require('node:http')
const https = require('node:https')
const { once } = require('node:events')
const { EventSource } = require('../../')

const TIMEOUT = 5000
const SSE = { 'content-type': 'text/event-stream' }

/**
 * Settles like `promise`, or rejects once `ms` have passed without it settling.
 * @template T
 * @param {Promise<T>} promise
 * @param {() => string} what for the failure message
 * @returns {Promise<T>}
 */
function bounded (promise, what, ms = TIMEOUT) {
  const signal = AbortSignal.timeout(ms)
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(new Error(`timed out after ${ms} ms waiting for ${what()}`))
    signal.addEventListener('abort', onAbort, { once: true })
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort))
  })
}

/**
 * A server whose handler sees each request after its body has been read, as `req.body` (a Buffer).
 * `handler(req, res, index)`; the server and its connections are closed at teardown.
 * @param {import('tap').Test} t
 * @param {(req: http.IncomingMessage & { body: Buffer }, res: http.ServerResponse, index: number) => void} handler
 * @param {{ tls?: { key: string | Buffer, cert: string | Buffer } }} [options]
 */
async function serve (t, handler, { tls } = {}) {
  const requests = []
  let waiters = []
  const onRequest = (req, res) => {
    const index = requests.length
    requests.push(req)
    const chunks = []
    req.on('data', (chunk) => chunks.push(chunk))
    req.on('end', () => {
      req.body = Buffer.concat(chunks)
      handler(req, res, index)
      waiters = waiters.filter((w) => {
        if (w.index !== index) return true
        w.resolve(req)
        return false
      })
    })
  }
  const server = tls ? https.createServer(tls, onRequest) : http.createServer(onRequest)
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const origin = `${tls ? 'https' : 'http'}://127.0.0.1:${server.address().port}`
  t.teardown(() => {
    server.closeAllConnections()
    return new Promise((resolve) => server.close(resolve))
  })
  return {
    server,
    origin,
    requests,
    url: (path = '/') => origin + path,
    /** Resolves with request #index (0-based) once its body has been read and its handler has run. */
    request (index) {
      if (requests[index]?.body !== undefined) return Promise.resolve(requests[index])
      return bounded(new Promise((resolve) => waiters.push({ index, resolve })),
        () => `request #${index}; the server has seen ${requests.length}`)
    }
  }
}

/** A port on 127.0.0.1 that nothing listens on (it was just released). */
async function closedPort () {
  const server = http.createServer()
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address()
  await new Promise((resolve) => server.close(resolve))
  return port
}

/** An EventSource closed at teardown. */
function open (t, url, init) {
  const es = new EventSource(url, init)
  t.teardown(() => es.close())
  return es
}

/**
 * Records the open, message and error events of an EventSource (and any other types given), with
 * the readyState at dispatch. `until(predicate)` waits, bounded, for the log to satisfy a predicate.
 */
function record (es, extraTypes = []) {
  const log = []
  let waiters = []
  for (const type of ['open', 'message', 'error', ...extraTypes]) {
    es.addEventListener(type, (event) => {
      log.push({ type, readyState: es.readyState, time: performance.now(), event })
      waiters = waiters.filter((w) => {
        if (!w.predicate(log)) return true
        w.resolve(log)
        return false
      })
    })
  }
  return {
    log,
    types: () => log.map((e) => e.type),
    of: (type) => log.filter((e) => e.type === type).map((e) => e.event),
    until (predicate, ms = TIMEOUT) {
      if (predicate(log)) return Promise.resolve(log)
      return bounded(new Promise((resolve) => waiters.push({ predicate, resolve })),
        () => `a condition on ${JSON.stringify(log.map((e) => e.type))}`, ms)
    },
    /** Waits for the n-th event of `type` and returns it. */
    async nth (type, n = 1, ms = TIMEOUT) {
      await this.until((l) => l.filter((e) => e.type === type).length >= n, ms)
      return this.of(type)[n - 1]
    }
  }
}

/**
 * Resolves once at least `ms` have passed, proven by an event sequence rather than a timer of the
 * test's own: a fresh EventSource with reconnectionTime `ms` on a server of its own opens, sees its
 * stream end, waits `ms` and sends its second request. A timer of the code under test that was armed
 * earlier with a delay of at most `ms` has fired by then.
 */
async function elapse (t, ms) {
  const control = await serve(t, (req, res) => res.writeHead(200, SSE).end(':\n\n'))
  const es = open(t, control.url(), { reconnectionTime: ms })
  await control.request(1)
  es.close()
}

/**
 * Fake timers for one test, uninstalled at its teardown: setTimeout, setInterval, Date, performance and
 * the rest, as a Jest or Sinon user fakes them, but not process.nextTick and queueMicrotask, nor
 * setImmediate: undici 7 resumes a keep-alive client from a setImmediate (client-h1.js), so with a fake
 * one the second request on a socket waits for the clock to move. Sockets stay real: a test waits for
 * their events (bounded() counts on AbortSignal.timeout, which fake timers leave alone) and then moves
 * the clock with clock.tick(ms), so every delay is asserted to the millisecond.
 * @param {import('tap').Test} t
 */
function fakeClock (t, { now = 0 } = {}) {
  const FakeTimers = require('@sinonjs/fake-timers')
  const clock = FakeTimers.install({ now, toNotFake: ['nextTick', 'queueMicrotask', 'setImmediate', 'clearImmediate'] })
  t.teardown(() => clock.uninstall())
  return clock
}

/**
 * An EventSource (closed at teardown) whose attempts are stamped with the fake clock's time since it
 * was made, by a headers function: EventSource calls it synchronously when it starts an attempt.
 * @returns {{ es: EventSource, rec: ReturnType<typeof record>, attempts: number[] }}
 */
function stamped (t, clock, url, init = {}) {
  const attempts = []
  const start = clock.now
  const es = open(t, url, { ...init, headers: () => { attempts.push(clock.now - start); return {} } })
  return { es, rec: record(es), attempts }
}

/**
 * Drives a stamped EventSource through `n` error events on the fake clock: after each, moves the
 * clock to one millisecond before the announced delay (no new attempt may have started yet) and then
 * to the delay (one must have). Stops at an error that does not reconnect. Returns the announced
 * delays, and what went wrong: attempts that came early or not at all.
 */
async function stepThrough (clock, { rec, attempts }, n) {
  const delays = []
  const wrong = []
  for (let i = 1; i <= n; i++) {
    const error = await rec.nth('error', i)
    if (!error.willReconnect) break
    delays.push(error.reconnectDelay)
    if (error.reconnectDelay > 0) {
      clock.tick(error.reconnectDelay - 1)
      if (attempts.length !== i) wrong.push(`attempt ${i + 1} came before ${error.reconnectDelay} ms`)
    }
    clock.tick(error.reconnectDelay === 0 ? 0 : 1)
    if (attempts.length !== i + 1) wrong.push(`attempt ${i + 1} did not come after ${error.reconnectDelay} ms`)
  }
  return { delays, wrong }
}

module.exports = { TIMEOUT, SSE, bounded, serve, closedPort, open, record, elapse, fakeClock, stamped, stepThrough }
