'use strict'

// The EventSource on dispatchers other than undici 7's default Agent: a ProxyAgent given as
// `dispatcher` or `node.dispatcher`, a global dispatcher set with setGlobalDispatcher() (undici 7 and
// undici 8), EnvHttpProxyAgent, and the Agent that Node's own fetch() installs as the global dispatcher
// (undici 6 on Node 20 and 22). Each case runs the same exchange against a real server: open, an
// event with an id, the end of the body, a reconnection that sends Last-Event-ID, a second event.
// The cases that need globals of their own run in a child process (test/children/dispatcher.cjs).

const t = require('tap')
const path = require('node:path')
// undici 7 is loaded first, so it owns the global dispatcher symbols of this process; undici 8 (loaded
// later, on Node >= 22.19 only) then leaves them alone.
const undici = require('undici')
const { EventSource } = require('../..')
const { serve, open, proxyServer, recordExpected, record: recordEvents, runChild } = require('../helpers/index.cjs')

const CHILD = path.join(__dirname, '..', 'children', 'dispatcher.cjs')

const [NODE_MAJOR, NODE_MINOR] = process.versions.node.split('.').map(Number)
const UNDICI8_SKIP = NODE_MAJOR > 22 || (NODE_MAJOR === 22 && NODE_MINOR >= 19)
  ? false
  : `undici 8 needs Node >= 22.19 (this is ${process.version})`

// What every exchange below must produce, in order.
const EXPECTED_LOG = [
  ['open', EventSource.OPEN],
  ['message', 'first', '1'],
  ['error', EventSource.CONNECTING],
  ['open', EventSource.OPEN],
  ['message', 'second', '2']
]

/**
 * The event stream server. GET /events: the first request gets `id: 1` / `data: first` and the end of
 * the body; every later one gets `id: 2` / `data: second` and stays open. GET /redirect: a 302 to
 * /events. GET /redirect-away: a 302 to /events on another origin (localhost). GET /no-content: a
 * 204. GET /plain: a text body. Each request is noted with the client port it came from.
 */
async function startServer (t, { connectionClose = false } = {}) {
  const srv = await serve(t, (req, res) => {
    req.remotePort = req.socket.remotePort
    const extra = connectionClose ? { connection: 'close' } : {}
    if (req.url === '/plain') {
      res.writeHead(200, { 'content-type': 'text/plain', ...extra })
      res.end('plain')
      return
    }
    if (req.url === '/redirect') {
      res.writeHead(302, { location: '/events', ...extra })
      res.end()
      return
    }
    if (req.url === '/redirect-away') {
      res.writeHead(302, { location: `http://localhost:${srv.port}/events`, ...extra })
      res.end()
      return
    }
    if (req.url === '/no-content') {
      res.writeHead(204, extra)
      res.end()
      return
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...extra })
    if (srv.requests.filter((r) => r.url === '/events').length === 1) res.end('id: 1\ndata: first\n\n')
    else res.write('id: 2\ndata: second\n\n')
  })
  const host = `127.0.0.1:${srv.port}`
  return {
    host,
    base: `http://${host}`,
    url: `http://${host}/events`,
    plainUrl: `http://${host}/plain`,
    paths: () => srv.requests.map((r) => r.url).filter((url) => url !== '/plain'),
    events: () => srv.requests.filter((r) => r.url === '/events')
  }
}

/** Records what an EventSource reports until it has reported EXPECTED_LOG (or `expected`), or strayed. */
const record = (es, expected = EXPECTED_LOG) => recordExpected(es, expected)

/** The request headers that prove the second request was a reconnection from the same EventSource. */
function checkReconnection (t, server) {
  const events = server.events()
  t.equal(events.length, 2, 'two requests: the first connection and one reconnection')
  t.equal(events[0]?.headers.accept, 'text/event-stream', 'Accept: text/event-stream')
  t.notOk(events[0]?.headers['last-event-id'], 'no Last-Event-ID on the first request')
  t.equal(events[1]?.headers['last-event-id'], '1', 'Last-Event-ID on the reconnection')
}

function checkProxied (t, server, proxy) {
  t.ok(proxy.seen.length >= 1, 'the proxy was used')
  for (const { method, target } of proxy.seen) {
    t.same([method, target], ['CONNECT', server.host], 'the proxy was asked for a tunnel to the server')
  }
  for (const [i, request] of server.events().entries()) {
    t.ok(proxy.upstreamPorts.has(request.remotePort), `request ${i} reached the server through the proxy`)
  }
}

