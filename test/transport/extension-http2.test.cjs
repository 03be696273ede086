'use strict'

// init.http2: EventSources to one origin share HTTP/2 sessions (lib/transport/http2-sessions.js). What is shared and
// what is not, the server's SETTINGS_MAX_CONCURRENT_STREAMS, the fallback to HTTP/1.1, cleartext h2
// with prior knowledge, sessions closed with their last source, and that nothing changes without the
// option or with a dispatcher of the user's. Faults: test/reliability/reliability-http2.test.cjs.

const t = require('tap')
const path = require('node:path')
const http2 = require('node:http2')
const { Agent, getGlobalDispatcher, setGlobalDispatcher } = require('undici')
const { EventSource } = require('../../')
const {
  serve, sse, open, record, bounded, deferred, tlsFixture, listen, countingDispatcher, runChild, throwsError, runCli
} = require('../helpers/index.cjs')

const { key, cert } = tlsFixture()

// TLS sessions, two child processes and sources by the dozen: more than tap's 30 s under load and coverage.
t.setTimeout(120_000)
const tls = { key, cert }

// An event stream that names the protocol the request came over.
function hello (req, res) {
  sse(res, `data: ${req.httpVersion}\n\n`, { end: false })
}

/** `n` sources on `url`, each recorded; resolves once every one has a message. */
async function openAll (t, n, url, init) {
  const sources = []
  for (let i = 0; i < n; i++) {
    const es = open(t, url, init)
    sources.push({ es, rec: record(es) })
  }
  await bounded(Promise.all(sources.map(({ rec }) => rec.wait('message'))), () =>
    `a message on each of ${n} sources (${sources.filter(({ rec }) => rec.count('message') > 0).length} have one)`)
  return sources
}

t.test('sources to one origin share one session; each has a stream of its own', async (t) => {
  const server = await serve(t, hello, { tls, http2: {} })
  const sources = await openAll(t, 20, server.url('/events'), { http2: { connect: { ca: cert } } })
  t.same(new Set(sources.map(({ rec }) => rec.data('message')[0])), new Set(['2.0']), 'every request came over HTTP/2')
  t.equal(server.requests.length, 20)
  t.equal(server.connections, 1, 'one TCP connection, one TLS handshake')
  t.equal(server.sessions.length, 1)
  t.same(sources.map(({ rec }) => rec.types), sources.map(() => ['open', 'message']), 'no error anywhere')
})

t.test('http2: true shares one default set of sessions; so does one options object', async (t) => {
  const server = await serve(t, hello, { tls, http2: {} })
  const options = { connect: { ca: cert } }
  await openAll(t, 3, server.url('/a'), { http2: options })
  await openAll(t, 3, server.url('/b'), { http2: options })
  t.equal(server.sessions.length, 1, 'the same object: the same session')
  // Another object with the same contents: sessions of its own (its TLS settings could differ).
  await openAll(t, 2, server.url('/c'), { http2: { connect: { ca: cert } } })
  t.equal(server.sessions.length, 2, 'another object: another session')
  // http2: true trusts the default CAs: the self-signed certificate is refused, as a network error, to
  // the source whose request opened the session and to those waiting for it alike.
  const refused = [1, 2, 3].map(() => record(open(t, server.url('/d'), { http2: true, reconnectionTime: 60_000 })))
  for (const rec of refused) {
    const { event } = await rec.wait('error')
    t.equal(event.code, 'ERR_EVENTSOURCE_NETWORK')
    t.equal(event.cause.code, 'DEPTH_ZERO_SELF_SIGNED_CERT')
  }
  t.equal(server.sessions.length, 2, 'no session came of it')
})

// undici 7 (the global dispatcher on Node 20 to 24) wraps a handler of its newer API for its older one, and a
// source remembers that of its dispatcher: init.http2's agent, which hands an http: request to the global
// dispatcher, must not be taken for one that speaks the older API, or its HTTP/2 origins get handlers without
// onRequestStart and every request to them fails.
t.test('one init.http2 for an http: source, then an h2 one: the h2 source is served', async (t) => {
  const options = { connect: { ca: cert } }
  const plain = await serve(t, hello)
  const [{ rec: first }] = await openAll(t, 1, plain.url('/events'), { http2: options })
  t.same(first.data('message'), ['1.1'], 'http: over HTTP/1.1, on the global dispatcher')
  const server = await serve(t, hello, { tls, http2: {} })
  const [{ rec }] = await openAll(t, 2, server.url('/events'), { http2: options })
  t.same(rec.data('message'), ['2.0'], 'the h2 origin over HTTP/2')
  t.same(rec.types, ['open', 'message'], 'no error')
})

