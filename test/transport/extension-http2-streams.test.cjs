'use strict'

// init.http2, one stream at a time (lib/transport/http2-sessions.js drives node:http2 itself): what a
// request carries over h2, streams that end before their response, a graceful GOAWAY, a connection that
// never completes, a source closed while its session connects, and what an idle stream keeps.
// Sessions shared, limits, fallback and faults: test/transport/extension-http2.test.cjs,
// test/reliability/reliability-http2.test.cjs.

const t = require('tap')
const net = require('node:net')
const dc = require('node:diagnostics_channel')
const { constants: { NGHTTP2_CANCEL, NGHTTP2_NO_ERROR } } = require('node:http2')
const { serve, sse, open, record, bounded, deferred, tlsFixture, listen } = require('../helpers/index.cjs')

const { key, cert } = tlsFixture()
const tls = { key, cert }

t.setTimeout(60_000)

// What fetch and the Dispatcher transport add to a request: not what this file compares.
const CONNECTION_HEADERS = new Set(['host', 'connection'])

function requestHeaders (req) {
  const headers = {}
  for (const [name, value] of Object.entries(req.headers)) {
    if (!name.startsWith(':') && !CONNECTION_HEADERS.has(name)) headers[name] = value
  }
  return headers
}

t.test('a request over h2 carries what it carries over HTTP/1.1: method, headers, body', async (t) => {
  const handler = (req, res) => sse(res, 'id: 7\ndata: x\n\n', { end: false })
  const h2 = await serve(t, handler, { tls, http2: {} })
  const h1 = await serve(t, handler, { tls })
  const init = {
    method: 'POST',
    body: '{"q":1}',
    headers: { authorization: 'Bearer t', 'x-trace': 'a' },
    lastEventId: 'L1',
    reconnectionTime: 0
  }
  const { Agent } = require('undici')
  const agent = new Agent({ connect: { ca: cert } })
  t.teardown(() => agent.close())
  const viaH2 = record(open(t, h2.url('/e'), { ...init, http2: { connect: { ca: cert } } }))
  const viaH1 = record(open(t, h1.url('/e'), { ...init, dispatcher: agent }))
  await bounded(Promise.all([viaH2.wait('message'), viaH1.wait('message')]), 'a message each')
  const [overH2, overH1] = await Promise.all([h2.request(0), h1.request(0)])
  t.equal(overH2.httpVersion, '2.0')
  t.equal(overH2.method, 'POST')
  t.equal(overH2.headers[':authority'], `127.0.0.1:${h2.port}`)
  t.equal(overH2.body.toString(), '{"q":1}')
  t.equal(overH2.headers['content-length'], '7')
  t.same(requestHeaders(overH2), requestHeaders(overH1), 'the same headers as over HTTP/1.1')
  t.equal(overH2.headers['last-event-id'], 'L1')
})

t.test('response headers over h2 are those over HTTP/1.1 (repeated ones joined)', async (t) => {
  const handler = (req, res) => {
    res.setHeader('set-cookie', ['a=1', 'b=2'])
    res.setHeader('x-one', 'v')
    sse(res, 'data: x\n\n', { end: false })
  }
  const h2 = await serve(t, handler, { tls, http2: {} })
  const h1 = await serve(t, handler, { tls })
  const opened = new Map()
  const onOpen = ({ url, headers }) => opened.set(new URL(url).port, headers)
  dc.subscribe('whatwg-eventsource:open', onOpen)
  t.teardown(() => dc.unsubscribe('whatwg-eventsource:open', onOpen))
  const { Agent } = require('undici')
  const agent = new Agent({ connect: { ca: cert } })
  t.teardown(() => agent.close())
  await bounded(Promise.all([
    record(open(t, h2.url('/'), { http2: { connect: { ca: cert } } })).wait('message'),
    record(open(t, h1.url('/'), { dispatcher: agent })).wait('message')
  ]), 'a message each')
  const overH2 = opened.get(String(h2.port))
  t.equal(overH2['set-cookie'], 'a=1, b=2')
  t.equal(overH2['x-one'], 'v')
  for (const name of ['set-cookie', 'x-one', 'content-type']) t.equal(overH2[name], opened.get(String(h1.port))[name], name)
})

t.test('a host name is the TLS server name', async (t) => {
  const server = await serve(t, (req, res) => sse(res, `data: ${req.headers[':authority']}\n\n`, { end: false }), { tls, http2: {} })
  const rec = record(open(t, `https://localhost:${server.port}/`, { http2: { connect: { ca: cert } } }))
  await rec.wait('message')
  t.same(rec.data('message'), [`localhost:${server.port}`], "the certificate's name was checked, and is the authority")
})

