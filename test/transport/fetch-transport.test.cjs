'use strict'

// What only the fetch transport (lib/transport/fetch-transport.js) has: the call each attempt makes to a fetch (the
// init it receives), what it does with a fetch that throws, rejects or resolves with something that is
// not a Response, the opaque redirects of browsers, the abort signal, and when it is chosen (in child
// processes: undici left unloaded, a runtime without a usable undici). test/transport/transport-parity.test.cjs
// shows it reports what the Dispatcher transport reports.

const t = require('tap')
const path = require('node:path')
const { Readable } = require('node:stream')
const { EventSource } = require('../../')
const { FetchAttempt } = require('../../lib/transport/fetch-transport')
const nodeRedirects = require('../../lib/transport/redirect-policy-node')
const { buildRequest } = require('../../lib/transport/request')
const { createInitResolver } = require('../../lib/eventsource/init')
const { resolveExtensions } = require('../../lib/eventsource/init-extensions')

const resolveInit = createInitResolver({ resolveExtensions })
const { SSE_HEADERS, serve, sse, open, record, bounded, deferred, onceBounded, runChild } = require('../helpers/index.cjs')

const { CONNECTING, OPEN, CLOSED } = EventSource
const CHILD = path.join(__dirname, '..', 'children', 'fetch-transport.cjs')
// Node 22 and later: the global MessageEvent is the undici inside Node, and using it fills undici's global
// slot with that undici's Agent (lib/transport/dispatchers.js).
const MESSAGE_EVENT_IS_UNDICI = Number(process.versions.node.split('.')[0]) >= 22

/** A user's fetch: Node's, recording each call's arguments (and what the signal was at the call). */
function recordingFetch (calls, inner = globalThis.fetch) {
  return (input, init) => {
    calls.push({ input, init, aborted: init.signal.aborted })
    return inner(input, init)
  }
}

t.test('the init each call receives', async (t) => {
  const server = await serve(t, (req, res, i) => {
    if (i === 0) return res.writeHead(401, { 'www-authenticate': 'Basic' }).end()
    sse(res, 'id: 5\ndata: a\n\n', { end: i === 1 })
  })
  const calls = []
  const es = open(t, `http://user:pw@127.0.0.1:${server.port}/events?q=1#frag`, {
    fetch: recordingFetch(calls), reconnectionTime: 10, headers: { 'x-token': 't' }
  })
  await record(es).wait('open', 2)
  es.close()
  t.equal(calls.length, 3, 'the 401, its answer, the reconnection')
  const base = {
    method: 'GET',
    body: null,
    redirect: 'follow',
    mode: 'cors',
    cache: 'no-store',
    credentials: 'same-origin'
  }
  for (const [i, call] of calls.entries()) {
    // fetch refuses a URL with credentials: they answer the 401 instead. (The fragment is the fetch's
    // to leave out, as the request URL of the standard has it.)
    t.equal(call.input, `${server.origin}/events?q=1#frag`, `call ${i}: the URL without credentials`)
    t.equal(server.requests[i].url, '/events?q=1')
    const { headers, signal, ...rest } = call.init
    t.same(rest, base, `call ${i}: the request's modes`)
    t.ok(signal instanceof AbortSignal, `call ${i}: a signal`)
    t.equal(call.aborted, false)
    t.equal(headers.accept, 'text/event-stream')
    t.equal(headers['x-token'], 't')
  }
  t.equal(calls[0].init.headers.authorization, undefined, 'no Authorization up front')
  t.equal(calls[1].init.headers.authorization, `Basic ${Buffer.from('user:pw').toString('base64')}`, 'the answer to the 401')
  t.equal(calls[2].init.headers['last-event-id'], '5', 'the reconnection')
  t.equal(calls[2].init.headers.authorization, undefined, 'a new attempt: a new 401 to answer, if the server asks')
  t.equal(calls[0].init.signal, calls[1].init.signal, 'one signal for the hops of one attempt')
  t.not(calls[1].init.signal, calls[2].init.signal, 'a new one for the next attempt')
  // A user's fetch follows redirects itself (test/transport/fetch-wrapper-redirects.test.cjs); fetch's own Pragma
  // and Cache-Control come from cache 'no-store'.
  t.equal(calls[0].init.headers['cache-control'], undefined, 'Cache-Control is the fetch\'s to add')
  t.equal(server.requests[0].headers['cache-control'], 'no-cache')
  t.equal(server.requests[0].headers.pragma, 'no-cache')
})

