'use strict'

// Shared pieces of the reliability tests (test/reliability-*.test.js, test/soak/*.js): loopback
// servers that close at teardown, bounded waits, an event recorder, a seeded PRNG, a host-name lookup
// that never leaves the machine, and a dispatcher wrapper that counts the body bytes the client took
// in. No HTTP is mocked: every server is a real node:http, node:https or node:net server on 127.0.0.1,
// port 0, and every wait resolves on an event, never on the passage of time.

const fs = require('node:fs')
const path = require('node:path')
const { once } = require('node:events')

const TIMEOUT = 10_000
const SSE_HEAD = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' }

/**
 * Rejects when `promise` has not settled within `ms`.
 * @template T
 * @param {Promise<T>} promise
 * @param {string | (() => string)} what
 * @param {number} [ms]
 * @returns {Promise<T>}
 */
function within (promise, what, ms = TIMEOUT) {
  let timer
  const timeout = new Promise((resolve, reject) => {
    timer = setTimeout(() => {
      reject(new Error(`timed out after ${ms} ms waiting for ${typeof what === 'function' ? what() : what}`))
    }, ms)
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}

/** A promise and the functions that settle it. */
function deferred () {
  let resolve, reject
  const promise = new Promise((_resolve, _reject) => { resolve = _resolve; reject = _reject })
  return { promise, resolve, reject }
}

/**
 * Listens on 127.0.0.1, port 0, and closes the server and all its connections at teardown.
 * Records every connection so that tests can count them.
 * @param {import('tap').Test | null} t null: the caller closes it (`close()` on the result)
 * @param {import('node:net').Server} server an http, https or net server
 */
async function listen (t, server) {
  const sockets = new Set()
  let connections = 0
  server.on('connection', (socket) => {
    connections++
    sockets.add(socket)
    socket.once('close', () => sockets.delete(socket))
  })
  server.on('secureConnection', (socket) => {
    sockets.add(socket)
    socket.once('close', () => sockets.delete(socket))
  })
  server.listen(0, '127.0.0.1')
  await within(once(server, 'listening'), 'the server to listen')
  const close = () => {
    for (const socket of sockets) socket.destroy()
    return new Promise((resolve) => server.close(() => resolve()))
  }
  if (t !== null) t.teardown(close)
  return {
    port: server.address().port,
    close,
    get connections () { return connections },
    get openSockets () { return sockets.size }
  }
}

/**
 * An http (or, with `tls`, https) server on 127.0.0.1 that records its requests and closes at
 * teardown. `handler(req, res, index)` gets the 0-based index of the request.
 * @param {import('tap').Test} t
 * @param {(req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse, index: number) => void} handler
 * @param {{ tls?: object, host?: string }} [options] `host`: the name used in url() (default 127.0.0.1)
 */
async function httpServer (t, handler, { tls, host = '127.0.0.1' } = {}) {
  const requests = []
  const waiters = []
  const onRequest = (req, res) => {
    const index = requests.length
    requests.push(req)
    for (let i = waiters.length - 1; i >= 0; i--) {
      if (waiters[i].index <= index) waiters.splice(i, 1)[0].resolve(req)
    }
    handler(req, res, index)
  }
  const server = tls === undefined
    ? require('node:http').createServer(onRequest)
    : require('node:https').createServer(tls, onRequest)
  const srv = await listen(t, server)
  const scheme = tls === undefined ? 'http' : 'https'
  return {
    server,
    port: srv.port,
    origin: `${scheme}://${host}:${srv.port}`,
    requests,
    get connections () { return srv.connections },
    url (pathname = '/') {
      return `${scheme}://${host}:${srv.port}${pathname}`
    },
    /** Resolves with the request of the given 0-based index once it has arrived. */
    request (index, ms = TIMEOUT) {
      if (index < requests.length) return Promise.resolve(requests[index])
      const waiter = deferred()
      waiters.push({ index, resolve: waiter.resolve })
      return within(waiter.promise, () => `request #${index} (the server has seen ${requests.length})`, ms)
    }
  }
}

/**
 * Records what an EventSource dispatches, in order, with the readyState seen at dispatch time, and
 * resolves waits on event counts. Every wait is bounded.
 */
class Recorder {
  constructor (target, types = ['open', 'message', 'error']) {
    this.target = target
    this.events = []
    this.waiters = []
    for (const type of types) target.addEventListener(type, (event) => this.#push(event))
  }

  #push (event) {
    this.events.push({
      type: event.type,
      readyState: this.target.readyState,
      data: event.data,
      lastEventId: event.lastEventId,
      origin: event.origin,
      code: event.code,
      event
    })
    for (let i = this.waiters.length - 1; i >= 0; i--) {
      const waiter = this.waiters[i]
      if (this.count(waiter.type) >= waiter.n) {
        this.waiters.splice(i, 1)
        waiter.resolve(this.of(waiter.type)[waiter.n - 1])
      }
    }
  }

  count (type) {
    let n = 0
    for (const e of this.events) if (e.type === type) n++
    return n
  }

  of (type) {
    return this.events.filter((e) => e.type === type)
  }

  get types () {
    return this.events.map((e) => e.type)
  }

  data (type = 'message') {
    return this.of(type).map((e) => e.data)
  }

  /** Resolves with the n-th (1-based) event of `type`. */
  wait (type, n = 1, ms = TIMEOUT) {
    if (this.count(type) >= n) return Promise.resolve(this.of(type)[n - 1])
    const waiter = deferred()
    this.waiters.push({ type, n, resolve: waiter.resolve })
    return within(waiter.promise, () => `${type} #${n}; recorded so far: ${JSON.stringify(this.types)}`, ms)
  }
}

/**
 * mulberry32: a small, fast, seeded PRNG, so that a failing random run can be replayed from its seed.
 * @param {number} seed a 32-bit integer
 * @returns {{ next: () => number, int: (n: number) => number, pick: <T>(items: T[]) => T, chance: (p: number) => boolean }}
 */
function prng (seed) {
  let a = seed >>> 0
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0
    let x = a
    x = Math.imul(x ^ (x >>> 15), x | 1)
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61)
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296
  }
  return {
    next,
    /** An integer in [0, n). */
    int: (n) => Math.floor(next() * n),
    pick: (items) => items[Math.floor(next() * items.length)],
    chance: (p) => next() < p
  }
}

