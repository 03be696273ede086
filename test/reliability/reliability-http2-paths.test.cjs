'use strict'

// init.http2 on the paths a well-behaved server never takes it down (lib/transport/http2-origin.js,
// http2-request.js, http2-connection.js): a request the server takes and never answers, left to the
// headers timeout (300 s, on a fake clock); a session lost while a request waits for another, which
// node:http2 would refuse the request on; a connection that fails before the server's SETTINGS, which
// fails the requests waiting for it at once, not one connection after another; a server that never sends
// its SETTINGS, whose waiting requests the headers timeout ends all at once; and connect.socketPath,
// sessions over a Unix socket.

const t = require('tap')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const net = require('node:net')
const http2 = require('node:http2')
const https = require('node:https')
const { once } = require('node:events')
const { constants: { NGHTTP2_NO_ERROR } } = http2
const { serve, sse, open, record, bounded, deferred, macrotask, tlsFixture, listen, fakeClock } = require('../helpers/index.cjs')

const { key, cert } = tlsFixture()
const tls = { key, cert }

t.setTimeout(60_000)

// http2-request.js's: how long a request may wait for its response head.
const HEADERS_TIMEOUT = 300_000

/**
 * A TCP server on 127.0.0.1 in front of others: its connection n is handed to plan[n] (the last entry
 * for those past the end), a function of the socket (which must read it, or it never sees the client
 * close it).
 * @param {import('tap').Test} t
 * @param {((socket: net.Socket) => void)[]} plan
 */
async function front (t, plan) {
  const sockets = []
  let arrivals = []
  const server = net.createServer((socket) => {
    socket.on('error', () => {})
    sockets.push(socket)
    plan[Math.min(sockets.length, plan.length) - 1](socket)
    for (const wake of arrivals) wake()
    arrivals = []
  })
  const { port } = await listen(t, server)
  return {
    port,
    /** The connections accepted, in order. */
    sockets,
    /** Resolves once `n` connections have been accepted. */
    accepted (n) {
      return bounded(new Promise((resolve) => {
        const check = () => (sockets.length >= n ? resolve() : arrivals.push(check))
        check()
      }), () => `connection #${n} (${sockets.length} so far)`)
    }
  }
}

/** A plan entry: the connection is relayed to 127.0.0.1:`port` and back; either side closing closes both. */
function relay (port) {
  return (socket) => {
    const upstream = net.connect(port, '127.0.0.1')
    upstream.on('error', () => {})
    socket.pipe(upstream).pipe(socket)
    socket.once('close', () => upstream.destroy())
    upstream.once('close', () => socket.destroy())
  }
}

/** A plan entry that holds the connection (reading nothing) until release(), then relays it to `port`. */
function held (port) {
  const released = deferred()
  const entry = (socket) => {
    socket.pause()
    released.promise.then(() => relay(port)(socket))
  }
  entry.release = released.resolve
  return entry
}

/** Resolves once `socket` (a server's side of a connection) has closed. */
function closed (socket) {
  return bounded(socket.destroyed ? Promise.resolve() : once(socket, 'close'), 'the connection to close')
}

t.test('a server that takes a request and never answers: the headers timeout ends it as a network error, leaving nothing behind', async (t) => {
  const arrived = deferred()
  const reset = deferred()
  const server = await serve(t, (req) => {
    req.stream.once('close', () => reset.resolve(req.stream.rstCode))
    arrived.resolve()
  }, { tls, http2: {} })
  const clock = fakeClock(t)
  // No connectTimeout, which would end the request at 30 s; no PINGs, whose answers a fake clock
  // moving 300 s at once would not wait for.
  const es = open(t, server.url('/'), { http2: { connect: { ca: cert }, pingInterval: 0 }, connectTimeout: 0, reconnectionTime: 60_000 })
  const rec = record(es)
  await bounded(arrived.promise, 'the request')
  const timers = clock.countTimers()
  clock.tick(HEADERS_TIMEOUT - 1)
  await macrotask()
  t.same(rec.types, [], 'nothing a millisecond before')
  clock.tick(1)
  const { event } = await rec.wait('error')
  t.equal(event.code, 'ERR_EVENTSOURCE_NETWORK')
  t.match(event.message, /headers timeout after 300000/)
  t.equal(es.readyState, es.CONNECTING, 'it reconnects')
  t.equal(await bounded(reset.promise, 'the stream to be reset'), NGHTTP2_NO_ERROR, 'the server saw the stream reset (NO_ERROR)')
  const [session] = server.sessions
  await bounded(session.destroyed ? Promise.resolve() : once(session, 'close'), 'the session to close')
  t.pass('the session, with no request left on it, closed')
  t.equal(clock.countTimers(), timers, 'the headers timer went; the reconnection timer took its place')
  clock.tick(60_000)
  await server.request(1)
  t.equal(server.sessions.length, 2, 'the reconnection took a new session')
})

