'use strict'

// The fetch transport (lib/transport/fetch-transport.js) against the Dispatcher transport (lib/transport/dispatcher-transport.js):
// every scenario below runs three times, on the Dispatcher transport (no `fetch` in the init), on the
// fetch transport with Node's fetch (`fetch: globalThis.fetch`) and with a user's wrapper around it that
// records its calls, and each run must give the same outcome, which is also the one written down here:
// the events (type, readyState at dispatch, data, lastEventId, origin; for `error`: code, message,
// status, url, cause code, willReconnect, reconnectDelay) and what the servers received (method, path,
// the headers that matter, body). Where the two legitimately differ (Node's fetch applies undici's own
// limits; a user's fetch follows redirects itself, by its own rules), the difference is asserted and
// explained where it is: a scenario's expected(servers, transport) receives the transport's name.

const t = require('tap')
const zlib = require('node:zlib')
const { Agent } = require('undici')
const { EventSource } = require('../../')
const {
  SSE_HEADERS, serve, sse, open, record, bounded, deferred, closedPort, tlsFixture, onceBounded, reconnectionCycle
} = require('../helpers/index.cjs')

const { CONNECTING, OPEN, CLOSED } = EventSource

// The request headers compared: the standard's, the credentials, the user's.
const HEADERS = [
  'accept', 'cache-control', 'pragma', 'last-event-id', 'authorization', 'cookie', 'origin', 'content-type',
  'x-secret', 'x-keep', 'x-attempt'
]

/**
 * The transports, as an init to merge into each scenario's. `agent`: an undici Agent a scenario needs
 * (one that trusts the TLS fixture), which Node's fetch takes as its `dispatcher` option.
 */
const TRANSPORTS = {
  dispatcher: (calls, agent) => agent === undefined ? {} : { dispatcher: agent },
  fetch: (calls, agent) => ({
    fetch: agent === undefined ? globalThis.fetch : (input, init) => globalThis.fetch(input, { ...init, dispatcher: agent })
  }),
  'wrapped fetch': (calls, agent) => ({
    fetch: (input, init) => {
      calls.push({ input, init })
      return globalThis.fetch(input, agent === undefined ? init : { ...init, dispatcher: agent })
    }
  })
}

function redirect (res, status, location) {
  res.writeHead(status, { location }).end()
}

// A request as the servers should have received it: the standard's headers, plus `headers`.
function request (method, url, headers = {}, body = '') {
  return { method, url, headers: { accept: 'text/event-stream', 'cache-control': 'no-cache', pragma: 'no-cache', ...headers }, body }
}

function summarize ({ type, readyState, event }) {
  if (type === 'open') return [type, readyState]
  if (type === 'error') {
    return {
      type,
      readyState,
      code: event.code,
      message: event.message,
      status: event.status,
      // The url of the error, when the error is the event's cause (connection errors without a cause).
      url: event.cause?.url,
      cause: event.cause?.code,
      willReconnect: event.willReconnect,
      reconnectDelay: event.reconnectDelay
    }
  }
  return [type, readyState, event.data, event.lastEventId, event.origin]
}

function error (readyState, code, message, more = {}) {
  const willReconnect = readyState === CONNECTING
  return {
    type: 'error',
    readyState,
    code,
    message,
    status: undefined,
    url: undefined,
    cause: code,
    willReconnect,
    reconnectDelay: willReconnect ? 10 : undefined,
    ...more
  }
}

const ended = () => error(CONNECTING, 'ERR_EVENTSOURCE_STREAM_ENDED', 'The server ended the event stream')

async function received (server) {
  const out = []
  for (let i = 0; i < server.requests.length; i++) {
    const req = await server.request(i)
    const headers = {}
    for (const name of HEADERS) if (req.headers[name] !== undefined) headers[name] = req.headers[name]
    out.push({ method: req.method, url: req.url, headers, body: req.body.toString('latin1') })
  }
  return out
}

/**
 * Runs a scenario on a transport: records events until there are as many as expected (closing the
 * source from that listener, so nothing comes after), then reads what the servers received.
 */
async function run (t, scenario, transport) {
  const calls = []
  const servers = await scenario.servers(t)
  const init = { reconnectionTime: 10, ...scenario.init?.(servers), ...TRANSPORTS[transport](calls, servers.agent) }
  const es = open(t, scenario.url(servers), init)
  const rec = record(es, scenario.types)
  const count = scenario.expected(servers, transport).events.length
  await rec.until((events) => {
    if (events.length < count) return false
    es.close()
    return true
  })
  const requests = {}
  let total = 0
  for (const [name, server] of Object.entries(servers)) {
    if (!Array.isArray(server?.requests)) continue
    requests[name] = await received(server)
    total += requests[name].length
  }
  // Asked after the run: an expectation may depend on what reached the servers.
  const expected = scenario.expected(servers, transport)
  return { outcome: { events: rec.events.map(summarize), requests }, expected, calls, total, servers }
}