t.test('withCredentials: credentials mode include; a POST: its method, headers and body', async (t) => {
  const server = await serve(t, (req, res) => sse(res))
  const calls = []
  const body = Buffer.from([0, 1, 2, 255])
  const es = open(t, server.url('/'), { fetch: recordingFetch(calls), withCredentials: true, method: 'PUT', body })
  await record(es).wait('open')
  es.close()
  t.equal(calls[0].init.credentials, 'include')
  t.equal(calls[0].init.method, 'PUT')
  // Bytes go as an ArrayBuffer of their own: a body every fetch takes.
  t.ok(calls[0].init.body instanceof ArrayBuffer)
  t.same(Buffer.from(calls[0].init.body), body)
  t.equal((await server.request(0)).body.toString('hex'), '000102ff')
  const text = open(t, server.url('/'), { fetch: recordingFetch(calls), method: 'POST', body: 'hé' })
  await record(text).wait('open')
  text.close()
  t.equal(calls[1].init.credentials, 'same-origin')
  t.equal(calls[1].init.body, 'hé')
  t.equal(calls[1].init.headers['content-type'], 'text/plain;charset=UTF-8')
  t.equal((await server.request(1)).body.toString(), 'hé')
})

t.test('a fetch that throws synchronously, or rejects: a network error, reestablished', async (t) => {
  const server = await serve(t, (req, res) => sse(res, 'data: through\n\n', { end: false }))
  const thrown = new Error('no network today')
  for (const [label, failure, message, cause] of [
    ['throws', () => { throw thrown }, 'no network today', (c) => c === thrown],
    ['rejects', () => Promise.reject(thrown), 'no network today', (c) => c === thrown],
    // What is not an Error becomes one, as the cause of an error event is.
    ['rejects with a string', () => Promise.reject('offline'), 'offline', (c) => c instanceof Error && c.message === 'offline'] // eslint-disable-line prefer-promise-reject-errors
  ]) {
    let calls = 0
    const es = open(t, server.url('/'), {
      reconnectionTime: 10,
      fetch: (input, init) => ++calls === 1 ? failure() : globalThis.fetch(input, init)
    })
    const rec = record(es)
    await rec.wait('message')
    es.close()
    t.same(rec.types, ['error', 'open', 'message'], `${label}: reconnected`)
    const [error] = rec.of('error')
    t.equal(error.readyState, CONNECTING)
    t.equal(error.event.code, 'ERR_EVENTSOURCE_NETWORK')
    t.equal(error.event.message, `The connection to ${server.origin} failed: ${message}`)
    t.ok(cause(error.event.cause), `${label}: the cause`)
  }
})