t.test('a server that takes the connection and never sends its SETTINGS: every request waiting ends at 300 s', async (t) => {
  // By default the PINGs (20 s) end it; without them and without a connect timeout, the headers
  // timeout is what is left. The first source's request is on a stream that node:http2 holds until
  // the SETTINGS; the second's waits for room on that session, which it is expected to have, with no
  // stream. Each request's 300 s run from when it is made, the wait included, as on HTTP/1.1 they
  // run from a request that a silent server took: the second does not wait for the first to time out.
  const preface = deferred()
  // The client's preface, sent once its connection is up: its connect timer (10 s) is gone by then.
  const server = await front(t, [(socket) => socket.once('data', preface.resolve).resume()])
  const clock = fakeClock(t)
  const init = { http2: { priorKnowledge: true, pingInterval: 0 }, connectTimeout: 0, reconnectionTime: 60_000 }
  const sources = [open(t, `http://127.0.0.1:${server.port}/a`, init), open(t, `http://127.0.0.1:${server.port}/b`, init)]
  const recs = sources.map((es) => record(es))
  await bounded(preface.promise, 'the client\'s preface')
  t.equal(server.sockets.length, 1, 'one connection for both')
  clock.tick(HEADERS_TIMEOUT - 1)
  await macrotask()
  t.same(recs.map((rec) => rec.types), [[], []], 'nothing a millisecond before')
  clock.tick(1)
  for (const [i, rec] of recs.entries()) {
    const { event } = await rec.wait('error')
    t.equal(event.code, 'ERR_EVENTSOURCE_NETWORK', `source ${i + 1}`)
    t.match(event.message, /headers timeout after 300000/)
    t.equal(sources[i].readyState, sources[i].CONNECTING, 'it reconnects')
  }
  await closed(server.sockets[0])
  t.pass('the connection nothing waits for any more is closed')
})

t.test('a response head in time: the headers timer goes with it, and a quiet stream is not cut at 300 s', async (t) => {
  let response
  const server = await serve(t, (req, res) => {
    response = res
    sse(res, 'data: first\n\n', { end: false })
  }, { tls, http2: {} })
  const clock = fakeClock(t)
  const es = open(t, server.url('/'), { http2: { connect: { ca: cert }, pingInterval: 0 }, connectTimeout: 0, reconnectionTime: 60_000 })
  const rec = record(es)
  await rec.wait('message')
  t.equal(clock.countTimers(), 0, 'no timer runs for an open stream')
  clock.tick(HEADERS_TIMEOUT * 2)
  response.write('data: second\n\n')
  await rec.wait('message', 2)
  t.same(rec.types, ['open', 'message', 'message'], 'no error: the stream is still open')
})