// Whether a transport is a user's fetch (init.fetch): it follows redirects itself, by the fetch's rules
// (lib/transport/fetch-transport.js), and the wrapper is called once per attempt (and per 401 answered).
const usersFetch = (transport) => transport !== 'dispatcher'

const bodies = (...list) => (req, res, i) => sse(res, list[Math.min(i, list.length - 1)], { end: i < list.length - 1 })

const SCENARIOS = [
  {
    name: 'messages of several types, ids, comments, a BOM',
    servers: async (t) => ({
      main: await serve(t, bodies('\uFEFFdata: one\n\nevent: update\ndata: two\nid: 7\n\n: comment\nid: 8\ndata\n\n' +
        'event: update\ndata: a\ndata: b\n\nevent: other\nretry: x\ndata: c\n\n'))
    }),
    url: (s) => s.main.url('/events?x=1'),
    types: ['open', 'message', 'update', 'other', 'error'],
    expected: (s) => ({
      events: [
        ['open', OPEN],
        ['message', OPEN, 'one', '', s.main.origin],
        ['update', OPEN, 'two', '7', s.main.origin],
        ['message', OPEN, '', '8', s.main.origin],
        ['update', OPEN, 'a\nb', '8', s.main.origin],
        ['other', OPEN, 'c', '8', s.main.origin]
      ],
      requests: { main: [request('GET', '/events?x=1')] }
    })
  },
  {
    name: 'the body ends: reconnection with Last-Event-ID (UTF-8)',
    servers: async (t) => ({ main: await serve(t, bodies('id: é1\ndata: first\n\n', 'data: second\n\n')) }),
    url: (s) => s.main.url('/'),
    expected: (s) => ({
      events: [
        ['open', OPEN], ['message', OPEN, 'first', 'é1', s.main.origin], ended(),
        ['open', OPEN], ['message', OPEN, 'second', 'é1', s.main.origin]
      ],
      // Node's server reads header values as latin1: the two UTF-8 bytes of é.
      requests: { main: [request('GET', '/'), request('GET', '/', { 'last-event-id': 'Ã©1' })] }
    })
  },
  {
    name: 'retry: sets the reconnection time',
    servers: async (t) => ({ main: await serve(t, bodies('retry: 25\ndata: a\n\n', 'data: b\n\n')) }),
    url: (s) => s.main.url('/'),
    expected: (s) => ({
      events: [
        ['open', OPEN], ['message', OPEN, 'a', '', s.main.origin], { ...ended(), reconnectDelay: 25 },
        ['open', OPEN], ['message', OPEN, 'b', '', s.main.origin]
      ],
      requests: { main: [request('GET', '/'), request('GET', '/')] }
    })
  },
  {
    name: 'POST with a body and a headers function, on every attempt',
    servers: async (t) => ({ main: await serve(t, bodies('id: 1\ndata: a\n\n', 'data: b\n\n')) }),
    url: (s) => s.main.url('/llm'),
    init: () => ({
      method: 'POST',
      body: '{"prompt":"hi"}',
      // A POST that may be sent again: the reconnection is what is compared
      // (test/eventsource/extension-idempotent.test.cjs has the one-shot POST).
      idempotent: true,
      headers: ({ attempt, lastEventId, url }) => ({
        'x-attempt': `${attempt} ${lastEventId} ${new URL(url).pathname}`,
        authorization: `Bearer t${attempt}`,
        'content-type': 'application/json'
      })
    }),
    expected: (s) => ({
      events: [
        ['open', OPEN], ['message', OPEN, 'a', '1', s.main.origin], ended(),
        ['open', OPEN], ['message', OPEN, 'b', '1', s.main.origin]
      ],
      requests: {
        main: [
          request('POST', '/llm', { 'x-attempt': '1  /llm', authorization: 'Bearer t1', 'content-type': 'application/json' }, '{"prompt":"hi"}'),
          request('POST', '/llm', { 'x-attempt': '2 1 /llm', authorization: 'Bearer t2', 'content-type': 'application/json', 'last-event-id': '1' },
            '{"prompt":"hi"}')
        ]
      }
    })
  },
  // Redirects of a POST: 301 and 302 (after POST) and 303 turn it into a body-less GET, 307 and 308 keep
  // it; the reconnection goes to the final URL, with the method the redirect ended with. A user's fetch
  // follows them itself, and the method they ended with is not known: the reconnection starts over. (With
  // idempotent: true, so that each reconnects; which of them a one-shot POST may reconnect is in
  // test/eventsource/extension-idempotent.test.cjs.)
  ...[301, 302, 303, 307, 308].map((status) => ({
    name: `a ${status} redirect of a POST, and the reconnection to the final URL`,
    servers: async (t) => ({
      // The first response of /final ends, the second stays open.
      main: await serve(t, (req, res, i) => req.url === '/start' ? redirect(res, status, '/final') : sse(res, 'data: m\n\n', { end: i > 1 ? false : undefined }))
    }),
    url: (s) => s.main.url('/start'),
    init: () => ({ method: 'POST', body: 'payload', idempotent: true }),
    calls: (total, transport) => usersFetch(transport) ? 2 : total,
    expected: (s, transport) => {
      const keeps = status === 307 || status === 308
      const start = request('POST', '/start', { 'content-type': 'text/plain;charset=UTF-8' }, 'payload')
      const final = keeps ? request('POST', '/final', { 'content-type': 'text/plain;charset=UTF-8' }, 'payload') : request('GET', '/final')
      return {
        events: [['open', OPEN], ['message', OPEN, 'm', '', s.main.origin], ended(), ['open', OPEN]],
        requests: { main: usersFetch(transport) ? [start, final, start, final] : [start, final, final] }
      }
    }
  })),
  {
    name: 'a cross-origin redirect drops Authorization, also on reconnection',
    servers: async (t) => {
      const other = await serve(t, bodies('data: there\n\n', ''))
      const main = await serve(t, (req, res) => redirect(res, 302, other.url('/events')))
      return { main, other }
    },
    url: (s) => s.main.url('/start'),
    init: () => ({ headers: { authorization: 'Bearer secret', 'x-keep': 'k' } }),
    calls: (total, transport) => usersFetch(transport) ? 2 : total,
    expected: (s, transport) => {
      const start = request('GET', '/start', { authorization: 'Bearer secret', 'x-keep': 'k' })
      const events = request('GET', '/events', { 'x-keep': 'k' })
      return {
        events: [['open', OPEN], ['message', OPEN, 'there', '', s.other.origin], ended(), ['open', OPEN]],
        // A user's fetch drops Authorization itself; the reconnection starts over at the source's origin,
        // where the fetch's own credentials are meant to go, rather than at the final URL's.
        requests: usersFetch(transport)
          ? { main: [start, start], other: [events, events] }
          : { main: [start], other: [events, events] }
      }
    }
  },
  {
    name: 'a cross-origin redirect with Cookie and credentialHeaders: dropped, or refused with a user\'s fetch',
    servers: async (t) => {
      const other = await serve(t, bodies('data: there\n\n', ''))
      const main = await serve(t, (req, res) => redirect(res, 302, other.url('/events')))
      return { main, other }
    },
    url: (s) => s.main.url('/start'),
    init: () => ({
      headers: { authorization: 'Bearer secret', cookie: 'session=1', 'x-secret': 's', 'x-keep': 'k' },
      credentialHeaders: ['X-Secret']
    }),
    expected: (s, transport) => {
      const start = request('GET', '/start', { authorization: 'Bearer secret', cookie: 'session=1', 'x-secret': 's', 'x-keep': 'k' })
      // A user's fetch would take Cookie and X-Secret along, and may add credentials of its own: the
      // request goes with redirect 'manual', and only a redirect within its origin is followed.
      if (usersFetch(transport)) {
        return {
          events: [error(CLOSED, 'ERR_EVENTSOURCE_INVALID_REDIRECT', `The server redirected to another origin, ${s.other.origin}, ` +
            'which the request\'s credentials (Cookie, Proxy-Authorization or a header named in credentialHeaders) would reach through your fetch',
          { status: 302, url: s.main.url('/start') })],
          requests: { main: [start], other: [] }
        }
      }
      return {
        events: [['open', OPEN], ['message', OPEN, 'there', '', s.other.origin], ended(), ['open', OPEN]],
        requests: { main: [start], other: [request('GET', '/events', { 'x-keep': 'k' }), request('GET', '/events', { 'x-keep': 'k' })] }
      }
    }
  },
  {
    name: 'https: to http: is refused',
    servers: async (t) => {
      const { key, cert } = tlsFixture()
      const plain = await serve(t, bodies(''))
      const secure = await serve(t, (req, res) => redirect(res, 302, plain.url('/insecure')), { tls: { key, cert } })
      const agent = new Agent({ connect: { ca: cert } })
      t.teardown(() => agent.close())
      return { secure, plain, agent }
    },
    url: (s) => s.secure.url('/start'),
    calls: (total, transport) => usersFetch(transport) ? 1 : total,
    expected: (s, transport) => ({
      // A user's fetch follows it before anyone can refuse it; what the http: URL answers is not used.
      events: [error(CLOSED, 'ERR_EVENTSOURCE_INSECURE_REDIRECT',
        `The server redirected from https: to ${s.plain.url('/insecure')}; set allowInsecureRedirect to follow it`,
        { status: usersFetch(transport) ? undefined : 302, url: s.secure.url('/start') })],
      requests: { secure: [request('GET', '/start')], plain: usersFetch(transport) ? [request('GET', '/insecure')] : [] }
    })
  },
  {
    name: 'a redirect loop fails after 20 redirects',
    servers: async (t) => ({ main: await serve(t, (req, res) => redirect(res, 302, '/loop')) }),
    url: (s) => s.main.url('/loop'),
    calls: (total, transport) => usersFetch(transport) ? 1 : total,
    expected: (s, transport) => ({
      // A user's fetch has the same limit, and makes it a network error, reestablished.
      events: [usersFetch(transport)
        ? error(CONNECTING, 'ERR_EVENTSOURCE_NETWORK', `The connection to ${s.main.origin} failed: redirect count exceeded`, { cause: undefined })
        : error(CLOSED, 'ERR_EVENTSOURCE_TOO_MANY_REDIRECTS', `More than 20 redirects, the last to ${s.main.url('/loop')}`,
          { status: 302, url: s.main.url('/loop') })],
      requests: { main: Array.from({ length: 21 }, () => request('GET', '/loop')) }
    })
  },
  {
    name: 'an invalid Location fails',
    servers: async (t) => ({ main: await serve(t, (req, res) => redirect(res, 301, 'http://[')) }),
    url: (s) => s.main.url('/'),
    expected: (s, transport) => ({
      // The error's cause is the URL parser's. A user's fetch makes it a network error, reestablished.
      events: [usersFetch(transport)
        ? error(CONNECTING, 'ERR_EVENTSOURCE_NETWORK', `The connection to ${s.main.origin} failed: Invalid URL`, { cause: 'ERR_INVALID_URL' })
        : error(CLOSED, 'ERR_EVENTSOURCE_INVALID_REDIRECT', 'The server redirected to an invalid URL: http://[',
          { status: 301, cause: 'ERR_INVALID_URL' })],
      requests: { main: [request('GET', '/')] }
    })
  },
  {
    name: 'a redirect to another scheme fails',
    servers: async (t) => ({ main: await serve(t, (req, res) => redirect(res, 302, 'ftp://127.0.0.1/events')) }),
    url: (s) => s.main.url('/'),
    expected: (s, transport) => ({
      // A user's fetch makes it a network error, reestablished.
      events: [usersFetch(transport)
        ? error(CONNECTING, 'ERR_EVENTSOURCE_NETWORK', `The connection to ${s.main.origin} failed: URL scheme must be a HTTP(S) scheme`,
          { cause: undefined })
        : error(CLOSED, 'ERR_EVENTSOURCE_INVALID_REDIRECT', 'The server redirected to an unsupported URL scheme: ftp:',
          { status: 302, url: s.main.url('/') })],
      requests: { main: [request('GET', '/')] }
    })
  },
  {
    name: 'a URL of another scheme fails at once',
    servers: async () => ({}),
    url: () => 'ftp://127.0.0.1/events',
    expected: () => ({
      events: [error(CLOSED, 'ERR_EVENTSOURCE_UNSUPPORTED_SCHEME',
        'The URL scheme "ftp:" is not supported: an event stream needs http: or https:', { url: 'ftp://127.0.0.1/events' })],
      requests: {}
    })
  },
  {
    name: 'URL credentials answer a Basic 401 once',
    servers: async (t) => ({
      main: await serve(t, (req, res) => req.headers.authorization === undefined
        ? res.writeHead(401, { 'www-authenticate': 'Basic realm="events"' }).end('no')
        : sse(res, 'data: in\n\n', { end: false }))
    }),
    url: (s) => `http://us%C3%A9r:p%40ss@127.0.0.1:${s.main.port}/private`,
    expected: (s) => ({
      events: [['open', OPEN], ['message', OPEN, 'in', '', s.main.origin]],
      requests: {
        main: [request('GET', '/private'), request('GET', '/private', { authorization: `Basic ${Buffer.from('usér:p@ss').toString('base64')}` })]
      }
    })
  },
  {
    name: 'a second 401 is the response: the connection fails',
    servers: async (t) => ({
      main: await serve(t, (req, res) => res.writeHead(401, 'Who', { 'www-authenticate': 'Basic' }).end())
    }),
    url: (s) => `http://user:pw@127.0.0.1:${s.main.port}/`,
    expected: (s) => ({
      events: [error(CLOSED, 'ERR_EVENTSOURCE_BAD_STATUS', 'The server answered 401 Who: an event stream needs status 200',
        { status: 401, url: s.main.url('/') })],
      requests: { main: [request('GET', '/'), request('GET', '/', { authorization: `Basic ${Buffer.from('user:pw').toString('base64')}` })] }
    })
  },
  ...[[500, 'Internal Server Error', 'oops'], [204, 'No Content', '']].map(([status, text, body]) => ({
    name: `status ${status} fails the connection`,
    servers: async (t) => ({ main: await serve(t, (req, res) => res.writeHead(status, SSE_HEADERS).end(body)) }),
    url: (s) => s.main.url('/'),
    expected: (s) => ({
      events: [error(CLOSED, 'ERR_EVENTSOURCE_BAD_STATUS', `The server answered ${status} ${text}: an event stream needs status 200`,
        { status, url: s.main.url('/') })],
      requests: { main: [request('GET', '/')] }
    })
  })),
  {
    name: 'a wrong Content-Type fails the connection',
    servers: async (t) => ({ main: await serve(t, (req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('data: x\n\n')) }),
    url: (s) => s.main.url('/'),
    expected: (s) => ({
      events: [error(CLOSED, 'ERR_EVENTSOURCE_BAD_CONTENT_TYPE',
        'The server answered with Content-Type "text/plain": an event stream needs text/event-stream', { status: 200, url: s.main.url('/') })],
      requests: { main: [request('GET', '/')] }
    })
  },
  {
    name: 'retryOnStatus with Retry-After',
    servers: async (t) => ({
      main: await serve(t, (req, res) => res.writeHead(503, { 'retry-after': '2' }).end())
    }),
    url: (s) => s.main.url('/'),
    init: () => ({ reconnect: { retryOnStatus: [503] } }),
    expected: (s) => ({
      events: [error(CONNECTING, 'ERR_EVENTSOURCE_BAD_STATUS', 'The server answered 503 Service Unavailable: an event stream needs status 200',
        { status: 503, url: s.main.url('/'), reconnectDelay: 2000 })],
      requests: { main: [request('GET', '/')] }
    })
  },
  {
    name: 'connectTimeout: no response head',
    servers: async (t) => ({ main: await serve(t, () => {}) }),
    url: (s) => s.main.url('/'),
    init: () => ({ connectTimeout: 50 }),
    calls: () => 1,
    expected: (s) => ({
      events: [error(CONNECTING, 'ERR_EVENTSOURCE_CONNECT_TIMEOUT', `No response from ${s.main.origin} within 50 ms (connectTimeout)`,
        { url: s.main.url('/') })],
      // The timer runs from the moment the request is handed to the transport: on a loaded machine it
      // may end the attempt before the request has reached the server.
      requests: { main: s.main.requests.length === 0 ? [] : [request('GET', '/')] }
    })
  },
  {
    name: 'idleTimeout: a silent body',
    servers: async (t) => ({ main: await serve(t, bodies('data: a\n\n')) }),
    url: (s) => s.main.url('/'),
    init: () => ({ idleTimeout: 50 }),
    expected: (s) => ({
      events: [
        ['open', OPEN], ['message', OPEN, 'a', '', s.main.origin],
        error(CONNECTING, 'ERR_EVENTSOURCE_IDLE_TIMEOUT', `No data from ${s.main.origin} for 50 ms (idleTimeout)`, { url: s.main.url('/') })
      ],
      requests: { main: [request('GET', '/')] }
    })
  },
  {
    name: 'a closed port: a network error, reconnected',
    servers: async () => ({ port: await closedPort() }),
    url: (s) => `http://127.0.0.1:${s.port}/`,
    calls: () => 2,
    expected: (s) => ({
      // The message says what the socket said; the cause is the socket's error, on both transports.
      events: [error(CONNECTING, 'ERR_EVENTSOURCE_NETWORK',
        `The connection to http://127.0.0.1:${s.port} failed: connect ECONNREFUSED 127.0.0.1:${s.port}`, { cause: 'ECONNREFUSED' }),
      error(CONNECTING, 'ERR_EVENTSOURCE_NETWORK',
        `The connection to http://127.0.0.1:${s.port} failed: connect ECONNREFUSED 127.0.0.1:${s.port}`, { cause: 'ECONNREFUSED' })],
      requests: {}
    })
  },
  {
    name: 'a reset after an event: a network error, reconnected',
    servers: async (t) => ({
      main: await serve(t, (req, res, i) => {
        if (i > 0) return sse(res, 'data: again\n\n', { end: false })
        res.writeHead(200, SSE_HEADERS).write('data: a\n\n', () => res.socket.destroy())
      })
    }),
    url: (s) => s.main.url('/'),
    expected: (s) => ({
      events: [['open', OPEN], ['message', OPEN, 'a', '', s.main.origin],
        error(CONNECTING, 'ERR_EVENTSOURCE_NETWORK', `The connection to ${s.main.origin} failed: other side closed`, { cause: 'UND_ERR_SOCKET' }),
        ['open', OPEN], ['message', OPEN, 'again', '', s.main.origin]],
      requests: { main: [request('GET', '/'), request('GET', '/')] }
    })
  },
  // Content codings: the fetch decodes them itself; the Dispatcher transport with lib/transport/content-decoding.js.
  ...[
    ['gzip', zlib.gzipSync], ['x-gzip', zlib.gzipSync], ['deflate', zlib.deflateSync], ['deflate', zlib.deflateRawSync, 'raw deflate'],
    ['br', zlib.brotliCompressSync], ['gzip, br', (b) => zlib.brotliCompressSync(zlib.gzipSync(b)), 'gzip, br']
  ].map(([coding, encode, label = coding]) => ({
    name: `a ${label} body`,
    servers: async (t) => ({
      main: await serve(t, (req, res) => res.writeHead(200, { ...SSE_HEADERS, 'content-encoding': coding })
        .end(encode(Buffer.from('id: z\ndata: decoded\n\n'))))
    }),
    url: (s) => s.main.url('/'),
    expected: (s) => ({
      events: [['open', OPEN], ['message', OPEN, 'decoded', 'z', s.main.origin], ended()],
      requests: { main: [request('GET', '/')] }
    })
  })),
  ...[['gzip', 'Z_DATA_ERROR'], ['br', 'ERR__ERROR_FORMAT_PADDING_2']].map(([coding, cause]) => ({
    name: `a corrupt ${coding} body: a decoding error, reconnected`,
    servers: async (t) => ({
      main: await serve(t, (req, res) => res.writeHead(200, { ...SSE_HEADERS, 'content-encoding': coding })
        .end(Buffer.from([0xff, 0xff, 0xff, 0xff, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10])))
    }),
    url: (s) => s.main.url('/'),
    expected: (s) => ({
      events: [['open', OPEN], error(CONNECTING, 'ERR_EVENTSOURCE_DECODING',
        `The response body could not be decoded (Content-Encoding: ${coding})`, { status: 200, cause })],
      requests: { main: [request('GET', '/')] }
    })
  })),
  {
    name: 'maxEventSize: an event too large fails the connection, after the events before it',
    servers: async (t) => ({ main: await serve(t, bodies(`data: small\n\ndata: ${'x'.repeat(300)}\n\n`)) }),
    url: (s) => s.main.url('/'),
    init: () => ({ maxEventSize: 128 }),
    expected: (s) => ({
      events: [['open', OPEN], ['message', OPEN, 'small', '', s.main.origin],
        error(CLOSED, 'ERR_EVENTSOURCE_EVENT_TOO_LARGE', 'An event exceeded the maximum event size of 128 bytes (maxEventSize)')],
      requests: { main: [request('GET', '/')] }
    })
  },
  {
    name: 'with a document (globalThis.location): Origin on a cross-origin request',
    servers: async (t) => {
      const saved = Object.getOwnPropertyDescriptor(globalThis, 'location')
      globalThis.location = { href: 'http://app.example/page' }
      t.teardown(() => {
        if (saved === undefined) delete globalThis.location
        else Object.defineProperty(globalThis, 'location', saved)
      })
      return { main: await serve(t, bodies('data: a\n\n')) }
    },
    url: (s) => s.main.url('/'),
    expected: (s) => ({
      events: [['open', OPEN], ['message', OPEN, 'a', '', s.main.origin]],
      requests: { main: [request('GET', '/', { origin: 'http://app.example' })] }
    })
  }
]

for (const scenario of SCENARIOS) {
  t.test(scenario.name, async (t) => {
    for (const transport of Object.keys(TRANSPORTS)) {
      await t.test(transport, async (t) => {
        const { outcome, expected, calls, total } = await run(t, scenario, transport)
        t.same(outcome, expected)
        // The wrapper is called once per request (per hop of a redirect, per 401 answered); a request
        // that never reached a server (a closed port, a timeout) was a call all the same.
        if (transport === 'wrapped fetch') t.equal(calls.length, scenario.calls?.(total, transport) ?? total, 'one call per request')
      })
    }
  })
}

// The transports as the tests below run them: Node's fetch stands for the fetch transport (the wrapper
// changes nothing in these).
const PAIRS = [['dispatcher', {}], ['fetch', { fetch: globalThis.fetch }]]

t.test('the headers a fetch adds of its own: the same on both transports', async (t) => {
  const server = await serve(t, (req, res) => sse(res))
  for (const [name, init] of PAIRS) {
    for (const headers of [{}, { 'user-agent': 'mine/1', 'accept-encoding': 'gzip', 'accept-language': 'fr', 'sec-fetch-mode': 'navigate' }]) {
      const before = server.requests.length
      const es = open(t, server.url(`/${name}`), { ...init, headers })
      await record(es).wait('open')
      es.close()
      const got = (await server.request(before)).headers
      const own = Object.keys(headers).length !== 0
      // What Node's fetch sends for an EventSource's request, and the Dispatcher transport with it: the
      // codings it decodes (over http:, no br), Accept-Language, Sec-Fetch-Mode (the request's mode,
      // "cors", whatever the user says), a User-Agent. A user's own value stays for the others.
      t.equal(got['accept-encoding'], own ? 'gzip' : 'gzip, deflate', `${name}: Accept-Encoding`)
      t.equal(got['user-agent'], own ? 'mine/1' : 'node', `${name}: User-Agent`)
      t.equal(got['accept-language'], own ? 'fr' : '*', `${name}: Accept-Language`)
      t.equal(got['sec-fetch-mode'], 'cors', `${name}: Sec-Fetch-Mode`)
    }
  }
})

t.test('more than five content codings: a documented difference', async (t) => {
  let body = Buffer.from('data: deep\n\n')
  for (let i = 0; i < 6; i++) body = zlib.gzipSync(body)
  const server = await serve(t, (req, res) => res.writeHead(200, { ...SSE_HEADERS, 'content-encoding': 'gzip, gzip, gzip, gzip, gzip, gzip' }).end(body))
  // The Dispatcher transport fails the connection (the server would send the same header again).
  const dispatched = record(open(t, server.url('/'), { reconnectionTime: 10 }))
  const { event: failed } = await dispatched.wait('error')
  t.same([failed.code, dispatched.events[0].readyState, failed.willReconnect, failed.status],
    ['ERR_EVENTSOURCE_TOO_MANY_CODINGS', CLOSED, false, 200])
  // undici's fetch has the same limit of five, but its own: it rejects the fetch before there is a
  // response to look at, which is a network error: reestablished, as the standard says of those.
  const fetched = record(open(t, server.url('/'), { reconnectionTime: 10, fetch: globalThis.fetch }))
  const { event: network } = await fetched.wait('error')
  t.same([network.code, fetched.events[0].readyState, network.willReconnect, network.status],
    ['ERR_EVENTSOURCE_NETWORK', CONNECTING, true, undefined])
  t.match(network.message, /content-encoding/i)
})

t.test('a certificate not trusted: a network error whose cause carries the TLS code, on both', async (t) => {
  const { key, cert } = tlsFixture()
  const server = await serve(t, (req, res) => sse(res), { tls: { key, cert } })
  const messages = []
  for (const [name, init] of PAIRS) {
    const rec = record(open(t, server.url('/'), { ...init, reconnectionTime: 10 }))
    const { event, readyState } = await rec.wait('error')
    t.same([event.code, readyState, event.willReconnect, event.cause?.code],
      ['ERR_EVENTSOURCE_NETWORK', CONNECTING, true, 'DEPTH_ZERO_SELF_SIGNED_CERT'], name)
    // Node 24 appends a hint about --use-system-ca to the TLS message: the start is the same everywhere.
    t.ok(event.message.startsWith(`The connection to ${server.origin} failed: self-signed certificate`), event.message)
    messages.push(event.message)
  }
  t.equal(messages[1], messages[0], 'the same message')
  t.equal(server.requests.length, 0)
})

t.test('close() mid-stream and the init signal: the server sees the request end, nothing comes after', async (t) => {
  for (const [name, init] of PAIRS) {
    for (const how of ['close()', 'signal']) {
      await t.test(`${name}, ${how}`, async (t) => {
        let closed = null
        // Two events in one chunk, and the response left open.
        const server = await serve(t, (req, res) => {
          closed = onceBounded(res, 'close')
          sse(res, 'data: 1\n\ndata: 2\n\n', { end: false })
        })
        const controller = new AbortController()
        const es = open(t, server.url('/'), { ...init, signal: controller.signal })
        const rec = record(es)
        es.addEventListener('message', () => how === 'signal' ? controller.abort() : es.close(), { once: true })
        await rec.wait('message')
        t.equal(es.readyState, CLOSED)
        await closed
        t.pass('the server saw the request end')
        // The second event was in the same chunk: parsed, never dispatched. A full reconnection cycle
        // of another source has passed meanwhile.
        await reconnectionCycle(t)
        t.same(rec.types, ['open', 'message'])
        t.equal(server.requests.length, 1, 'no reconnection')
      })
    }
  }
})

t.test('close() while the request waits for its response: the server sees it end', async (t) => {
  for (const [name, init] of PAIRS) {
    const arrived = deferred()
    let closed = null
    const server = await serve(t, (req, res) => {
      closed = onceBounded(res, 'close')
      arrived.resolve()
    })
    const es = open(t, server.url(`/${name}`), init)
    const rec = record(es)
    await bounded(arrived.promise, 'the request')
    es.close()
    await closed
    t.same(rec.types, [], `${name}: nothing dispatched`)
  }
})

t.test('idleTimeout while a consumer holds the stream back: no timeout until it reads again', async (t) => {
  for (const [name, init] of PAIRS) {
    let write
    const server = await serve(t, (req, res) => {
      res.writeHead(200, SSE_HEADERS).write('data: 1\n\ndata: 2\n\ndata: 3\n\n')
      write = (text) => res.write(text)
    })
    const es = open(t, server.url(), { ...init, idleTimeout: 100, highWaterMark: 2, reconnectionTime: 0 })
    const rec = record(es)
    const iterator = es[Symbol.asyncIterator]()
    await rec.wait('message', 3)
    // The queue is full and reading paused. The idle timer, armed before the control's, fires first.
    await reconnectionCycle(t, 110)
    t.same(rec.types, ['open', 'message', 'message', 'message'], `${name}: no idle timeout while paused`)
    const data = []
    for (let i = 0; i < 3; i++) data.push((await iterator.next()).value.data)
    write('data: 4\n\n')
    data.push((await iterator.next()).value.data)
    t.same(data, ['1', '2', '3', '4'])
    // Once resumed the timer runs again: a silent server is still detected.
    const { event } = await rec.wait('error')
    t.equal(event.code, 'ERR_EVENTSOURCE_IDLE_TIMEOUT', `${name}: then the silence is`)
    await iterator.return()
  }
})

// `for await` backpressure: with highWaterMark events queued and the consumer stalled, the fetch
// transport stops reading the body's reader, the fetch stops reading the socket, and the server's writes
// back up, as they do through the Dispatcher transport; then every event arrives, in order.
const COUNT = 512
const SIZE = 64 * 1024
const EVENTS = Array.from({ length: COUNT }, (_, i) => {
  const head = `data: ${String(i).padStart(4, '0')} `
  // Random characters, so that gzip keeps them large.
  return Buffer.from(head + require('node:crypto').randomBytes(SIZE).toString('base64').slice(0, SIZE - head.length - 2) + '\n\n')
})
const GZIPPED = zlib.gzipSync(Buffer.concat(EVENTS))

for (const [name, init] of PAIRS) {
  for (const coding of ['identity', 'gzip']) {
    t.test(`backpressure, ${name}, ${coding}: a stalled consumer holds the server back`, async (t) => {
      const log = []
      const server = await serve(t, (req, res) => {
        let refused = 0
        if (coding === 'gzip') {
          res.writeHead(200, { ...SSE_HEADERS, 'content-encoding': 'gzip' })
          if (!res.write(GZIPPED)) refused++
        } else {
          res.writeHead(200, SSE_HEADERS)
          for (const event of EVENTS) if (!res.write(event)) refused++
        }
        res.end()
        log.push({ url: req.url, res, refused, total: res.writableLength })
      })
      const es = open(t, server.url('/stalled'), { ...init, highWaterMark: 2, reconnectionTime: 60000 })
      let dispatched = 0
      es.addEventListener('message', () => dispatched++)
      const iterator = es[Symbol.asyncIterator]()
      t.equal((await iterator.next()).value.data.slice(0, 4), '0000')
      const stalled = log[0]
      t.ok(stalled.refused > 0, 'res.write() returned false')
      // A control source on the same transport reads the same body to its end meanwhile.
      const control = open(t, server.url('/control'), init)
      await record(control).wait('message', COUNT, 20000)
      control.close()
      t.equal(log[1].res.writableLength, 0, 'the control stream was read to the end meanwhile')
      t.ok(stalled.res.writableLength > stalled.total / 2,
        `the stalled response still holds ${stalled.res.writableLength} of ${stalled.total} bytes`)
      t.equal(stalled.res.writableFinished, false, 'and has not finished')
      t.ok(dispatched < 32, `the stalled source dispatched ${dispatched} events of ${COUNT}`)

      const finished = onceBounded(stalled.res, 'finish', 20000)
      let next = 1
      for (;;) {
        const { value, done } = await iterator.next()
        if (done) break
        if (value.data !== EVENTS[next].toString('latin1', 6, SIZE - 2)) t.fail(`event ${next}`)
        if (++next === COUNT) break
      }
      t.equal(next, COUNT, 'every event arrived, in order')
      await finished
      t.equal(stalled.res.writableLength, 0, 'the server wrote everything once the consumer read')
      await iterator.return()
    })
  }
}

for (const [name, init] of PAIRS) {
  t.test(`backpressure, ${name}: a reconnection while the queue is full starts paused`, async (t) => {
    const log = []
    const server = await serve(t, (req, res) => {
      // The first response: three events, then the end, with nobody reading: the queue (highWaterMark 2)
      // is full when the source reconnects.
      if (req.url === '/stalled' && log.length === 0) {
        log.push({ url: req.url, res })
        return sse(res, 'data: a\n\ndata: b\n\ndata: c\n\n')
      }
      res.writeHead(200, SSE_HEADERS)
      for (const event of EVENTS) res.write(event)
      res.end()
      log.push({ url: req.url, res, total: res.writableLength })
    })
    const es = open(t, server.url('/stalled'), { ...init, highWaterMark: 2, reconnectionTime: 0 })
    const rec = record(es)
    const iterator = es[Symbol.asyncIterator]()
    await rec.wait('open', 2)
    t.same(rec.types, ['open', 'message', 'message', 'message', 'error', 'open'], 'reconnected, nothing read')
    const stalled = log[1]
    const control = open(t, server.url('/control'), init)
    await record(control).wait('message', COUNT, 20000)
    control.close()
    t.ok(stalled.res.writableLength > stalled.total / 2,
      `the second response still holds ${stalled.res.writableLength} of ${stalled.total} bytes`)
    t.equal(rec.count('message'), 3, 'and none of its events was dispatched')
    const data = []
    for (let i = 0; i < 4; i++) data.push((await iterator.next()).value.data)
    t.same(data.slice(0, 3), ['a', 'b', 'c'])
    t.equal(data[3].slice(0, 4), '0000', 'then the second response, once the consumer reads')
    await iterator.return()
  })
}