t.test("the server's SETTINGS_MAX_CONCURRENT_STREAMS: 10 streams a session, 25 sources all open", async (t) => {
  // How many streams each server session has open at most.
  const open = new Map()
  let most = 0
  const server = await serve(t, (req, res) => {
    const session = req.stream.session
    open.set(session, (open.get(session) ?? 0) + 1)
    most = Math.max(most, open.get(session))
    req.stream.once('close', () => open.set(session, open.get(session) - 1))
    hello(req, res)
  }, { tls, http2: { settings: { maxConcurrentStreams: 10 } } })
  const sources = await openAll(t, 25, server.url('/events'), { http2: { connect: { ca: cert } } })
  t.equal(server.requests.length, 25, 'each source made one request: none was refused and retried')
  t.equal(server.sessions.length, 3, '10 + 10 + 5')
  t.equal(most, 10, 'no session carried more streams than the server allows')
  t.same(sources.filter(({ rec }) => rec.count('error') > 0), [], 'no error')
})

t.test('a server that does not offer h2: HTTP/1.1 over TLS, a connection per source', async (t) => {
  const server = await serve(t, hello, { tls })
  const sources = await openAll(t, 4, server.url('/events'), { http2: { connect: { ca: cert } } })
  t.same(sources.map(({ rec }) => rec.data('message')[0]), ['1.1', '1.1', '1.1', '1.1'])
  t.equal(server.connections, 4)
})

t.test('cleartext: h2 with prior knowledge on http: when asked; HTTP/1.1 otherwise', async (t) => {
  const streams = []
  const server = http2.createServer()
  server.on('stream', (stream, headers) => {
    streams.push(headers)
    stream.respond({ ':status': 200, 'content-type': 'text/event-stream' })
    stream.write('data: h2c\n\n')
  })
  server.on('session', (session) => session.on('error', () => {}))
  const { port } = await listen(t, server)
  const sources = await openAll(t, 3, `http://127.0.0.1:${port}/events`, { http2: { priorKnowledge: true } })
  t.same(sources.map(({ rec }) => rec.data('message')[0]), ['h2c', 'h2c', 'h2c'])
  t.equal(streams.length, 3)
  t.equal(streams[0][':scheme'], 'http')

  // Without priorKnowledge an http: URL goes to the global dispatcher, over HTTP/1.1, as in browsers.
  const plain = await serve(t, hello)
  const [{ rec }] = await openAll(t, 1, plain.url('/events'), { http2: { connect: { ca: cert } } })
  t.same(rec.data('message'), ['1.1'])
})

t.test('the session closes when its last source does, and not before', async (t) => {
  const responses = new Map()
  const server = await serve(t, (req, res) => {
    responses.set(req.url, res)
    hello(req, res)
  }, { tls, http2: {} })
  const options = { connect: { ca: cert } }
  const sources = [...await openAll(t, 2, server.url('/events'), { http2: options }),
    ...await openAll(t, 1, server.url('/last'), { http2: options })]
  t.equal(server.sessions.length, 1)
  const [session] = server.sessions
  const closed = deferred()
  session.once('close', closed.resolve)
  sources[0].es.close()
  sources[1].es.close()
  // The last source still receives: its stream, and so the session, is open.
  responses.get('/last').write('data: still here\n\n')
  await sources[2].rec.wait('message', 2)
  t.equal(server.openSessions, 1)
  sources[2].es.close()
  await bounded(closed.promise, 'the session to close after the last source did')
  t.equal(server.openSessions, 0)
})

t.test('an idle session does not keep the process alive', async (t) => {
  const server = await serve(t, (req, res) => sse(res, 'data: close\n\n', { end: false }), { tls, http2: {} })
  // The keep-alive child: it closes its EventSource on the message 'close', then must exit by itself.
  const keepalive = path.join(__dirname, '..', 'children', 'keepalive.cjs')
  const child = runChild(t, [keepalive, 'close-on-event', 'http2', server.url('/events'), server.url('/plain')])
  const { code, reports } = await child.exited(10_000)
  t.equal(code, 0, child.stderr)
  t.same(reports.at(-1).log, [['open', 1], ['message', 'close']])
  t.equal(server.requests[0].httpVersion, '2.0')
})