t.test('a stream reset before its response head: that source reconnects, the others go on', async (t) => {
  let first = true
  const server = await serve(t, (req, res) => {
    if (req.url === '/reset' && first) {
      first = false
      req.stream.close(NGHTTP2_CANCEL)
      return
    }
    sse(res, `data: ${req.url}\n\n`, { end: false })
  }, { tls, http2: {} })
  const http2 = { connect: { ca: cert } }
  const other = record(open(t, server.url('/other'), { http2, reconnectionTime: 0 }))
  await other.wait('message')
  const reset = record(open(t, server.url('/reset'), { http2, reconnectionTime: 0 }))
  const { event } = await reset.wait('error')
  t.equal(event.code, 'ERR_EVENTSOURCE_NETWORK')
  t.match(event.message, /HTTP\/2: stream closed before the response was complete/)
  await reset.wait('message')
  t.same(reset.data('message'), ['/reset'], 'then it reconnected')
  t.equal(other.count('error'), 0, 'the other source had no error')
  t.equal(server.sessions.length, 1, 'all on one session')
})

t.test('a body read to its end over h2 is the end of the stream, not a network error', async (t) => {
  const server = await serve(t, (req, res) => sse(res, 'id: 1\ndata: x\n\n'), { tls, http2: {} })
  const http2 = { connect: { ca: cert } }
  const reconnecting = record(open(t, server.url('/'), { http2, reconnectionTime: 60_000 }))
  const { event } = await reconnecting.wait('error')
  t.same(reconnecting.types, ['open', 'message', 'error'])
  t.equal(event.code, 'ERR_EVENTSOURCE_STREAM_ENDED')
  const ending = open(t, server.url('/'), { http2, closeOnEnd: true })
  const rec = record(ending, ['open', 'message', 'error', 'end'])
  await rec.wait('end')
  t.same(rec.types, ['open', 'message', 'end'], 'closeOnEnd: an end event')
  t.equal(ending.readyState, ending.CLOSED)
})

t.test('a graceful GOAWAY: the streams open go on, a new source takes a new session', async (t) => {
  const responses = []
  const server = await serve(t, (req, res) => {
    responses.push(res)
    sse(res, 'data: 1\n\n', { end: false })
  }, { tls, http2: {} })
  const http2 = { connect: { ca: cert } }
  const sources = [1, 2].map(() => record(open(t, server.url('/e'), { http2 })))
  await bounded(Promise.all(sources.map((rec) => rec.wait('message'))), 'the first messages')
  const [session] = server.sessions
  session.goaway(NGHTTP2_NO_ERROR)
  // Frames arrive in order: once these events have, so has the GOAWAY.
  for (const res of responses) res.write('data: 2\n\n')
  await bounded(Promise.all(sources.map((rec) => rec.wait('message', 2))), 'more on the old session')
  const late = record(open(t, server.url('/late'), { http2 }))
  await late.wait('message')
  t.same(late.types, ['open', 'message'], 'the new source had no error')
  t.equal(server.sessions.length, 2, 'the new source on a new session')
  for (const res of responses.slice(0, 2)) res.write('data: 3\n\n')
  await bounded(Promise.all(sources.map((rec) => rec.wait('message', 3))), 'still more on the old session')
  t.same(sources.map((rec) => rec.types), [1, 2].map(() => ['open', 'message', 'message', 'message']), 'no error')
})

t.test('connect.timeout: a connection that never completes is a network error', async (t) => {
  // Accepts TCP connections and never answers the TLS handshake.
  const sockets = []
  const silent = net.createServer((socket) => sockets.push(socket))
  t.teardown(() => { for (const socket of sockets) socket.destroy() })
  const { port } = await listen(t, silent)
  const rec = record(open(t, `https://127.0.0.1:${port}/`, { http2: { connect: { ca: cert, timeout: 50 } }, reconnectionTime: 60_000 }))
  const { event } = await rec.wait('error')
  t.equal(event.code, 'ERR_EVENTSOURCE_NETWORK')
  t.equal(event.cause.code, 'UND_ERR_CONNECT_TIMEOUT')
  t.match(event.message, /Connect Timeout Error \(attempted address: 127\.0\.0\.1:\d+, timeout: 50ms\)/)
})

t.test('sources closed while their session connects: no stream, and the connection goes', async (t) => {
  const closed = deferred()
  const accepted = deferred()
  const silent = net.createServer((socket) => {
    socket.once('close', closed.resolve)
    accepted.resolve()
  })
  const { port } = await listen(t, silent)
  const sources = [1, 2, 3].map(() => open(t, `https://127.0.0.1:${port}/`, { http2: { connect: { ca: cert } } }))
  await bounded(accepted.promise, 'the connection')
  for (const es of sources) es.close()
  await bounded(closed.promise, 'the connection to close')
  t.pass('closed')
})

