'use strict'

// init.http2 against servers that do not play along (lib/transport/http2-origin.js and its files): a
// server that allows no stream at all, one that takes a request and never answers it, sessions that
// must not be shared across origins or TLS options, credentials that must not follow a redirect to
// another origin, and sources closed while their connection is being made, which must leave nothing
// running. GOAWAY, lost sessions, PINGs and RST_STREAM: test/reliability/reliability-http2.test.cjs and
// test/transport/extension-http2-streams.test.cjs.

const t = require('tap')
const net = require('node:net')
const path = require('node:path')
const { serve, sse, open, record, bounded, deferred, tlsFixture, listen, runChild } = require('../helpers/index.cjs')

const { key, cert } = tlsFixture()
const tls = { key, cert }

t.setTimeout(60_000)

t.test('a server that allows no stream: every source gets an error, none waits for ever', async (t) => {
  const server = await serve(t, (req, res) => sse(res, 'data: x\n\n', { end: false }),
    { tls, http2: { settings: { maxConcurrentStreams: 0 } } })
  const http2 = { connect: { ca: cert } }
  const sources = [1, 2, 3, 4].map(() => record(open(t, server.url('/'), { http2, reconnectionTime: 60_000 })))
  await bounded(Promise.all(sources.map((rec) => rec.wait('error'))), 'an error on each source')
  for (const rec of sources) {
    t.same(rec.types, ['error'], 'an error, no open')
    t.equal(rec.events[0].code, 'ERR_EVENTSOURCE_NETWORK')
  }
  t.equal(server.requests.length, 0, 'the server answered no request')
  t.ok(server.sessions.length <= 2, `${server.sessions.length} session(s), not one per source`)
})

t.test('a server that never answers a request: connectTimeout ends it, and its stream is reset', async (t) => {
  const reset = deferred()
  const server = await serve(t, (req, res) => {
    req.stream.once('close', () => reset.resolve(req.stream.rstCode))
  }, { tls, http2: {} })
  const es = open(t, server.url('/'), { http2: { connect: { ca: cert } }, connectTimeout: 100, reconnectionTime: 60_000 })
  const rec = record(es)
  const { event } = await rec.wait('error')
  t.equal(event.code, 'ERR_EVENTSOURCE_CONNECT_TIMEOUT')
  t.equal(es.readyState, es.CONNECTING, 'it reconnects later')
  t.type(await bounded(reset.promise, 'the stream to be reset'), 'number', 'the server saw the stream go')
  const [session] = server.sessions
  const closed = deferred()
  if (session.closed || session.destroyed) closed.resolve()
  else session.once('close', closed.resolve)
  await bounded(closed.promise, 'the session, with no request left on it, to close')
  t.pass('no session is kept for a source that waits to reconnect')
})

t.test('sessions are shared within one origin and one options object only', async (t) => {
  const handler = (req, res) => sse(res, 'data: x\n\n', { end: false })
  const a = await serve(t, handler, { tls, http2: {} })
  const b = await serve(t, handler, { tls, http2: {} })
  const one = { connect: { ca: cert } }
  const other = { connect: { ca: cert } }
  const recs = [
    record(open(t, a.url('/1'), { http2: one })),
    record(open(t, a.url('/2'), { http2: one })),
    record(open(t, b.url('/3'), { http2: one })),
    record(open(t, a.url('/4'), { http2: other }))
  ]
  await bounded(Promise.all(recs.map((rec) => rec.wait('message'))), 'a message on each source')
  t.equal(a.sessions.length, 2, 'origin A: one session per options object')
  t.same(a.requests.map((req) => req.url).sort(), ['/1', '/2', '/4'], 'A got its own requests only')
  t.equal(b.sessions.length, 1, 'origin B: a session of its own')
  t.same(b.requests.map((req) => req.url), ['/3'], 'B got its own request only')
})

t.test('a redirect to another origin: credentials stay with the first, and each origin has its own session', async (t) => {
  const target = await serve(t, (req, res) => sse(res, 'data: there\n\n', { end: false }), { tls, http2: {} })
  const first = await serve(t, (req, res) => {
    res.writeHead(302, { location: target.url('/moved') })
    res.end()
  }, { tls, http2: {} })
  const url = new URL(first.url('/start'))
  url.username = 'user'
  url.password = 'secret'
  const rec = record(open(t, url.href, {
    http2: { connect: { ca: cert } },
    headers: { authorization: 'Bearer token', cookie: 'a=b', 'x-custom': 'kept' }
  }))
  const { event } = await rec.wait('message')
  t.equal(event.data, 'there')
  t.equal(event.origin, new URL(target.url('/')).origin)
  const [there] = target.requests
  t.equal(there.httpVersion, '2.0')
  t.equal(there.headers.authorization, undefined, 'no Authorization to the other origin')
  t.equal(there.headers.cookie, undefined, 'no Cookie to the other origin')
  t.equal(there.headers['x-custom'], 'kept', 'other headers follow')
  t.equal(first.requests[0].headers.authorization, 'Bearer token', 'the first origin had them')
  t.equal(first.sessions.length, 1)
  t.equal(target.sessions.length, 1, 'the request to the other origin took a session of its own')
  t.equal(first.requests.length, 1, 'nothing for the other origin went over the first one\'s session')
})

t.test('close() while the connection is being made: the process exits at once, no timer left', async (t) => {
  // Accepts TCP connections and never answers the TLS handshake: the connect timeout (10 s) would run.
  const sockets = []
  const accepted = deferred()
  const silent = net.createServer((socket) => {
    sockets.push(socket)
    accepted.resolve()
  })
  t.teardown(() => { for (const socket of sockets) socket.destroy() })
  const { port } = await listen(t, silent)
  const url = `https://127.0.0.1:${port}/`
  const keepalive = path.join(__dirname, '..', 'children', 'keepalive.cjs')
  const child = runChild(t, [keepalive, 'close-while-connecting', 'http2', url, url], { stdin: 'pipe' })
  await bounded(accepted.promise, 'the connection')
  child.child.stdin.end('close\n')
  // Well under the 10 s connect timeout that a timer left behind would keep the process alive for.
  const { code, reports } = await child.exited(5_000)
  t.equal(code, 0, child.stderr)
  t.same(reports.at(-1).log, [], 'no event at all')
})

for (const protocol of ['h2', 'http/1.1']) {
  t.test(`sources closed during the TLS handshake (the server chooses ${protocol}): the connection goes`, async (t) => {
    const closed = deferred()
    const connected = deferred()
    // Chooses `protocol` in ALPN, then holds the connection, answering nothing.
    const server = require('node:tls').createServer({ ...tls, ALPNProtocols: [protocol] }, () => {})
    server.on('connection', (socket) => {
      socket.once('close', closed.resolve)
      connected.resolve()
    })
    const { port } = await listen(t, server)
    // The first source's request goes to the session being made; the others wait for its SETTINGS.
    const http2 = { connect: { ca: cert } }
    const sources = [1, 2, 3].map(() => open(t, `https://127.0.0.1:${port}/`, { http2 }))
    await bounded(connected.promise, 'the connection')
    // Before the handshake can end (the server has not read the client's hello yet).
    for (const es of sources) es.close()
    await bounded(closed.promise, 'the connection, which no request needs, to close')
    t.pass('closed')
  })
}