/**
 * A server, a proxy and a ProxyAgent to it; whatever the global dispatcher is now, it is put back at
 * teardown, and the agent destroyed.
 */
async function proxied (t) {
  const server = await startServer(t)
  const proxy = await proxyServer(t)
  const agent = new undici.ProxyAgent(proxy.url)
  const original = undici.getGlobalDispatcher()
  t.teardown(() => {
    undici.setGlobalDispatcher(original)
    return agent.destroy()
  })
  return { server, proxy, agent }
}

/** Runs the child; resolves once it has exited on its own, with its report. */
async function runDispatcherChild (t, mode, server, { url = server.url, expected = EXPECTED_LOG, env = {} } = {}) {
  // Without the test runner's hooks (still with coverage): only what the child sets up runs in it.
  const child = runChild(t, [CHILD, mode, url, server.plainUrl, JSON.stringify(expected)], { env, isolate: true })
  return child.exited()
}

function checkChild (t, { code, signal, report, stderr }, expected = EXPECTED_LOG) {
  t.notOk(report.error, 'the child reported no error', { error: report.error, stderr })
  t.equal(code, 0, 'the child exited on its own with code 0', { stderr })
  t.equal(signal, null)
  t.same(report.log, expected, 'what the EventSource reported')
  t.equal(report.readyState, EventSource.CLOSED)
  t.equal(report.globalUnchanged, true, 'the EventSource did not replace the global dispatcher')
}

for (const [title, options, init] of [
  ['as init.dispatcher carries every request through the proxy',
    (url) => url, (dispatcher) => ({ dispatcher, reconnectionTime: 20 })],
  ['as init.node.dispatcher, the shape of Node\'s built-in EventSource',
    (url) => ({ uri: url }), (dispatcher) => ({ node: { dispatcher, reconnectionTime: 20 } })]
]) {
  t.test(`a ProxyAgent (undici 7) ${title}`, async (t) => {
    const server = await startServer(t)
    const proxy = await proxyServer(t)
    const agent = new undici.ProxyAgent(options(proxy.url))
    t.teardown(() => agent.destroy())

    const es = open(t, server.url, init(agent))
    t.same(await record(es), EXPECTED_LOG)
    checkReconnection(t, server)
    checkProxied(t, server, proxy)
    t.equal(proxy.seen[0].headers.host, server.host, 'CONNECT names the server')
  })
}

t.test('a ProxyAgent without tunnelling sends absolute-form requests to the proxy', async (t) => {
  const server = await startServer(t)
  const proxy = await proxyServer(t)
  const agent = new undici.ProxyAgent({ uri: proxy.url, proxyTunnel: false })
  t.teardown(() => agent.destroy())

  const es = open(t, server.url, { dispatcher: agent, reconnectionTime: 20 })
  t.same(await record(es), EXPECTED_LOG)
  checkReconnection(t, server)
  t.same(proxy.seen.map((r) => [r.method, r.target]), [['GET', server.url], ['GET', server.url]],
    'the proxy forwarded both requests')
  t.equal(proxy.seen[0].headers.accept, 'text/event-stream')
  t.equal(proxy.seen[1].headers['last-event-id'], '1')
  for (const [i, request] of server.events().entries()) {
    t.ok(proxy.upstreamPorts.has(request.remotePort), `request ${i} reached the server through the proxy`)
  }
})

t.test('setGlobalDispatcher(new ProxyAgent()) applies to an EventSource without a dispatcher option', async (t) => {
  const { server, proxy, agent } = await proxied(t)
  undici.setGlobalDispatcher(agent)

  const es = open(t, server.url, { reconnectionTime: 20 })
  t.same(await record(es), EXPECTED_LOG)
  checkReconnection(t, server)
  checkProxied(t, server, proxy)
})

t.test('the global dispatcher is looked up again for each reconnection', async (t) => {
  const { server, proxy, agent } = await proxied(t)

  const es = open(t, server.url, { reconnectionTime: 20 })
  // The first request goes out on the default Agent; once its body has ended, the proxy becomes the
  // global dispatcher, before the reconnection timer runs.
  es.addEventListener('error', () => undici.setGlobalDispatcher(agent), { once: true })
  t.same(await record(es), EXPECTED_LOG)
  checkReconnection(t, server)
  const [first, second] = server.events()
  t.notOk(proxy.upstreamPorts.has(first.remotePort), 'the first request went straight to the server')
  t.ok(proxy.upstreamPorts.has(second.remotePort), 'the reconnection went through the new global dispatcher')
  t.same(proxy.seen.map((r) => [r.method, r.target]), [['CONNECT', server.host]])
})

