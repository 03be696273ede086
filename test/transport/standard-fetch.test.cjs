'use strict'

// The standard attempt (lib/transport/standard-fetch.js), which a browser or worker build sends every
// request with until `whatwg-eventsource/extensions` is imported, run here on Node's own fetch against
// real servers: what it sends (the standard's request, lib/transport/request.js's standardRequest), what it reports, and
// that it reports what FetchAttempt (lib/transport/fetch-transport.js), which takes its place once the
// extensions are registered, reports for the same request. test/eventsource/extensions.test.cjs runs the
// browser build's EventSource with it end to end.

const t = require('tap')
const { StandardFetchAttempt } = require('../../lib/transport/standard-fetch')
const { FetchAttempt } = require('../../lib/transport/fetch-transport')
const nodeRedirects = require('../../lib/transport/redirect-policy-node')
const { standardRequest, buildRequest } = require('../../lib/transport/request')
const { createInitResolver } = require('../../lib/eventsource/init')
const { resolveExtensions } = require('../../lib/eventsource/init-extensions')

const resolveInit = createInitResolver({ resolveExtensions })
const { serve, sse, closedPort, deferred, bounded, macrotask } = require('../helpers/index.cjs')
const { importBrowserBuild } = require('../helpers/bundle.cjs')

const STANDARD_INIT = { withCredentials: false, connectTimeout: 30_000 }

function target (url, lastEventId = '') {
  return { attempt: 1, sourceUrl: url, url, method: 'GET', lastEventId, previous: null }
}

/**
 * Runs one attempt to its last report; resolves with what the sink was told, in order. `onOpened(attempt)`
 * runs in the sink's opened().
 */
function run (Attempt, url, { lastEventId = '', init = STANDARD_INIT, onOpened } = {}) {
  const reports = []
  const done = deferred()
  const decoder = new TextDecoder()
  const sink = {
    opened ({ status, headers, url, method }) {
      reports.push(['opened', status, headers['content-type'], url, method])
      onOpened?.(attempt)
    },
    data (chunk) {
      const text = decoder.decode(chunk, { stream: true })
      if (reports.at(-1)?.[0] === 'data') reports.at(-1)[1] += text
      else reports.push(['data', text])
    },
    ended () { reports.push(['ended']); done.resolve(reports) },
    networkError (error) { reports.push(['networkError', error.code]); reports.error = error; done.resolve(reports) },
    failed (error) { reports.push(['failed', error.code]); reports.error = error; done.resolve(reports) }
  }
  const attempt = Attempt === StandardFetchAttempt
    ? new StandardFetchAttempt(standardRequest(init, target(url, lastEventId)), sink)
    : new FetchAttempt(globalThis.fetch, buildRequest(resolveInit({}), target(url, lastEventId)), sink, false, nodeRedirects)
  attempt.start()
  return { attempt, log: reports, reports: bounded(done.promise, `the last report of ${url}`) }
}

/** Runs `fn` with globalThis.fetch replaced by `fetch`, until the promise it returns settles. */
async function withFetch (fetch, fn) {
  const original = globalThis.fetch
  globalThis.fetch = fetch
  try {
    return await fn()
  } finally {
    globalThis.fetch = original
  }
}

t.test('the standard request: a GET with Accept and Last-Event-ID, cache no-store; the stream to its end', async (t) => {
  const server = await serve(t, (req, res) => sse(res, 'data: é\n\n'))
  const { reports } = run(StandardFetchAttempt, server.url('/events?q=1'), { lastEventId: 'id é' })
  t.same(await reports, [
    ['opened', 200, 'text/event-stream', server.url('/events?q=1'), 'GET'],
    ['data', 'data: é\n\n'],
    ['ended']
  ])
  const { method, headers } = server.requests[0]
  t.equal(method, 'GET')
  t.equal(headers.accept, 'text/event-stream')
  t.equal(Buffer.from(headers['last-event-id'], 'latin1').toString(), 'id é', 'Last-Event-ID, as UTF-8')
  t.equal(headers['cache-control'], 'no-cache', 'cache mode no-store')
  t.equal(headers.pragma, 'no-cache')

  const request = standardRequest(STANDARD_INIT, target(server.url(), 'a\nb'))
  t.same(request.headers, { accept: 'text/event-stream' }, 'an ID a header cannot carry is left out')
  t.ok(Object.isFrozen(request) && Object.isFrozen(request.headers), 'frozen, as every request')
  t.equal(standardRequest({ withCredentials: true, connectTimeout: 30_000 }, target(server.url())).withCredentials, true)
})

