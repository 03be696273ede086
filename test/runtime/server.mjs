// The loopback servers of the runtime suite (test/runtime/suite.mjs), run by the Node harness
// (test/runtime/run.mjs) while each runtime connects to them. Two origins on 127.0.0.1: `base` serves the
// browser pages and bundles and the event streams, `cross` the same streams to another origin, with CORS
// headers unless a request asks for none (`nocors=1`).
//
// Streams: /sse/<route>?key=<key>. Every request is recorded under its key, so that the suite can ask what
// the server saw: GET <base>/control/requests?key=<key>&wait=<n> answers once n requests (not counting
// CORS preflights) have come, GET <base>/control/closed?key=<key> once the `hold` stream's connection has
// closed. Both answer within WAIT_MS whatever happens, so that a client that waits on them is bounded.
// GET <base>/control/cut?key=<key> drops the connection of the `cut` stream (or of the key's last `channel`
// subscriber).
//
// Most streams are written byte by byte, as the tests of a client need them. Two are written by this package's
// server side (whatwg-eventsource/server, lib/ of this checkout), for the suite's tests of serving with other
// clients (Chromium's and Deno's own EventSource): `writer`, an EventStreamWriter, and `channel`, a subscriber of
// the key's Channel, to which GET <base>/control/publish?key=<key>&data=<data>... publishes (with `cut=1`,
// after dropping the last subscriber's connection, so that its client misses those events and resumes).

import http from 'node:http'
import zlib from 'node:zlib'
import { EventStreamWriter, Channel } from '../../lib/entries/server.js'

const WAIT_MS = 5000
const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-store' }

// What the server keeps per key: its requests, preflights, and whether the `hold` connection closed.
class KeyState {
  requests = []
  preflights = []
  closed = false
  // The response of the `cut` route, until GET /control/cut drops its connection.
  held = null
  // The `channel` route's Channel, made by its first request.
  channel = null
  #waiters = new Set()

  changed () {
    for (const waiter of this.#waiters) waiter()
  }

  // Resolves once `ready()` is true, or after WAIT_MS (the caller then answers what it has).
  until (ready) {
    if (ready()) return Promise.resolve()
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer)
        this.#waiters.delete(check)
        resolve()
      }
      const check = () => { if (ready()) done() }
      const timer = setTimeout(done, WAIT_MS)
      this.#waiters.add(check)
    })
  }
}

function headerUtf8 (value) {
  // Node gives header values as latin1: a UTF-8 value (Last-Event-ID) is its bytes spelled that way.
  return value === undefined ? undefined : Buffer.from(value, 'latin1').toString('utf8')
}

function describeRequest (req, route, body) {
  return {
    route,
    method: req.method,
    headers: req.headers,
    lastEventId: headerUtf8(req.headers['last-event-id']),
    body: body.toString('utf8')
  }
}