t.test('without the option nothing changes: HTTP/1.1 on the global dispatcher', async (t) => {
  const server = await serve(t, hello, { tls, http2: {} })
  const previous = getGlobalDispatcher()
  const agent = new Agent({ connect: { ca: cert } })
  setGlobalDispatcher(agent)
  t.teardown(() => { setGlobalDispatcher(previous); return agent.close() })
  const sources = await openAll(t, 3, server.url('/events'))
  t.same(sources.map(({ rec }) => rec.data('message')[0]), ['1.1', '1.1', '1.1'])
  t.equal(server.connections, 3)
  t.equal(server.sessions.length, 0)
  // http2: false is the same as leaving it out.
  await openAll(t, 1, server.url('/events'), { http2: false })
  t.equal(server.sessions.length, 0)
})

t.test("a user's dispatcher wins over http2", async (t) => {
  const server = await serve(t, hello, { tls, http2: {} })
  const agent = new Agent({ connect: { ca: cert } })
  t.teardown(() => agent.close())
  const counting = countingDispatcher(t, agent)
  const [{ rec }] = await openAll(t, 1, server.url('/events'), { http2: { connect: { ca: cert } }, dispatcher: counting })
  t.same(rec.data('message'), ['1.1'], "over the user's Agent, which speaks HTTP/1.1")
  t.equal(counting.calls.length, 1)
  t.equal(server.sessions.length, 0)
})

t.test('init.http2 is validated', async (t) => {
  const url = 'https://127.0.0.1:1/'
  for (const value of [1, 'yes', null, Symbol('h2')]) {
    throwsError(t, () => new EventSource(url, { http2: value }),
      { type: TypeError, code: 'ERR_INVALID_ARG_TYPE', message: /^The "init\.http2" property must be of type boolean or object\./ })
  }
  throwsError(t, () => new EventSource(url, { http2: { connect: 'tls' } }),
    { type: TypeError, code: 'ERR_INVALID_ARG_TYPE', message: /^The "init\.http2\.connect" property must be of type object\./ })
  throwsError(t, () => new EventSource(url, { http2: { pingInterval: -1 } }),
    { type: RangeError, code: 'ERR_OUT_OF_RANGE', message: /^The value of "init\.http2\.pingInterval" is out of range/ })
  throwsError(t, () => new EventSource(url, { http2: { pingTimeout: 0 } }),
    { type: RangeError, code: 'ERR_OUT_OF_RANGE', message: /^The value of "init\.http2\.pingTimeout" is out of range/ })
  throwsError(t, () => new EventSource(url, { http2: { pingTimeout: '1s' } }),
    { type: TypeError, code: 'ERR_INVALID_ARG_TYPE', message: /^The "init\.http2\.pingTimeout" property must be of type number\./ })
  for (const value of [true, false, undefined, {}, { connect: {}, priorKnowledge: 1, pingInterval: 0, pingTimeout: 1 }]) {
    new EventSource(url, { http2: value }).close()
  }
  t.pass('valid values construct')
})

t.test('ssecat --http2: over HTTP/2 with the --cacert trust; not with --proxy or --raw', async (t) => {
  const server = await serve(t, hello, { tls, http2: {} })
  const { code, stdout, stderr } = await runCli(t, ['--http2', '--cacert', tlsFixture().certFile, '-n', '1', server.url('/events')],
    { env: { HTTPS_PROXY: 'http://127.0.0.1:1' } }).exited()
  t.equal(code, 0, stderr)
  t.equal(stdout, '[message] 2.0\n')
  t.match(stderr, /WARNING: --http2 connects directly: HTTPS_PROXY not used/)
  t.equal(server.sessions.length, 1)
  for (const args of [['--proxy', 'http://127.0.0.1:1'], ['--raw']]) {
    const usage = await runCli(t, ['--http2', ...args, server.url('/events')]).exited()
    t.equal(usage.code, 2, args[0])
    t.match(usage.stderr, /--http2/)
  }
})