t.test('EnvHttpProxyAgent as the global dispatcher follows HTTP_PROXY (child process)', async (t) => {
  const server = await startServer(t)
  const proxy = await proxyServer(t)
  const result = await runDispatcherChild(t, 'env-proxy', server, { env: { HTTP_PROXY: proxy.url } })
  checkChild(t, result)
  t.equal(result.report.httpProxy, proxy.url)
  checkReconnection(t, server)
  checkProxied(t, server, proxy)
})

t.test('the global dispatcher that Node\'s own fetch() installs (child process)', async (t) => {
  // Every response closes its connection, so each request of the EventSource is one new connection
  // of the dispatcher it went through.
  const server = await startServer(t, { connectionClose: true })
  const result = await runDispatcherChild(t, 'node-fetch', server)
  const { report } = result
  t.comment(`Node ${process.version} bundles undici ${report.bundledUndici}; ` +
    `whatwg-eventsource has undici ${report.undiciVersion}; global dispatcher: ${report.constructorName}`)
  checkChild(t, result)
  t.equal(report.globalBeforeFetch, false, 'no global dispatcher before fetch()')
  t.equal(report.fetched, 'plain', 'fetch() reached the server')
  t.equal(report.isUndici7Agent, false, 'the global dispatcher is not an Agent of whatwg-eventsource\'s undici')
  t.equal(report.undici7SeesBundled, true, 'undici 7 reads the dispatcher that Node\'s fetch installed')
  if (NODE_MAJOR < 24) t.match(report.bundledUndici, /^6\./, 'Node 20 and 22 bundle undici 6 (the old handler API)')
  t.equal(report.connects, 2, 'both requests of the EventSource went through that dispatcher')
  checkReconnection(t, server)
})

t.test('a global dispatcher set by undici 8\'s setGlobalDispatcher (child process)', { skip: UNDICI8_SKIP }, async (t) => {
  const server = await startServer(t, { connectionClose: true })
  const result = await runDispatcherChild(t, 'undici8-global', server)
  checkChild(t, result)
  t.match(result.report.undici8Version, /^8\./)
  t.equal(result.report.legacyIsAdapter, true, 'undici 7 sees undici 8\'s adapter under the .1 symbol')
  t.equal(result.report.connects, 2, 'both requests of the EventSource went through the undici 8 Agent')
  checkReconnection(t, server)
})

t.test('an undici 8 Agent as init.dispatcher', { skip: UNDICI8_SKIP }, async (t) => {
  const undici8 = require('undici8')
  const server = await startServer(t, { connectionClose: true })
  const original = undici.getGlobalDispatcher()
  const agent = new undici8.Agent()
  t.teardown(() => agent.destroy())
  let connects = 0
  agent.on('connect', () => { connects++ })

  const es = open(t, server.url, { dispatcher: agent, reconnectionTime: 20 })
  t.same(await record(es), EXPECTED_LOG)
  checkReconnection(t, server)
  t.equal(connects, 2, 'both requests went through the undici 8 Agent')
  t.equal(undici.getGlobalDispatcher(), original, 'loading undici 8 left the global dispatcher alone')
})

// Redirects and failed responses make the connection abort the request from inside the response
// callback (onHeaders or onResponseStart), and undici 6, 7 and 8 call the handler's onError or
// onResponseError synchronously from that abort. Each handler API must still go on with the redirect
// or the failure: at 918667c the abort was taken for a network error (error with readyState
// CONNECTING, a reconnection) and a redirect also left an orphan request behind.
const HANDLER_APIS = [
  {
    name: 'undici 7\'s Agent (onRequestStart/onResponseStart)',
    dispatcher: () => new undici.Agent()
  },
  {
    name: 'undici 8\'s Agent (onRequestStart/onResponseStart)',
    skip: UNDICI8_SKIP,
    dispatcher: () => new (require('undici8').Agent)()
  },
  {
    // undici 6 with onConnect/onHeaders/onData on Node 20 and 22.
    name: 'the global dispatcher of Node\'s own fetch() (child process)',
    child: 'node-fetch'
  }
]