t.test('a fetch that resolves with something that is not a Response: the connection fails', async (t) => {
  const server = await serve(t, (req, res) => sse(res, 'data: x\n\n'))
  const unhandled = []
  const onUnhandled = (reason) => unhandled.push(reason)
  process.on('unhandledRejection', onUnhandled)
  t.teardown(() => process.off('unhandledRejection', onUnhandled))
  const cases = [
    [undefined, 'Received undefined'],
    ['text/event-stream', "Received type string ('text/event-stream')"],
    [{ status: 200 }, 'Received an instance of Object'],
    // node-fetch's bodies are Node streams, not WHATWG ReadableStreams.
    [{ status: 200, headers: new Headers(SSE_HEADERS), body: Readable.from(['data: x\n\n']) }, 'Received an instance of Object']
  ]
  for (const [value, received] of cases) {
    let calls = 0
    const es = open(t, server.url('/'), { reconnectionTime: 10, fetch: async () => { calls++; return value } })
    const rec = record(es)
    const { event } = await rec.wait('error')
    t.equal(rec.events[0].readyState, CLOSED, 'not retried: the fetch would resolve with the same')
    t.equal(event.code, 'ERR_INVALID_ARG_TYPE')
    t.equal(event.message, 'The "the result of init.fetch()" property must be a Response (with a status, headers and a ' +
      `ReadableStream body or none). ${received}`)
    t.equal(calls, 1)
  }
  // A body already read cannot be read again: its reader is refused, which fails the connection too.
  const used = open(t, server.url('/'), {
    fetch: async (input, init) => {
      const response = await globalThis.fetch(input, init)
      await response.text()
      return response
    }
  })
  const rec = record(used)
  await rec.wait('error')
  t.same(rec.events.map((e) => [e.type, e.readyState]), [['open', OPEN], ['error', CLOSED]])
  t.equal(rec.of('error')[0].event.cause.name, 'TypeError')
  t.same(unhandled, [], 'no unhandled rejection')
})

t.test('a response without a body: open, then the end of the stream', async (t) => {
  const server = await serve(t, (req, res) => sse(res, 'data: never read\n\n'))
  const es = open(t, server.url('/'), {
    reconnectionTime: 10,
    fetch: async (input, init) => {
      const response = await globalThis.fetch(input, init)
      await response.body.cancel()
      return new Response(null, { status: response.status, headers: response.headers })
    }
  })
  const rec = record(es)
  await rec.wait('open', 2)
  es.close()
  t.same(rec.types, ['open', 'error', 'open'])
  t.equal(rec.of('error')[0].code, 'ERR_EVENTSOURCE_STREAM_ENDED')
})

// A browser's fetch answers `redirect: 'manual'` with an "opaqueredirect" filtered response: status 0,
// no headers, no Location. The transport then asks again and lets the fetch follow the redirects itself.
// Only the runtime's fetch is asked for 'manual' (a user's follows redirects itself), and only outside a
// browser, where the runtime is one that shows redirects: these run the transport on its own, with a
// fetch standing for a runtime's that hides them after all, reporting to a recording sink.
const OPAQUE_REDIRECT = { type: 'opaqueredirect', status: 0, statusText: '', headers: new Headers(), body: null, url: '', redirected: false }

function browserLikeFetch (calls) {
  return (input, init) => {
    calls.push({ input, redirect: init.redirect, method: init.method })
    if (init.redirect === 'manual') return Promise.resolve(OPAQUE_REDIRECT)
    return globalThis.fetch(input, init)
  }
}

/** An attempt of the fetch transport, started, and what it reported: resolves at its first report. */
function attempt (fetch, url, dict, usersFetch) {
  const request = buildRequest(resolveInit(dict), { attempt: 1, sourceUrl: url, url, method: dict.method ?? 'GET', lastEventId: '' })
  const reported = deferred()
  let connection = null
  const sink = {
    opened: (response) => { connection.abort(); reported.resolve(['opened', response]) },
    data () {},
    ended: () => reported.resolve(['ended']),
    networkError: (error) => reported.resolve(['networkError', error]),
    failed: (error) => reported.resolve(['failed', error])
  }
  connection = new FetchAttempt(fetch, request, sink, usersFetch, nodeRedirects)
  connection.start()
  return bounded(reported.promise, 'the attempt\'s first report')
}