t.test('it reports what FetchAttempt reports for the same request', async (t) => {
  const other = await serve(t, (req, res) => sse(res, 'data: there\n\n'))
  const server = await serve(t, (req, res) => {
    if (req.url === '/redirect') return res.writeHead(302, { location: '/final' }).end()
    if (req.url === '/elsewhere') return res.writeHead(307, { location: other.url('/x') }).end()
    if (req.url === '/500') return res.writeHead(500, { 'content-type': 'text/plain' }).end('no')
    if (req.url === '/type') return res.writeHead(200, { 'content-type': 'text/html' }).end('<p>')
    if (req.url === '/cut') {
      sse(res, 'data: half', { end: false })
      return setImmediate(() => res.socket.destroy())
    }
    sse(res, `data: ${req.url}\n\n`)
  })
  const port = await closedPort()
  const urls = [
    server.url('/'), server.url('/redirect'), server.url('/elsewhere'), server.url('/500'), server.url('/type'),
    server.url('/cut'), `http://127.0.0.1:${port}/`, 'ftp://127.0.0.1/', 'data:text/event-stream,data:%20x%0A%0A'
  ]
  for (const url of urls) {
    const standard = await run(StandardFetchAttempt, url).reports
    const full = await run(FetchAttempt, url).reports
    t.same(standard, full, url)
  }
  const redirected = await run(StandardFetchAttempt, server.url('/elsewhere')).reports
  t.same(redirected[0], ['opened', 200, 'text/event-stream', other.url('/x'), 'GET'], 'the final URL, for the next attempt')
})

t.test('a failed fetch: ERR_EVENTSOURCE_NETWORK, its cause what the fetch rejected with', async (t) => {
  const port = await closedPort()
  const { reports } = run(StandardFetchAttempt, `http://user:secret@127.0.0.1:${port}/`)
  const result = await reports
  t.same(result, [['networkError', 'ERR_EVENTSOURCE_NETWORK']])
  t.equal(result.error.url, `http://127.0.0.1:${port}/`, 'the URL without its credentials')
  t.equal(result.error.cause.message, 'fetch failed', 'Node\'s fetch error itself (a browser\'s has no cause to unwrap)')

  for (const thrown of [new Error('thrown'), 'a string']) {
    const result = await withFetch(() => { throw thrown }, () => run(StandardFetchAttempt, `http://127.0.0.1:${port}/`).reports)
    t.same(result, [['networkError', 'ERR_EVENTSOURCE_NETWORK']])
    t.ok(result.error.cause instanceof Error, 'the cause is an Error')
    t.equal(result.error.cause.message, String(thrown.message ?? thrown))
  }
})

t.test('a global fetch that resolves with something else fails the connection, as FetchAttempt\'s does', async (t) => {
  for (const value of [undefined, { status: 200 }]) {
    const standard = await withFetch(async () => value, () => run(StandardFetchAttempt, 'http://127.0.0.1:1/').reports)
    const full = await withFetch(async () => value, () => run(FetchAttempt, 'http://127.0.0.1:1/').reports)
    t.same(standard, [['failed', 'ERR_INVALID_ARG_TYPE']])
    t.same(standard, full)
    t.ok(standard.error.message.startsWith('The "the result of globalThis.fetch()" '), standard.error.message)
  }
  // A response without a body: opened, then ended.
  const empty = await withFetch(async () => new Response(null, { headers: { 'content-type': 'text/event-stream' } }),
    () => run(StandardFetchAttempt, 'http://127.0.0.1:1/').reports)
  t.same(empty, [['opened', 200, 'text/event-stream', 'http://127.0.0.1:1/', 'GET'], ['ended']])
})

t.test('redirects the fetch followed from https: to http: fail the connection', async (t) => {
  const server = await serve(t, (req, res) => sse(res, 'data: clear text\n\n'))
  // The fetch a browser would make, as Node's cannot reach an https: URL here without a CA: the response of
  // the http: server, seen as the end of redirects from the https: URL the attempt asked for.
  const asked = []
  const nodeFetch = globalThis.fetch
  const redirectingFetch = async (url, init) => {
    asked.push(url)
    const response = await nodeFetch(server.url('/'), init)
    return Object.defineProperties(response, { redirected: { value: true }, url: { value: server.url('/') } })
  }
  const result = await withFetch(redirectingFetch, () => run(StandardFetchAttempt, 'https://127.0.0.1:1/').reports)
  t.same(asked, ['https://127.0.0.1:1/'])
  t.same(result, [['failed', 'ERR_EVENTSOURCE_INSECURE_REDIRECT']], 'nothing of the clear-text response is used')
  t.equal(result.error.url, 'https://127.0.0.1:1/')
  // http: to http: elsewhere is followed.
  const followed = await withFetch(redirectingFetch, () => run(StandardFetchAttempt, 'http://127.0.0.1:1/').reports)
  t.same(followed[0], ['opened', 200, 'text/event-stream', server.url('/'), 'GET'])
})