// The event stream of each route. `n` counts the requests of this key to this route, from 1.
const routes = {
  basic (req, res) {
    res.writeHead(200, SSE_HEADERS)
    res.write(': hello\n\nid: 1\ndata: hello\n\n')
  },
  // The grammar in one stream, cut into chunks at awkward places: a BOM in two pieces, CRLF and CR line
  // ends, a comment, an unknown field, an event without data (not dispatched), a character cut in two.
  types (req, res) {
    res.writeHead(200, SSE_HEADERS)
    const cafe = Buffer.from('data: café 😀\n\n')
    const cut = cafe.indexOf(0xa9) // the second byte of é
    for (const chunk of [
      Buffer.from([0xef, 0xbb]), Buffer.from([0xbf]),
      'data: first\n\n',
      'event: update\ndata: line 1\ndata: line 2\n\n',
      'data:no space\r\n\r\n',
      'id: 7\rdata: after CR\r\r',
      ': a comment\nunknown: field\nevent: nodata\n\n',
      cafe.subarray(0, cut), cafe.subarray(cut),
      'data\n\n',
      'event: done\ndata: end\n\n'
    ]) res.write(chunk)
  },
  reconnect (req, res, n) {
    res.writeHead(200, SSE_HEADERS)
    if (n === 1) res.end('retry: 1\nid: é1\ndata: first\n\n')
    else res.write('data: second\n\n')
  },
  retry (req, res, n) {
    res.writeHead(200, SSE_HEADERS)
    if (n === 1) res.end('retry: 40\ndata: a\n\n')
    else res.write('data: b\n\n')
  },
  // One event that says what the request was; `end=1` ends the stream after it (the client reconnects).
  echo (req, res, n, { body, query }) {
    res.writeHead(200, SSE_HEADERS)
    const seen = {
      method: req.method,
      body: body.toString('utf8'),
      contentType: req.headers['content-type'],
      authorization: req.headers.authorization,
      custom: req.headers['x-custom'],
      lastEventId: headerUtf8(req.headers['last-event-id']),
      offset: query.get('offset') ?? undefined
    }
    const event = `retry: 1\nid: ${n}\ndata: ${JSON.stringify(seen)}\n\n`
    if (query.get('end') === '1') res.end(event)
    else res.write(event)
  },
  // Three events in one write; the client closes the source at the first.
  hold (req, res, n, { state }) {
    res.on('close', () => {
      state.closed = true
      state.changed()
    })
    res.writeHead(200, SSE_HEADERS)
    res.write('retry: 1\ndata: one\n\ndata: two\n\ndata: three\n\n')
  },
  several (req, res) {
    res.writeHead(200, SSE_HEADERS)
    res.write('data: 1\n\ndata: 2\n\ndata: 3\n\n')
  },
  status (req, res, n, { query }) {
    res.writeHead(Number(query.get('code')), { 'content-type': 'text/plain' })
    res.end('not an event stream')
  },
  type (req, res) {
    res.writeHead(200, { 'content-type': 'text/plain' })
    res.end('data: not for you\n\n')
  },
  // The connection drops in the middle of the (chunked) body, a network error, once the client has said
  // it has the event (GET /control/cut): cut at once, a browser may fail the request before it shows
  // the body's first bytes.
  cut (req, res, n, { state }) {
    state.held = res
    res.writeHead(200, SSE_HEADERS)
    res.write('retry: 60000\ndata: a\n\n')
  },
  end (req, res) {
    res.writeHead(200, SSE_HEADERS)
    res.end('retry: 60000\ndata: a\n\n')
  },
  // A head, then nothing (idleTimeout); no head at all (connectTimeout).
  silent (req, res) {
    res.writeHead(200, SSE_HEADERS)
    res.flushHeaders()
  },
  nohead () {},
  gzip (req, res) {
    const gzip = /\bgzip\b/.test(req.headers['accept-encoding'] ?? '')
    res.writeHead(200, { ...SSE_HEADERS, ...(gzip ? { 'content-encoding': 'gzip' } : {}) })
    const body = 'data: zipped\n\n'
    res.write(gzip ? zlib.gzipSync(body) : body)
  },
  // Written by an EventStreamWriter: values a template would turn into fields of their own, line ends of every
  // kind, a named event and ids; it stays open.
  writer (req, res) {
    const writer = new EventStreamWriter(res, { retry: 60000, headers: { 'x-served-by': 'EventStreamWriter' } })
    writer.send([
      { id: 'w1', data: 'hello' },
      { id: 'w2', event: 'note', data: 'Ada\nevent: admin' },
      { id: 'w3', data: 'a\revent: evil\rb', comment: 'not an event' },
      { id: 'w4', data: ' one\r\ntwo\rthree\n' },
      { id: 'é 5', event: 'done', data: 'café 😀' }
    ])
  },
  // A subscriber of the key's Channel; clients reconnect after 50 ms and resume from their Last-Event-ID.
  channel (req, res, n, { state }) {
    state.channel ??= new Channel({ retry: 50 })
    state.held = res
    state.channel.subscribe(res)
  },
  redirect (req, res, n, { key }) {
    res.writeHead(302, { location: `/sse/basic?key=${encodeURIComponent(key)}` })
    res.end()
  },
  // A redirect to the other origin's echo.
  away (req, res, n, { key, cross }) {
    res.writeHead(302, { location: `${cross}/sse/echo?key=${encodeURIComponent(key)}` })
    res.end()
  }
}

