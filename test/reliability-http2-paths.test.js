'use strict'

// init.http2 on the paths a well-behaved server never takes it down (lib/transport/http2-origin.js):
// a session lost while a request waits for another, which node:http2 would refuse the request on; a
// connection that fails before the server's SETTINGS, which fails the requests waiting for it at once,
// not one connection after another.

const t = require('tap')
const net = require('node:net')
const http2 = require('node:http2')
const { once } = require('node:events')
const { serve, sse, open, record, bounded, deferred, tlsFixture, listen } = require('./helpers')

const { key, cert } = tlsFixture()
const tls = { key, cert }

t.setTimeout(60_000)

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