/** Runs one EventSource on `api` against `url` until it has reported `expected` or strayed from it. */
async function exchange (t, api, server, url, expected) {
  if (api.child) {
    const result = await runDispatcherChild(t, api.child, server, { url, expected })
    checkChild(t, result, expected)
    return
  }
  const dispatcher = api.dispatcher()
  t.teardown(() => dispatcher.destroy())
  const es = open(t, url, { dispatcher, reconnectionTime: 20 })
  t.same(await record(es, expected), expected, 'what the EventSource reported')
}

for (const api of HANDLER_APIS) {
  // Connections are closed after each response, so that a request nobody reads any more (the orphan
  // left by the old abort handling) ends with its connection, not with the server's keep-alive timeout.
  t.test(`a redirect is followed on ${api.name}`, { skip: api.skip }, async (t) => {
    const server = await startServer(t, { connectionClose: true })
    await exchange(t, api, server, `${server.base}/redirect`, EXPECTED_LOG)
    t.same(server.paths().slice(0, 2), ['/redirect', '/events'], 'the 302 was followed to /events')
    checkReconnection(t, server)
  })

  t.test(`a status other than 200 fails the connection on ${api.name}`, { skip: api.skip }, async (t) => {
    const server = await startServer(t, { connectionClose: true })
    await exchange(t, api, server, `${server.base}/no-content`, [['error', EventSource.CLOSED]])
    t.same(server.paths(), ['/no-content'], 'one request, no reconnection')
  })
}

// A dispatcher that follows redirects itself would apply its own rules, not ours: undici's redirect
// handler keeps every header but Authorization, Cookie and Proxy-Authorization on a cross-origin hop,
// so a credentialHeaders header would leak. Each request asks for maxRedirections: 0, which makes
// undici's redirect interceptor (undici 7 and 8) and undici 6's Agent option stand down; a dispatcher
// that follows a redirect anyway is refused before the redirected request is sent.
const REDIRECTING = [
  {
    name: 'undici 7: agent.compose(interceptors.redirect())',
    dispatcher: () => new undici.Agent().compose(undici.interceptors.redirect({ maxRedirections: 5 }))
  },
  {
    name: 'undici 8: agent.compose(interceptors.redirect())',
    skip: UNDICI8_SKIP,
    dispatcher: () => {
      const undici8 = require('undici8')
      return new undici8.Agent().compose(undici8.interceptors.redirect({ maxRedirections: 5 }))
    }
  }
]

/** One EventSource with a credential header on `dispatcher` through /redirect-away to another origin. */
async function redirectAway (t, server, dispatcher, expected) {
  const es = open(t, `${server.base}/redirect-away`,
    { dispatcher, headers: { 'x-token': 't' }, credentialHeaders: ['x-token'], reconnectionTime: 20 })
  const origins = []
  es.addEventListener('message', (event) => origins.push(event.origin))
  let error = null
  es.addEventListener('error', (event) => { error ??= event })
  const log = await record(es, expected)
  return { log, origins, error }
}

for (const api of REDIRECTING) {
  t.test(`${api.name}: redirects are still followed by EventSource, with its rules`, { skip: api.skip }, async (t) => {
    const server = await startServer(t, { connectionClose: true })
    const dispatcher = api.dispatcher()
    t.teardown(() => dispatcher.destroy())
    const expected = [['open', EventSource.OPEN], ['message', 'first', '1']]
    const { log, origins } = await redirectAway(t, server, dispatcher, expected)
    t.same(log, expected)
    const port = server.host.split(':')[1]
    t.same(origins, [`http://localhost:${port}`], 'the origin of the final URL: the 302 reached EventSource')
    t.same(server.paths(), ['/redirect-away', '/events'])
    const requests = server.events()
    t.equal(requests.length, 1)
    t.equal(requests[0]?.headers.host, `localhost:${port}`)
    t.equal(requests[0]?.headers['x-token'], undefined, 'the credential header stayed with its origin')
  })
}