/**
 * @param {{ assets: Map<string, { type: string, body: string | Uint8Array }> }} options the pages and
 *   bundles `base` serves, by path
 * @returns {Promise<{ base: string, cross: string, close: () => Promise<void> }>}
 */
export async function startServers ({ assets }) {
  const states = new Map()
  const stateOf = (key) => {
    let state = states.get(key)
    if (state === undefined) states.set(key, state = new KeyState())
    return state
  }
  const counts = new Map()

  async function control (url, res) {
    const state = stateOf(url.searchParams.get('key'))
    if (url.pathname === '/control/requests') {
      const wait = Number(url.searchParams.get('wait') ?? '0')
      await state.until(() => state.requests.length >= wait)
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ requests: state.requests, preflights: state.preflights }))
    } else if (url.pathname === '/control/cut') {
      state.held?.socket.destroy()
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ cut: state.held !== null }))
    } else if (url.pathname === '/control/publish') {
      state.channel ??= new Channel({ retry: 50 })
      if (url.searchParams.get('cut') === '1') state.held?.socket.destroy()
      const ids = url.searchParams.getAll('data').map((data) => state.channel.publish({ data }))
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ ids }))
    } else if (url.pathname === '/control/closed') {
      await state.until(() => state.closed)
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ closed: state.closed }))
    } else {
      res.writeHead(404).end()
    }
  }

  function handler (cors) {
    return async (req, res) => {
      const url = new URL(req.url, 'http://127.0.0.1')
      if (!cors && assets.has(url.pathname)) {
        const { type, body } = assets.get(url.pathname)
        res.writeHead(200, { 'content-type': type, 'cache-control': 'no-store' })
        res.end(body)
        return
      }
      if (!cors && url.pathname.startsWith('/control/')) {
        await control(url, res)
        return
      }
      const route = url.pathname.startsWith('/sse/') ? url.pathname.slice(5) : ''
      if (!Object.hasOwn(routes, route)) {
        res.writeHead(404).end()
        return
      }
      const key = url.searchParams.get('key') ?? ''
      const state = stateOf(key)
      if (cors && url.searchParams.get('nocors') !== '1') {
        res.setHeader('access-control-allow-origin', req.headers.origin ?? '*')
        res.setHeader('vary', 'origin')
        if (req.method === 'OPTIONS') {
          state.preflights.push(describeRequest(req, route, Buffer.alloc(0)))
          res.writeHead(204, {
            'access-control-allow-methods': req.headers['access-control-request-method'] ?? 'GET',
            'access-control-allow-headers': req.headers['access-control-request-headers'] ?? '',
            'access-control-max-age': '0'
          })
          res.end()
          return
        }
      }
      const chunks = []
      for await (const chunk of req) chunks.push(chunk)
      const body = Buffer.concat(chunks)
      const countKey = `${key} ${route}`
      const n = (counts.get(countKey) ?? 0) + 1
      counts.set(countKey, n)
      state.requests.push(describeRequest(req, route, body))
      state.changed()
      routes[route](req, res, n, { body, query: url.searchParams, state, key, cross: origins[1] })
    }
  }

  const servers = [http.createServer(handler(false)), http.createServer(handler(true))]
  const origins = []
  for (const server of servers) {
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
    origins.push(`http://127.0.0.1:${server.address().port}`)
  }
  return {
    base: origins[0],
    cross: origins[1],
    async close () {
      for (const state of states.values()) state.channel?.close()
      for (const server of servers) {
        server.closeAllConnections()
        await new Promise((resolve) => server.close(resolve))
      }
    }
  }
}