t.test('the runtime\'s fetch, an opaque redirect: asked again with "follow"; a GET goes on at the final URL', async (t) => {
  const server = await serve(t, (req, res) => req.url === '/start'
    ? res.writeHead(302, { location: '/final' }).end()
    : sse(res, 'id: 1\ndata: here\n\n'))
  const calls = []
  const [report, response] = await attempt(browserLikeFetch(calls), server.url('/start'), {}, false)
  t.equal(report, 'opened')
  t.same([response.status, response.url, response.method], [200, server.url('/final'), 'GET'],
    'the next attempt goes to the final URL the fetch reported')
  t.same(calls.map((c) => [c.input.replace(server.origin, ''), c.redirect]), [['/start', 'manual'], ['/start', 'follow']])
  t.same(server.requests.map((r) => r.url), ['/start', '/final'])
})

t.test('the runtime\'s fetch, an opaque redirect of a POST: the method it ended with is unknown', async (t) => {
  const server = await serve(t, (req, res) => req.url === '/start'
    ? res.writeHead(303, { location: '/final' }).end()
    : sse(res, 'data: here\n\n'))
  const calls = []
  const [report, response] = await attempt(browserLikeFetch(calls), server.url('/start'), { method: 'POST', body: 'b' }, false)
  t.equal(report, 'opened')
  t.equal(response.method, null, 'null: the next attempt starts over from the first URL')
  t.same(calls.map((c) => [c.redirect, c.method]), [['manual', 'POST'], ['follow', 'POST']])
  t.same(server.requests.map((r) => `${r.method} ${r.url}`), ['POST /start', 'GET /final'])
})

t.test('a fetch that answers every request with an opaque redirect: asked twice, then its response', async (t) => {
  const calls = []
  const fetch = (input, init) => {
    calls.push(init.redirect)
    return Promise.resolve(OPAQUE_REDIRECT)
  }
  const [report, response] = await attempt(fetch, 'http://127.0.0.1:1/', {}, false)
  t.same(calls, ['manual', 'follow'])
  t.same([report, response.status], ['opened', 0], 'a status of 0, which fails the connection')
  // Through an EventSource: a user's fetch is asked to follow from the first call.
  const es = open(t, 'http://127.0.0.1:1/', { reconnectionTime: 10, fetch })
  const rec = record(es)
  const { event } = await rec.wait('error')
  t.same(calls.slice(2), ['follow'])
  t.same([rec.events[0].readyState, event.code, event.status], [CLOSED, 'ERR_EVENTSOURCE_BAD_STATUS', 0])
})

t.test('a user\'s fetch asked for "manual" (the request carries a Cookie) that answers with an opaque redirect: refused', async (t) => {
  const calls = []
  const [report, error] = await attempt(browserLikeFetch(calls), 'http://127.0.0.1:1/', { headers: { cookie: 'a=1' } }, true)
  t.same(calls.map((c) => c.redirect), ['manual'], 'not asked again to follow: the cookie would go wherever the redirect goes')
  t.same([report, error.code, error.message], ['failed', 'ERR_EVENTSOURCE_INVALID_REDIRECT', 'The server redirected to a URL your fetch does not show'])
})

t.test('the signal aborts the user\'s fetch: close(), connectTimeout', async (t) => {
  for (const how of ['close()', 'connectTimeout']) {
    const called = deferred()
    const aborted = deferred()
    const es = open(t, 'http://127.0.0.1:1/', {
      connectTimeout: how === 'connectTimeout' ? 20 : 0,
      reconnectionTime: 60_000,
      // A fetch that never answers, but honours its signal, as fetch does.
      fetch: (input, { signal }) => new Promise((resolve, reject) => {
        signal.addEventListener('abort', () => {
          aborted.resolve(signal.reason)
          reject(signal.reason)
        })
        called.resolve()
      })
    })
    const rec = record(es)
    await bounded(called.promise, 'the fetch')
    if (how === 'close()') es.close()
    const reason = await bounded(aborted.promise, 'the abort')
    t.equal(reason.code, 'ERR_EVENTSOURCE_ABORTED', `${how}: the signal's reason`)
    if (how === 'close()') {
      t.same(rec.types, [], 'close(): nothing dispatched')
    } else {
      const { event } = await rec.wait('error')
      t.equal(event.code, 'ERR_EVENTSOURCE_CONNECT_TIMEOUT', 'the timeout is the error, not the abort')
      t.equal(rec.count('error'), 1)
      es.close()
    }
  }
})