t.test('a session lost while a request waits for another one: the request goes to that one, not to the lost one', async (t) => {
  // Two streams per session: a and b take the first session, c opens a second, and d waits for it.
  const server = await serve(t, (req, res) => sse(res, `data: ${req.url}\n\n`, { end: false }),
    { tls, http2: { settings: { maxConcurrentStreams: 2 } } })
  const second = held(server.port)
  const f = await front(t, [relay(server.port), second])
  const http2 = { connect: { ca: cert } }
  const recs = ['/a', '/b', '/c', '/d'].map((p) => record(open(t, `https://127.0.0.1:${f.port}${p}`, { http2, reconnectionTime: 60_000 })))
  const [a, b, c, d] = recs
  await bounded(Promise.all([a.wait('message'), b.wait('message')]), 'a message on a and b')
  // The second session's connection, held: c is on it, d waits for its SETTINGS.
  await f.accepted(2)
  // The first session's connection is lost. Its streams report it first, each leaving room on a session
  // node:http2 has destroyed; its 'close' comes after.
  f.sockets[0].destroy()
  await bounded(Promise.all([a.wait('error'), b.wait('error')]), 'an error on a and b')
  second.release()
  await bounded(Promise.all([c.wait('message'), d.wait('message')]), 'a message on c and d')
  t.same(d.types, ['open', 'message'], 'd waited for the second session: no error')
  t.same(c.types, ['open', 'message'])
  t.equal(d.events[1].data, '/d')
  for (const rec of [a, b]) t.same(rec.types, ['open', 'message', 'error'])
  t.equal(server.sessions.length, 2)
  t.equal(f.sockets.length, 2, 'no other connection')
})

// Connections that fail before the server's SETTINGS: three sources, one connection, three errors;
// a later source then takes a new connection (to a server that speaks HTTP/2).
const failures = [
  {
    name: 'the server closes the connection at once (h2c)',
    scheme: 'http',
    first: () => (socket) => socket.resume().end(),
    // The first source's request is on a stream; the others wait for the server's SETTINGS.
    messages: [/HTTP\/2: stream closed before the response was complete$/, /HTTP\/2: the connection closed before the server's SETTINGS$/]
  },
  {
    name: 'the server answers in HTTP/1.1 (h2c)',
    scheme: 'http',
    first: () => (socket) => socket.resume().end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\n\r\n'),
    messages: [/: Protocol error$/, /: Protocol error$/]
  },
  {
    name: 'the server chooses h2 in the TLS handshake and closes the connection',
    scheme: 'https',
    first: async (t) => {
      const liar = require('node:tls').createServer({ ...tls, ALPNProtocols: ['h2'] }, (socket) => socket.destroy())
      liar.on('tlsClientError', () => {})
      return relay((await listen(t, liar)).port)
    },
    // The first source's request is on a stream; the others wait for the server's SETTINGS.
    messages: [/HTTP\/2: stream closed before the response was complete$/, /HTTP\/2: the connection closed before the server's SETTINGS$/]
  },
  {
    name: 'the TLS handshake fails (the server sends no TLS)',
    scheme: 'https',
    first: () => (socket) => socket.resume().end('garbage\r\n'),
    messages: [/SSL routines/, /SSL routines/]
  }
]

for (const failure of failures) {
  t.test(`${failure.name}: every source waiting gets the error at once, and a later source a new connection`, async (t) => {
    let good
    if (failure.scheme === 'https') {
      good = await serve(t, (req, res) => sse(res, 'data: fine\n\n', { end: false }), { tls, http2: {} })
    } else {
      const h2c = http2.createServer((req, res) => sse(res, 'data: fine\n\n', { end: false }))
      h2c.on('session', (session) => session.on('error', () => {}))
      good = await listen(t, h2c)
    }
    const f = await front(t, [await failure.first(t), relay(good.port)])
    const http2Options = failure.scheme === 'https' ? { connect: { ca: cert } } : { priorKnowledge: true }
    const url = `${failure.scheme}://127.0.0.1:${f.port}/`
    const recs = [1, 2, 3].map(() => record(open(t, url, { http2: http2Options, reconnectionTime: 60_000 })))
    await bounded(Promise.all(recs.map((rec) => rec.wait('error'))), 'an error on each source')
    for (const [i, rec] of recs.entries()) {
      t.same(rec.types, ['error'])
      t.equal(rec.events[0].code, 'ERR_EVENTSOURCE_NETWORK')
      t.match(rec.events[0].event.message, failure.messages[Math.min(i, 1)])
      t.equal(rec.target.readyState, rec.target.CONNECTING, 'it reconnects later')
    }
    t.equal(f.sockets.length, 1, 'one connection for the three sources')
    await closed(f.sockets[0])
    const later = record(open(t, url, { http2: http2Options }))
    const { event } = await later.wait('message')
    t.equal(event.data, 'fine', 'a later source gets a new session')
    t.equal(f.sockets.length, 2)
  })
}

/** A temporary directory for Unix sockets (short: a socket's path is limited to about 100 bytes), removed at teardown. */
function socketDir (t) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'es-h2-'))
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
  return dir
}