// Node 22 and later publish their client streams (Node 20 does not: the test is skipped there).
t.test('an idle stream does not keep its request headers', async (t) => {
  const streams = []
  const onStream = ({ stream }) => streams.push(stream)
  dc.subscribe('http2.client.stream.created', onStream)
  t.teardown(() => dc.unsubscribe('http2.client.stream.created', onStream))
  const server = await serve(t, (req, res) => sse(res, 'data: x\n\n', { end: false }), { tls, http2: {} })
  const rec = record(open(t, server.url('/'), { http2: { connect: { ca: cert } } }))
  await rec.wait('message')
  if (streams.length === 0) {
    t.skip(`this Node (${process.version}) does not publish its client streams`)
    return
  }
  t.equal(streams.length, 1)
  t.equal(streams[0].sentHeaders, null, "node:http2's copy of the request headers is dropped")
})

// A TCP server that holds each connection it accepts until release() relays them all to `targetPort`.
async function holdConnections (t) {
  const held = []
  const accepted = deferred()
  const server = net.createServer((client) => {
    held.push(client)
    client.pause()
    accepted.resolve()
  })
  t.teardown(() => { for (const client of held) client.destroy() })
  const { port } = await listen(t, server)
  const release = (targetPort) => {
    for (const client of held) {
      const upstream = net.connect(targetPort, '127.0.0.1')
      upstream.on('error', () => {})
      client.on('error', () => {})
      client.pipe(upstream)
      upstream.pipe(client)
      client.resume()
      t.teardown(() => upstream.destroy())
    }
  }
  return { port, held, accepted: accepted.promise, release }
}

t.test('sources closed while waiting for the first session: only the others are sent', async (t) => {
  const server = await serve(t, (req, res) => sse(res, `data: ${req.url}\n\n`, { end: false }), { tls, http2: {} })
  const gate = await holdConnections(t)
  const http2 = { connect: { ca: cert } }
  const sources = ['/a', '/b', '/c', '/d'].map((p) => record(open(t, `https://127.0.0.1:${gate.port}${p}`, { http2 })))
  await bounded(gate.accepted, 'the connection')
  // The first request waits for the session, the others in the queue (a session is expected to take them).
  sources[1].target.close()
  sources[2].target.close()
  gate.release(server.port)
  await bounded(Promise.all([sources[0].wait('message'), sources[3].wait('message')]), 'the messages of the sources still open')
  t.same(server.requests.map((req) => req.url).sort(), ['/a', '/d'], 'the closed ones sent nothing')
  t.equal(gate.held.length, 1, 'one connection')
})

// The same, with a source still waiting in front of the closed ones: they are not at the head of the
// queue when they close, so they stay in it until the session takes the one in front, then go.
t.test('sources closed behind one still waiting: the session skips them', async (t) => {
  const server = await serve(t, (req, res) => sse(res, `data: ${req.url}\n\n`, { end: false }), { tls, http2: {} })
  const gate = await holdConnections(t)
  const http2 = { connect: { ca: cert } }
  const sources = ['/a', '/b', '/c', '/d', '/e'].map((p) => record(open(t, `https://127.0.0.1:${gate.port}${p}`, { http2 })))
  await bounded(gate.accepted, 'the connection')
  // '/a' waits for the session; '/b' to '/e' in the queue, '/b' in front.
  sources[2].target.close()
  sources[3].target.close()
  gate.release(server.port)
  const stillOpen = [sources[0], sources[1], sources[4]]
  await bounded(Promise.all(stillOpen.map((rec) => rec.wait('message'))), 'the messages of the sources still open')
  t.same(server.requests.map((req) => req.url).sort(), ['/a', '/b', '/e'], 'the closed ones sent nothing')
  t.same(stillOpen.map((rec) => rec.target.readyState), [1, 1, 1])
  t.equal(gate.held.length, 1, 'one connection')
})

t.test('a server that chose HTTP/1.1 once: later sources go straight to HTTP/1.1', async (t) => {
  const server = await serve(t, (req, res) => sse(res, `data: ${req.httpVersion}\n\n`, { end: false }), { tls })
  const http2 = { connect: { ca: cert } }
  const first = record(open(t, server.url('/'), { http2 }))
  await first.wait('message')
  const later = record(open(t, server.url('/'), { http2 }))
  await later.wait('message')
  t.same([...first.data('message'), ...later.data('message')], ['1.1', '1.1'])
  t.equal(server.connections, 2, 'a connection each: no handshake to learn it again')
})
