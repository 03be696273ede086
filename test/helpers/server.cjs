'use strict'

// Servers for the tests: real node:http and node:https servers (node:net for bytes node:http will not
// write) on 127.0.0.1, port 0, over real sockets; nothing here mocks HTTP. Each is closed, with every
// connection it accepted, at the teardown of the test that made it.

const http = require('node:http')
const https = require('node:https')
const http2 = require('node:http2')
const net = require('node:net')
const { once } = require('node:events')
const { bounded, TIMEOUT } = require('./wait.cjs')

const SSE_HEADERS = { 'content-type': 'text/event-stream' }

// What serve() makes for each protocol. http2 is a secure HTTP/2 server that also speaks HTTP/1.1 to
// clients that do not offer h2 (allowHTTP1); its compatibility API has the same (req, res) handler.
const FACTORIES = {
  http: (options, onRequest) => http.createServer(onRequest),
  https: (options, onRequest) => https.createServer(options.tls, onRequest),
  http2: (options, onRequest) => http2.createSecureServer({ ...options.tls, allowHTTP1: true, settings: options.http2.settings }, onRequest)
}

/**
 * Listens on 127.0.0.1, port 0, and counts and tracks the connections the server accepts; at teardown
 * destroys them and closes the server.
 * @param {import('tap').Test | null} t null: the caller closes it (close() on the result)
 * @param {net.Server} server an http, https or net server
 */
async function listen (t, server) {
  const sockets = new Set()
  let connections = 0
  const track = (socket) => {
    sockets.add(socket)
    socket.once('close', () => sockets.delete(socket))
  }
  server.on('connection', (socket) => {
    connections++
    track(socket)
  })
  // A TLS server's own socket for each connection: destroyed too, not left to the TCP socket under it.
  server.on('secureConnection', track)
  server.listen(0, '127.0.0.1')
  await bounded(once(server, 'listening'), 'the server to listen')
  const close = () => {
    for (const socket of sockets) socket.destroy()
    return new Promise((resolve) => server.close(() => resolve()))
  }
  if (t !== null) t.teardown(close)
  return {
    port: server.address().port,
    close,
    /** How many TCP connections the server has accepted. */
    get connections () { return connections },
    /** How many of them are still open. */
    get openSockets () { return sockets.size }
  }
}

/**
 * An http (or, with `tls`, https) server on 127.0.0.1 that records its requests. `handler(req, res,
 * index)` runs as each request arrives (`index`: 0-based, in arrival order); the request body is read
 * meanwhile and set as `req.body` (a Buffer) once it has ended.
 * @param {import('tap').Test} t closes the server and its connections at teardown
 * @param {(req: http.IncomingMessage & { body?: Buffer }, res: http.ServerResponse, index: number) => void} [handler]
 * @param {{ tls?: { key: string | Buffer, cert: string | Buffer }, host?: string,
 *   http2?: { settings?: import('node:http2').Settings } }} [options] `host`: the name used in url() and
 *   origin (the socket is always 127.0.0.1); `http2` (with `tls`): an HTTP/2 server with these SETTINGS,
 *   whose sessions are listed in `sessions` (open ones) as they come
 */