t.test('connectTimeout: a server that never answers is a network error', async (t) => {
  const closed = deferred()
  await serve(t, (req, res) => res.once('close', closed.resolve)).then(async (server) => {
    const { reports } = run(StandardFetchAttempt, server.url('/'), { init: { withCredentials: false, connectTimeout: 50 } })
    const result = await reports
    t.same(result, [['networkError', 'ERR_EVENTSOURCE_CONNECT_TIMEOUT']])
    t.match(result.error.message, /\b50\b/, result.error.message)
  })
  await bounded(closed.promise, 'the request aborted')
})

t.test('pause() stops reading the body until resume(); abort() ends it with no report', async (t) => {
  const gate = deferred()
  const written = deferred()
  const hangClosed = deferred()
  const server = await serve(t, async (req, res) => {
    sse(res, 'data: 1\n\n', { end: false })
    if (req.url === '/hang') return res.once('close', hangClosed.resolve)
    await gate.promise
    res.end('data: 2\n\n', written.resolve)
  })
  const opened = deferred()
  const { attempt, log, reports } = run(StandardFetchAttempt, server.url('/'), {
    onOpened: (attempt) => { attempt.pause(); opened.resolve() }
  })
  await bounded(opened.promise, 'the open')
  gate.resolve()
  await bounded(written.promise, 'the whole body written')
  for (let i = 0; i < 5; i++) await macrotask()
  t.same(log, [['opened', 200, 'text/event-stream', server.url('/'), 'GET']], 'nothing read while paused')
  attempt.resume()
  attempt.resume()
  t.same(await reports, [['opened', 200, 'text/event-stream', server.url('/'), 'GET'], ['data', 'data: 1\n\ndata: 2\n\n'], ['ended']])

  const hangingOpened = deferred()
  const hanging = run(StandardFetchAttempt, server.url('/hang'), { onOpened: () => hangingOpened.resolve() })
  hanging.reports.catch(() => {})
  await bounded(hangingOpened.promise, 'the open')
  hanging.attempt.abort()
  await bounded(hangClosed.promise, 'the request aborted')
  await macrotask()
  t.same(hanging.log, [['opened', 200, 'text/event-stream', server.url('/hang'), 'GET']], 'nothing reported after abort()')
  hanging.attempt.abort()

  // Aborted before start(): nothing is sent.
  let calls = 0
  await withFetch(() => { calls++ }, async () => {
    const attempt = new StandardFetchAttempt(standardRequest(STANDARD_INIT, target(server.url('/never'))), {})
    attempt.abort()
    attempt.start()
  })
  t.equal(calls, 0, 'no fetch for an attempt aborted before it started')
})

t.test('the browsers\' standard EventSource sends with it; the one with the extensions, with FetchAttempt', async (t) => {
  // The two transports of a browser build (lib/transport/transport-web.js), each the part of one EventSource
  // (lib/entries/web-eventsource.js, web-extended-eventsource.js). The build's own copies of both attempts' classes.
  const { exports: web } = await importBrowserBuild(t, `
    export { standardTransport, fetchTransport } from './lib/transport/transport-web.js'
    export { StandardFetchAttempt } from './lib/transport/standard-fetch.js'
    export { FetchAttempt } from './lib/transport/fetch-transport.js'
    export { standardRequest } from './lib/transport/request.js'
  `)
  t.not(web.StandardFetchAttempt, StandardFetchAttempt, 'a build of its own')

  const request = web.standardRequest(STANDARD_INIT, target('http://127.0.0.1:1/'))
  const standard = web.standardTransport.createAttempt(request, {})
  t.ok(standard instanceof web.StandardFetchAttempt && !(standard instanceof web.FetchAttempt), 'the standard attempt')
  // The request as the core builds it with the extensions (a plain object: Node's lib/ builds it).
  const full = web.fetchTransport.createAttempt(buildRequest(resolveInit({}), target('http://127.0.0.1:1/')), {})
  t.ok(full instanceof web.FetchAttempt, 'with the extensions: FetchAttempt')
})