/**
 * A `lookup` for undici's `connect` options: the names in `hosts` resolve to 127.0.0.1, any other
 * name fails with ENOTFOUND, as getaddrinfo would for a name that does not exist. No query leaves
 * the machine. `calls` records every name looked up.
 * @param {string[]} hosts
 */
function loopbackLookup (hosts) {
  const calls = []
  const resolvable = new Set(hosts)
  function lookup (hostname, options, callback) {
    if (typeof options === 'function') {
      callback = options
      options = {}
    }
    calls.push(hostname)
    if (!resolvable.has(hostname)) {
      const err = new Error(`getaddrinfo ENOTFOUND ${hostname}`)
      err.code = 'ENOTFOUND'
      err.errno = -3008
      err.syscall = 'getaddrinfo'
      err.hostname = hostname
      process.nextTick(callback, err)
      return
    }
    if (options.all) process.nextTick(callback, null, [{ address: '127.0.0.1', family: 4 }])
    else process.nextTick(callback, null, '127.0.0.1', 4)
  }
  return { lookup, calls, resolvable }
}

/**
 * Wraps a dispatcher so that the response body bytes handed to the client are counted: what the
 * EventSource (and its parser) actually received, whatever the server managed to write into socket
 * buffers. It forwards undici's handler API (onRequestStart ... onResponseError) unchanged.
 * @param {import('undici').Dispatcher} inner
 */
function countingDispatcher (inner) {
  const counter = { bytes: 0, chunks: 0 }
  const dispatcher = {
    dispatch (options, handler) {
      return inner.dispatch(options, {
        onRequestStart: (controller, context) => handler.onRequestStart?.(controller, context),
        onRequestUpgrade: (...args) => handler.onRequestUpgrade?.(...args),
        onResponseStart: (controller, status, headers, statusText) =>
          handler.onResponseStart?.(controller, status, headers, statusText),
        onResponseData: (controller, chunk) => {
          counter.bytes += chunk.length
          counter.chunks++
          handler.onResponseData?.(controller, chunk)
        },
        onResponseEnd: (controller, trailers) => handler.onResponseEnd?.(controller, trailers),
        onResponseError: (controller, err) => handler.onResponseError?.(controller, err)
      })
    }
  }
  return { dispatcher, counter }
}

/** The self-signed certificate for 127.0.0.1 and localhost in test/fixtures/tls (valid until 2126). */
function tlsFixture () {
  const dir = path.join(__dirname, '..', 'fixtures', 'tls')
  return {
    key: fs.readFileSync(path.join(dir, 'key.pem')),
    cert: fs.readFileSync(path.join(dir, 'cert.pem'))
  }
}

/**
 * A full reconnection cycle of a control EventSource on a server of its own: open, end of body,
 * error, a wait of `reconnectionTime`, the second request. Any EventSource under test that would
 * have sent a request within `reconnectionTime` of the call has sent it by the time this resolves,
 * so "no further request" is bounded by an event sequence rather than a sleep.
 * @param {import('tap').Test} t
 * @param {number} reconnectionTime
 */
async function reconnectionCycle (t, reconnectionTime) {
  const { EventSource } = require('../..')
  const http = require('node:http')
  let requests = 0
  const second = deferred()
  const server = http.createServer((req, res) => {
    if (++requests === 2) second.resolve()
    res.writeHead(200, SSE_HEAD).end(':\n\n')
  })
  const srv = await listen(t, server)
  const es = new EventSource(`http://127.0.0.1:${srv.port}/`, { reconnectionTime })
  try {
    await within(second.promise, 'the control reconnection cycle', TIMEOUT + reconnectionTime)
  } finally {
    es.close()
  }
}

/** Writes a response head for an event stream and sends it at once. */
function sseHead (res, headers = {}) {
  res.writeHead(200, { ...SSE_HEAD, ...headers })
  res.flushHeaders()
}

module.exports = {
  TIMEOUT,
  SSE_HEAD,
  within,
  deferred,
  listen,
  httpServer,
  Recorder,
  prng,
  loopbackLookup,
  countingDispatcher,
  tlsFixture,
  reconnectionCycle,
  sseHead
}