async function serve (t, handler = () => {}, { tls, host = '127.0.0.1', http2: h2 } = {}) {
  const requests = []
  let waiters = []
  const onRequest = (req, res) => {
    const index = requests.length
    requests.push(req)
    const chunks = []
    // A handler may set an encoding on the request: its chunks are then strings.
    req.on('data', (chunk) => chunks.push(typeof chunk === 'string' ? Buffer.from(chunk, req.readableEncoding) : chunk))
    const read = () => {
      if (req.body !== undefined) return
      req.body = Buffer.concat(chunks)
      waiters = waiters.filter((waiter) => {
        if (waiter.index !== index) return true
        waiter.resolve(req)
        return false
      })
    }
    // 'close' without 'end': the request was aborted; its body is what had arrived.
    req.once('end', read)
    req.once('close', read)
    handler(req, res, index)
  }
  const scheme = tls === undefined ? 'http' : 'https'
  const server = FACTORIES[h2 === undefined ? scheme : 'http2']({ tls, http2: h2 }, onRequest)
  // HTTP/2 sessions: every one the server accepted, and those still open.
  const sessions = []
  let openSessions = 0
  server.on('session', (session) => {
    sessions.push(session)
    openSessions++
    // A client that goes away mid-stream is what the fault tests do.
    session.on('error', () => {})
    session.once('close', () => openSessions--)
  })
  // A client that refuses the certificate makes the server see a TLS error; tests expect that.
  if (tls !== undefined) server.on('tlsClientError', () => {})
  const listening = await listen(t, server)
  const origin = `${scheme}://${host}:${listening.port}`
  return {
    server,
    port: listening.port,
    origin,
    /** Requests in arrival order. */
    requests,
    /** How many TCP connections the server has accepted. */
    get connections () { return listening.connections },
    /** HTTP/2 sessions in the order they came (http2 only). */
    sessions,
    /** How many HTTP/2 sessions are still open. */
    get openSessions () { return openSessions },
    /** The URL of `path` on this server. */
    url: (path = '/') => `${origin}${path}`,
    /** Resolves with request #index (0-based) once its body has been read. */
    request (index, ms = TIMEOUT) {
      if (requests[index]?.body !== undefined) return Promise.resolve(requests[index])
      return bounded(new Promise((resolve) => waiters.push({ index, resolve })),
        () => `request #${index} (the server has seen ${requests.length})`, ms)
    },
    /**
     * An EventSource on a path of this server (or on any URL), closed at teardown. The default init
     * reconnects after 10 ms, so that tests of reconnection do not wait the standard's 3 s.
     */
    eventSource (pathOrUrl = '/', init = { reconnectionTime: 10 }) {
      const url = /^[a-z][a-z0-9+.-]*:/i.test(pathOrUrl) ? pathOrUrl : `${origin}${pathOrUrl}`
      // Required here: the CLI tests use this module without loading the library.
      return require('./eventsource.cjs').open(t, url, init)
    }
  }
}

/**
 * Answers with an event stream: status 200, text/event-stream (plus `headers`). With a body, writes it,
 * and ends the response unless `end` is false; without one (or an empty one that is not to end), sends
 * the head at once and leaves the response open, so the client announces the connection before any
 * event arrives.
 * @param {http.ServerResponse} res
 * @param {string | Buffer} [body]
 * @param {{ end?: boolean, headers?: Record<string, string> }} [options]
 */
function sse (res, body, { end = true, headers = {} } = {}) {
  res.writeHead(200, { ...SSE_HEADERS, ...headers })
  if (body === undefined || (body.length === 0 && !end)) res.flushHeaders()
  else if (end) res.end(body)
  else res.write(body)
}

/**
 * A node:net server for responses node:http will not write (a status text with control characters,
 * bytes above 0x7F in a header value, a body ended by closing the connection): once a request head
 * has arrived, `respond(head, index, socket)` runs; what it returns, if anything, is written and the
 * connection ended. `heads` lists the request heads (latin1).
 * @param {import('tap').Test} t
 * @param {(head: string, index: number, socket: net.Socket) => Buffer | string | undefined} respond
 */
async function rawServer (t, respond) {
  const heads = []
  const server = net.createServer((socket) => {
    socket.on('error', () => {})
    let head = ''
    const onData = (chunk) => {
      head += chunk.toString('latin1')
      if (!head.includes('\r\n\r\n')) return
      socket.off('data', onData)
      heads.push(head)
      const bytes = respond(head, heads.length - 1, socket)
      if (bytes !== undefined) socket.end(bytes)
    }
    socket.on('data', onData)
  })
  const listening = await listen(t, server)
  const origin = `http://127.0.0.1:${listening.port}`
  return {
    port: listening.port,
    origin,
    heads,
    get connections () { return listening.connections },
    url: (path = '/') => `${origin}${path}`
  }
}

/** A port on 127.0.0.1 that nothing listens on (it was just released). */
async function closedPort () {
  const server = net.createServer()
  const listening = await listen(null, server)
  await listening.close()
  return listening.port
}

module.exports = { SSE_HEADERS, listen, serve, sse, rawServer, closedPort }
