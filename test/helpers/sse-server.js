'use strict'

// Real node:http servers for the EventSource tests, plus an event recorder. Nothing here mocks
// HTTP: every test talks to a server on 127.0.0.1, port 0, over real sockets. Every wait is bounded
// (TIMEOUT) and resolves on an event, never on the passage of time.

const http = require('node:http')
const { once } = require('node:events')
const { EventSource } = require('../../')

const TIMEOUT = 5000
const SSE_HEADERS = { 'content-type': 'text/event-stream' }

/**
 * Rejects when `promise` has not settled within `ms`.
 * @template T
 * @param {Promise<T>} promise
 * @param {() => string} what describes what was waited for, for the failure message
 * @param {number} [ms]
 * @returns {Promise<T>}
 */
function bounded (promise, what, ms = TIMEOUT) {
  const signal = AbortSignal.timeout(ms)
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(new Error(`timed out after ${ms} ms waiting for ${what()}`))
    signal.addEventListener('abort', onAbort, { once: true })
    promise.then((value) => {
      signal.removeEventListener('abort', onAbort)
      resolve(value)
    }, (err) => {
      signal.removeEventListener('abort', onAbort)
      reject(err)
    })
  })
}

/** events.once with a bounded wait. */
function waitEvent (target, type, ms = TIMEOUT) {
  return once(target, type, { signal: AbortSignal.timeout(ms) })
}

/**
 * Starts a server on port 0 and closes it, and every EventSource made through it, at teardown.
 * `handler(req, res, index)` gets the 0-based index of the request among all the server has seen.
 * @param {import('tap').Test} t
 * @param {(req: http.IncomingMessage, res: http.ServerResponse, index: number) => void} handler
 * @param {{ host?: string }} [options] the host name used in `url`/`origin` (the socket is always 127.0.0.1)
 */
async function createServer (t, handler, { host = '127.0.0.1' } = {}) {
  const requests = []
  const waiters = []
  const server = http.createServer((req, res) => {
    const index = requests.length
    requests.push(req)
    for (let i = waiters.length - 1; i >= 0; i--) {
      if (waiters[i].index === index) waiters.splice(i, 1)[0].resolve(req)
    }
    handler(req, res, index)
  })
  server.listen(0, '127.0.0.1')
  await waitEvent(server, 'listening')
  const { port } = server.address()
  const origin = `http://${host}:${port}`
  const sources = []

  t.teardown(() => {
    for (const es of sources) es.close()
    server.closeAllConnections()
    return new Promise((resolve) => server.close(resolve))
  })

  return {
    server,
    port,
    origin,
    /** Requests in arrival order. */
    requests,
    /** The URL for `path` on this server. */
    url (path = '/') {
      return `${origin}${path}`
    },
    /** Resolves with the request of the given index (0-based) once it has arrived. */
    request (index) {
      if (index < requests.length) return Promise.resolve(requests[index])
      return bounded(new Promise((resolve) => waiters.push({ index, resolve })),
        () => `request #${index} (the server has seen ${requests.length})`)
    },
    /** An EventSource on this server (a path) or any URL, closed at teardown. */
    eventSource (pathOrUrl = '/', init = { reconnectionTime: 10 }) {
      const es = new EventSource(/^[a-z]+:/i.test(pathOrUrl) ? pathOrUrl : `${origin}${pathOrUrl}`, init)
      sources.push(es)
      return es
    },
    /** Registers an EventSource made elsewhere for closing at teardown. */
    track (es) {
      sources.push(es)
      return es
    }
  }
}

/** Answers with an event stream: status 200, text/event-stream, and `body` if given (then ends). */
function sse (res, body, { end = true, headers = {} } = {}) {
  res.writeHead(200, { ...SSE_HEADERS, ...headers })
  if (body === undefined) {
    // Send the head now, so the client announces the connection before any event arrives.
    res.flushHeaders()
    return
  }
  if (end) res.end(body)
  else res.write(body)
}

/**
 * Records what an EventTarget dispatches: one entry per event with the readyState seen at
 * dispatch time. `wait(type, n)` resolves once n events of that type have arrived.
 */
class Recorder {
  constructor (target, types = ['open', 'message', 'error']) {
    this.target = target
    this.events = []
    this.waiters = []
    for (const type of types) target.addEventListener(type, (event) => this.push(event))
  }

  push (event) {
    this.events.push({
      type: event.type,
      readyState: this.target.readyState,
      data: event.data,
      lastEventId: event.lastEventId,
      origin: event.origin,
      event
    })
    for (let i = this.waiters.length - 1; i >= 0; i--) {
      const waiter = this.waiters[i]
      if (waiter.types === undefined ? this.count(waiter.type) >= waiter.n : waiter.types.includes(event.type)) {
        this.waiters.splice(i, 1)
        waiter.resolve(this.events[this.events.length - 1])
      }
    }
  }

  count (type) {
    let n = 0
    for (const e of this.events) if (e.type === type) n++
    return n
  }

  /** The recorded event types, in order. */
  get types () {
    return this.events.map((e) => e.type)
  }

  /** The data of the recorded events of a type. */
  data (type = 'message') {
    return this.events.filter((e) => e.type === type).map((e) => e.data)
  }

  /**
   * Resolves with the first event, already recorded or still to come, whose type is one of `types`:
   * a test expecting `open` but getting `error` fails at once instead of timing out.
   */
  first (types, ms = TIMEOUT) {
    const found = this.events.find((e) => types.includes(e.type))
    if (found !== undefined) return Promise.resolve(found)
    return bounded(new Promise((resolve) => this.waiters.push({ types, resolve })),
      () => `one of ${types}; recorded so far: ${JSON.stringify(this.types)}`, ms)
  }

  /** Resolves with the n-th (1-based) event of `type` once it has been dispatched. */
  wait (type, n = 1, ms = TIMEOUT) {
    if (this.count(type) >= n) return Promise.resolve(this.events.filter((e) => e.type === type)[n - 1])
    return bounded(new Promise((resolve) => this.waiters.push({ type, n, resolve })),
      () => `${type} #${n}; recorded so far: ${JSON.stringify(this.types)}`, ms)
  }
}

/** A promise with its resolve function, for signalling between a server handler and a test. */
function deferred () {
  let resolve
  const promise = new Promise((_resolve) => { resolve = _resolve })
  return { promise, resolve }
}

/** Resolves after the current macrotask and everything it queued (microtasks, nextTicks). */
function macrotask () {
  return new Promise((resolve) => setImmediate(resolve))
}

/**
 * Completes one full reconnection cycle of a fresh EventSource on a server of its own: open, body end,
 * error, wait `reconnectionTime`, second request. An EventSource under test that was due to reconnect
 * after the same (or a shorter) time, and started earlier, would have sent its next request by then:
 * this bounds "no further request" by an event sequence instead of a sleep.
 */
async function reconnectCycle (t, reconnectionTime = 10) {
  const control = await createServer(t, (req, res) => sse(res, ':\n\n'))
  const es = control.eventSource('/', { reconnectionTime })
  await control.request(1)
  es.close()
}

module.exports = {
  TIMEOUT,
  SSE_HEADERS,
  bounded,
  waitEvent,
  createServer,
  sse,
  Recorder,
  deferred,
  macrotask,
  reconnectCycle
}