t.test('a dispatcher that follows redirects whatever maxRedirections says is refused', async (t) => {
  // undici's RedirectHandler.buildDispatch follows up to its own count and ignores the request's.
  const server = await startServer(t, { connectionClose: true })
  const agent = new undici.Agent()
  t.teardown(() => agent.destroy())
  const dispatcher = { dispatch: undici.RedirectHandler.buildDispatch(agent, 5) }
  const { log, error } = await redirectAway(t, server, dispatcher, [['error', EventSource.CLOSED]])
  t.same(log, [['error', EventSource.CLOSED]], 'the connection fails, without a reconnection')
  t.equal(error.code, 'ERR_EVENTSOURCE_DISPATCHER_REDIRECT')
  t.equal(error.message, `The dispatcher followed a redirect from ${server.base}/redirect-away by itself; ` +
    'EventSource follows redirects itself, to keep credentials and https: safe: use a dispatcher without a redirect interceptor')
  t.equal(error.willReconnect, false)
  t.same(server.paths(), ['/redirect-away'], 'the redirected request was aborted before it was sent')
})

// Node 26 bundles undici 8, whose Agent rejects maxRedirections (its redirect interceptor is tested above).
const BUNDLED_UNDICI_MAJOR = Number(process.versions.undici.split('.')[0])
t.test('an undici 6 Agent with maxRedirections (Node\'s bundled undici, child process)',
  { skip: BUNDLED_UNDICI_MAJOR >= 8 ? `Node ${process.version} bundles undici ${process.versions.undici}, whose Agent has no maxRedirections` : false }, async (t) => {
    const server = await startServer(t, { connectionClose: true })
    const expected = [['open', EventSource.OPEN], ['message', 'first', '1']]
    const result = await runDispatcherChild(t, 'node-fetch-redirecting', server, { url: `${server.base}/redirect-away`, expected })
    t.comment(`Node ${process.version} bundles undici ${result.report.bundledUndici}`)
    checkChild(t, result, expected)
    t.same(server.paths(), ['/redirect-away', '/events'])
    const requests = server.events()
    t.equal(requests[0]?.headers.host, `localhost:${server.host.split(':')[1]}`, 'EventSource followed the 302')
    t.equal(requests[0]?.headers['x-token'], undefined, 'the credential header stayed with its origin')
  })

t.test('an undici 6 Agent that follows redirects whatever maxRedirections says is refused (child process)',
  { skip: NODE_MAJOR < 24 ? false : `Node ${process.version} bundles undici ${process.versions.undici}, whose Agent does not follow redirects` }, async (t) => {
    const server = await startServer(t, { connectionClose: true })
    const expected = [['error', EventSource.CLOSED]]
    const result = await runDispatcherChild(t, 'node-fetch-redirecting-always', server, { url: `${server.base}/redirect-away`, expected })
    checkChild(t, result, expected)
    t.same(result.report.errorCodes, ['ERR_EVENTSOURCE_DISPATCHER_REDIRECT'])
    t.same(server.paths(), ['/redirect-away'], 'the redirected request was aborted before it was sent')
  })

t.test('undici 7 Client and Pool accept maxRedirections: 0', async (t) => {
  for (const Dispatcher of [undici.Client, undici.Pool]) {
    const server = await startServer(t)
    const dispatcher = new Dispatcher(server.base)
    t.teardown(() => dispatcher.destroy())
    const es = open(t, server.url, { dispatcher, reconnectionTime: 20 })
    t.same(await record(es), EXPECTED_LOG, Dispatcher.name)
    checkReconnection(t, server)
  }
})

// A dispatcher whose dispatch() throws (a user's, or one given options it refuses) rather than calling
// its handler's onError: the attempt's network error, reestablished, and never an exception thrown into
// the process from the job that started the attempt.
t.test('a dispatcher whose dispatch() throws: a network error, reestablished', async (t) => {
  const thrown = new TypeError('dispatch refused')
  let calls = 0
  const es = open(t, 'http://127.0.0.1:1/', {
    reconnectionTime: 1,
    dispatcher: { dispatch () { calls++; throw thrown } }
  })
  const rec = recordEvents(es)
  await rec.wait('error', 2)
  es.close()
  t.equal(calls, 2, 'one call per attempt')
  for (const { event, readyState } of rec.events) {
    t.equal(readyState, EventSource.CONNECTING)
    t.equal(event.code, 'ERR_EVENTSOURCE_NETWORK')
    t.equal(event.message, 'The connection to http://127.0.0.1:1 failed: dispatch refused')
    t.equal(event.cause, thrown)
  }
})