t.test('a response the fetch delivers after close() is cancelled', async (t) => {
  let closed = null
  const server = await serve(t, (req, res) => {
    closed = onceBounded(res, 'close')
    sse(res, 'data: x\n\n', { end: false })
  })
  const delivered = deferred()
  const es = open(t, server.url('/'), {
    // A fetch that does not honour the signal: its response arrives after close().
    fetch: async (input, init) => {
      const response = await globalThis.fetch(input, { ...init, signal: undefined })
      es.close()
      delivered.resolve(response)
      return response
    }
  })
  const rec = record(es)
  const response = await bounded(delivered.promise, 'the response')
  await closed
  t.equal(response.bodyUsed, true, 'its body was cancelled, and the server saw the request end')
  t.same(rec.types, [], 'nothing dispatched')
})

// Which transport a source takes, in fresh processes (test/children/fetch-transport.cjs).
const EXPECTED = [['open', OPEN], ['message', 'a', '1'], ['error', CONNECTING], ['open', OPEN], ['message', 'b', '1']]

async function transportChild (t, mode) {
  const server = await serve(t, (req, res, i) => sse(res, i === 0 ? 'id: 1\ndata: a\n\n' : 'data: b\n\n', { end: i === 0 }))
  const child = runChild(t, [CHILD, mode, server.url('/'), JSON.stringify(EXPECTED)], { isolate: true })
  const { code, report } = await child.exited()
  t.equal(code, 0, `${mode}: the child ran`)
  t.equal(report.error, undefined)
  t.same(report.log, EXPECTED, `${mode}: the stream, its reconnection`)
  t.equal(server.requests[1].headers['last-event-id'], '1')
  // The transport of each of the two attempts: the attempts of each kind constructed.
  const attempts = (file, name) => report.lib[file]?.[name] ?? 0
  const transports = {
    fetch: attempts('transport/fetch-transport.js', 'FetchAttempt'),
    dispatcher: attempts('transport/dispatcher-transport.js', 'DispatcherAttempt')
  }
  return { report, transports }
}

const VIA_FETCH = { fetch: 2, dispatcher: 0 }
const VIA_DISPATCHER = { fetch: 0, dispatcher: 2 }

// Whether any function of a file of lib/ ran (the child's counts: the modules' bodies left out).
const ran = (calls, file) => Object.keys(calls[file] ?? {}).length > 0

t.test('with `fetch` in the init, undici is never loaded', async (t) => {
  const { report, transports } = await transportChild(t, 'init-fetch')
  t.same(transports, VIA_FETCH, 'both attempts through the fetch transport')
  t.same(report.undici, [], 'no file of node_modules/undici in require.cache')
  // The control: the same stream without `fetch` loads undici (on Node 20; later, the one inside Node).
  const control = await transportChild(t, 'dispatcher')
  t.same(control.transports, VIA_DISPATCHER)
  if (!MESSAGE_EVENT_IS_UNDICI) t.ok(control.report.undici.length > 0, `the Dispatcher transport loaded ${control.report.undici.length} files of undici`)
})