/** Listens on the Unix socket `file`; closes the server and its connections at teardown. Counts connections. */
async function listenOnPath (t, server, file) {
  const sockets = new Set()
  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.once('close', () => sockets.delete(socket))
  })
  server.listen(file)
  await bounded(once(server, 'listening'), 'the server to listen')
  t.teardown(() => {
    for (const socket of sockets) socket.destroy()
    return new Promise((resolve) => server.close(() => resolve()))
  })
}

t.test('connect.socketPath: sessions over a Unix socket (TLS, and h2c with prior knowledge)', async (t) => {
  const dir = socketDir(t)
  const secure = http2.createSecureServer(tls, (req, res) => sse(res, `data: ${req.httpVersion} ${req.headers[':authority']}\n\n`, { end: false }))
  const cleartext = http2.createServer((req, res) => sse(res, `data: ${req.httpVersion} ${req.headers[':authority']}\n\n`, { end: false }))
  for (const server of [secure, cleartext]) server.on('session', (session) => session.on('error', () => {}))
  await listenOnPath(t, secure, path.join(dir, 'tls.sock'))
  await listenOnPath(t, cleartext, path.join(dir, 'h2c.sock'))
  // Nothing listens on localhost:1 (or 80): only the socket path can reach the servers.
  const viaTls = record(open(t, 'https://localhost:1/', { http2: { connect: { ca: cert, socketPath: path.join(dir, 'tls.sock') } } }))
  const viaH2c = record(open(t, 'http://localhost/', { http2: { priorKnowledge: true, connect: { socketPath: path.join(dir, 'h2c.sock') } } }))
  t.equal((await viaTls.wait('message')).event.data, '2.0 localhost:1', 'HTTP/2 over TLS on the socket, for the URL\'s host')
  t.equal((await viaH2c.wait('message')).event.data, '2.0 localhost', 'h2c on the socket')
})

t.test('connect.socketPath: a server on the socket that chooses HTTP/1.1 gets every source over the socket', async (t) => {
  const dir = socketDir(t)
  const file = path.join(dir, 'h1.sock')
  let connections = 0
  const server = https.createServer({ ...tls, ALPNProtocols: ['http/1.1'] }, (req, res) => sse(res, `data: ${req.httpVersion} ${req.url}\n\n`, { end: false }))
  server.on('connection', () => connections++)
  await listenOnPath(t, server, file)
  const http2 = { connect: { ca: cert, socketPath: file } }
  // The first source takes the connection made for HTTP/2; the second, one the HTTP/1.1 dispatcher makes.
  const recs = ['/a', '/b'].map((p) => record(open(t, `https://localhost:1${p}`, { http2 })))
  const data = await Promise.all(recs.map(async (rec) => (await rec.wait('message')).event.data))
  t.same(data, ['1.1 /a', '1.1 /b'])
  t.equal(connections, 2, 'a connection per source, both on the socket')
})

t.test('connect.socketPath: a connect timeout names the socket it tried', async (t) => {
  const dir = socketDir(t)
  const file = path.join(dir, 'silent.sock')
  // Accepts the connection and never answers the TLS handshake.
  const accepted = deferred()
  const silent = net.createServer(accepted.resolve)
  await listenOnPath(t, silent, file)
  const clock = fakeClock(t)
  const rec = record(open(t, 'https://localhost/', { http2: { connect: { ca: cert, socketPath: file } }, connectTimeout: 0, reconnectionTime: 60_000 }))
  await bounded(accepted.promise, 'the connection')
  clock.tick(10_000)
  const { event } = await rec.wait('error')
  t.equal(event.code, 'ERR_EVENTSOURCE_NETWORK')
  t.match(event.message, `Connect Timeout Error (attempted address: ${file}, timeout: 10000ms)`)
})