// Cold start (lib/transport/dispatchers.js): require('undici') costs about three times what its Agent does,
// and on Node 22 and later the global MessageEvent loads the undici inside Node, which fills the slot.
t.test('the Dispatcher transport loads one undici: the Agent of the one inside Node, or of the package', async (t) => {
  const { report, transports } = await transportChild(t, 'dispatcher')
  t.same(transports, VIA_DISPATCHER, 'both attempts through the Dispatcher transport')
  if (MESSAGE_EVENT_IS_UNDICI) {
    t.ok(report.nodeUndici)
    t.same(report.undici, [], 'Node 22 and later: the undici inside Node (its MessageEvent), not the package')
  } else {
    t.ok(report.undici.includes('lib/global.js'), 'Node 20: the default Agent installed by undici\'s lib/global.js')
    t.notOk(report.undici.includes('index.js'), 'not undici\'s index.js')
    t.notOk(report.undici.some((file) => file.startsWith('lib/web/')), 'nor its fetch, WebSocket or EventSource')
  }
  // The package's own modules are all loaded (the entry's static imports): what this EventSource does not
  // use is code that never runs. Not the stream classes, the fetch transport or the HTTP/2 sessions
  // (lib/transport/transport-node.js).
  t.ok(ran(report.lib, 'eventsource/eventsource.js'))
  for (const file of ['parser/node-stream.js', 'parser/web-stream.js', 'transport/fetch-transport.js',
    'transport/http2-sessions.js']) {
    t.same(report.lib[file] ?? {}, {}, `no function of lib/${file} ran`)
  }
  // Nor, by its first event, what only a `for await`, a body with a Content-Encoding, an error event or
  // a reconnection needs. The last two ran with the reconnection (the stream ended once).
  t.ok(ran(report.libAtFirstMessage, 'eventsource/eventsource.js'))
  for (const file of ['eventsource/message-iterator.js', 'transport/content-decoding.js', 'eventsource/error-event.js',
    'eventsource/reconnect-policy.js']) {
    t.same(report.libAtFirstMessage[file] ?? {}, {}, `no function of lib/${file} ran by the first event`)
  }
  const reconnection = ['eventsource/error-event.js', 'eventsource/reconnect-policy.js', 'errors/messages-node.js']
  t.ok(reconnection.every((file) => ran(report.lib, file)), 'the reconnection ran what it needs')
})

t.test('a global slot already filled (Node\'s fetch ran first): its dispatcher, and the undici package never loaded', async (t) => {
  const { report, transports } = await transportChild(t, 'node-fetch')
  t.same(transports, VIA_DISPATCHER, 'the Dispatcher transport, on the Agent inside Node')
  t.same(report.undici, [])
})

t.test('a runtime without a usable undici dispatcher: the fetch transport, with globalThis.fetch', async (t) => {
  // Bun (process.versions.bun) always; where require('undici') fails or is another runtime's module, on
  // Node 20 only: Node 22 and later have the undici inside Node, which their MessageEvent loads.
  for (const mode of ['no-undici', 'foreign-undici', 'bun']) {
    const { report, transports } = await transportChild(t, mode)
    const fetchExpected = mode === 'bun' || !MESSAGE_EVENT_IS_UNDICI
    t.same(transports, fetchExpected ? VIA_FETCH : VIA_DISPATCHER,
      `${mode}: every attempt through ${fetchExpected ? 'fetch' : 'the Agent inside Node'}`)
    t.same(report.undici, [])
  }
})

t.test('in a document (a browser): redirects are left to the runtime\'s fetch from the first call', async (t) => {
  const target = await serve(t, (req, res, i) => sse(res, i === 0 ? 'id: 1\ndata: a\n\n' : 'data: b\n\n', { end: i === 0 }))
  const start = await serve(t, (req, res) => res.writeHead(302, { location: target.url('/final') }).end())
  const child = runChild(t, [CHILD, 'document', start.url('/start'), JSON.stringify(EXPECTED)], { isolate: true })
  const { code, report } = await child.exited()
  t.equal(code, 0)
  t.equal(report.error, undefined)
  t.same(report.log, EXPECTED)
  t.same(report.redirects, ['follow', 'follow'], 'no call with redirect "manual"')
  // The fetch followed the redirect; the reconnection (a GET) goes to its final URL, of another origin:
  // the runtime's fetch adds nothing of a user's to it (a browser's does what Chromium's EventSource does).
  t.equal(start.requests.length, 1)
  t.same(target.requests.map((r) => r.url), ['/final', '/final'])
  t.equal(target.requests[1].headers['last-event-id'], '1')
})
