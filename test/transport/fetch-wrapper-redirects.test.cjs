'use strict'

// A user's fetch (init.fetch) and redirects. A wrapper adds what it adds (an `Authorization: Bearer`, the
// common way to add a token) to whatever it sends, so redirects are left to its fetch, which sees every
// hop: nothing the wrapper adds reaches another origin after a redirect (every fetch drops Authorization
// there), a same-origin redirect keeps it, and the wrapper's own redirect mode ('error', 'manual') is
// honoured. The rules of this package still hold: URL credentials are never sent up front and answer a
// 401 of their own origin only; Cookie, Proxy-Authorization and credentialHeaders, which a fetch would
// take along, never reach another origin (a redirect there fails the connection); Last-Event-ID goes with
// every hop. Two loopback servers stand for two origins.

const t = require('tap')
const { Agent } = require('undici')
const { EventSource } = require('../../')
const { serve, sse, open, record, tlsFixture } = require('../helpers/index.cjs')

const { CONNECTING, CLOSED } = EventSource

/** A wrapper of Node's fetch that adds a bearer token, as SDKs do; records each call's redirect mode. */
function tokenFetch (calls, { redirect, dispatcher } = {}) {
  return (input, init) => {
    calls.push({ url: String(input), redirect: init.redirect })
    const headers = { ...init.headers, authorization: 'Bearer wrapper-token' }
    return globalThis.fetch(input, { ...init, headers, ...(redirect === undefined ? {} : { redirect }), ...(dispatcher === undefined ? {} : { dispatcher }) })
  }
}

function redirect (res, location, status = 302) {
  res.writeHead(status, { location }).end()
}

/** Two origins: `other` serves the event stream (ending its first response), `main` redirects to it. */
async function crossOrigin (t) {
  const other = await serve(t, (req, res, i) => sse(res, 'id: 7\ndata: there\n\n', { end: i === 0 }))
  const main = await serve(t, (req, res) => redirect(res, other.url('/events')))
  return { main, other }
}

t.test('a header the wrapper adds never reaches another origin, on the first attempt nor on a reconnection', async (t) => {
  const { main, other } = await crossOrigin(t)
  const calls = []
  const es = open(t, main.url('/start'), { fetch: tokenFetch(calls), reconnectionTime: 1 })
  const rec = record(es)
  await rec.wait('open', 2)
  es.close()
  t.same(rec.types, ['open', 'message', 'error', 'open'])
  t.equal(rec.of('message')[0].origin, other.origin)
  t.same(main.requests.map((r) => r.headers.authorization), ['Bearer wrapper-token', 'Bearer wrapper-token'], 'the wrapper\'s origin has it')
  t.same(other.requests.map((r) => r.headers.authorization), [undefined, undefined], 'the other origin never sees it')
  t.equal(other.requests[1].headers['last-event-id'], '7', 'the reconnection: through the first URL, with Last-Event-ID on both hops')
  t.equal(main.requests[1].headers['last-event-id'], '7')
  t.same(calls.map((c) => [c.url, c.redirect]), [[main.url('/start'), 'follow'], [main.url('/start'), 'follow']],
    'one call per attempt, each asking the fetch to follow redirects itself')
})

t.test('a same-origin redirect keeps it, and the reconnection goes to the final URL', async (t) => {
  const server = await serve(t, (req, res, i) => req.url === '/start'
    ? redirect(res, '/final')
    : sse(res, 'data: here\n\n', { end: i === 1 }))
  const calls = []
  const es = open(t, server.url('/start'), { fetch: tokenFetch(calls), reconnectionTime: 1 })
  await record(es).wait('open', 2)
  es.close()
  t.same(server.requests.map((r) => [r.url, r.headers.authorization]), [
    ['/start', 'Bearer wrapper-token'], ['/final', 'Bearer wrapper-token'], ['/final', 'Bearer wrapper-token']
  ])
  t.same(calls.map((c) => c.url), [server.url('/start'), server.url('/final')])
})

t.test('the wrapper\'s redirect mode "error": the redirect is not followed, a network error', async (t) => {
  const { main, other } = await crossOrigin(t)
  const es = open(t, main.url('/start'), { fetch: tokenFetch([], { redirect: 'error' }), reconnectionTime: 60_000 })
  const { event, readyState } = await record(es).wait('error')
  t.same([readyState, event.code], [CONNECTING, 'ERR_EVENTSOURCE_NETWORK'])
  t.equal(other.requests.length, 0, 'the other origin is never asked')
})

t.test('the wrapper\'s redirect mode "manual": the redirect is the response, and fails the connection', async (t) => {
  const { main, other } = await crossOrigin(t)
  const es = open(t, main.url('/start'), { fetch: tokenFetch([], { redirect: 'manual' }) })
  const { event, readyState } = await record(es).wait('error')
  t.same([readyState, event.code, event.status], [CLOSED, 'ERR_EVENTSOURCE_BAD_STATUS', 302])
  t.equal(other.requests.length, 0, 'the other origin is never asked')
})

t.test('a wrapper that refuses cross-origin redirects (as the MCP SDK\'s): its policy stands', async (t) => {
  const { main, other } = await crossOrigin(t)
  const sameOriginOnly = async (input, init) => {
    const response = await globalThis.fetch(input, { ...init, redirect: 'manual' })
    const location = response.headers.get('location')
    if (location === null || new URL(location, input).origin !== new URL(input).origin) return response
    return globalThis.fetch(new URL(location, input), init)
  }
  const es = open(t, main.url('/start'), { fetch: sameOriginOnly })
  const { event } = await record(es).wait('error')
  t.same([event.code, event.status], ['ERR_EVENTSOURCE_BAD_STATUS', 302])
  t.equal(other.requests.length, 0)
})

t.test('Cookie, Proxy-Authorization and credentialHeaders: followed within their origin, refused to another', async (t) => {
  for (const [label, init] of [
    ['a Cookie', { headers: { cookie: 'session=1' } }],
    ['a Proxy-Authorization', { headers: { 'proxy-authorization': 'Basic eA==' } }],
    ['a header named in credentialHeaders', { headers: { 'x-api-key': 'k' }, credentialHeaders: ['X-Api-Key'] }]
  ]) {
    const { main, other } = await crossOrigin(t)
    const calls = []
    const es = open(t, main.url('/start'), { ...init, fetch: tokenFetch(calls) })
    const { event, readyState } = await record(es).wait('error')
    t.same([readyState, event.code], [CLOSED, 'ERR_EVENTSOURCE_INVALID_REDIRECT'], label)
    t.match(event.message, `another origin, ${other.origin}`)
    t.same(calls.map((c) => c.redirect), ['manual'], `${label}: the fetch is asked not to follow`)
    t.equal(other.requests.length, 0, `${label}: the other origin is never asked`)

    // Within the origin: each hop through the wrapper, with everything.
    const server = await serve(t, (req, res) => req.url === '/start' ? redirect(res, '/final') : sse(res, 'data: in\n\n', { end: false }))
    const within = []
    const source = open(t, server.url('/start'), { ...init, fetch: tokenFetch(within) })
    t.equal((await record(source).wait('message')).data, 'in')
    source.close()
    t.same(within.map((c) => [c.url, c.redirect]), [[server.url('/start'), 'manual'], [server.url('/final'), 'manual']])
    const [name, value] = Object.entries(init.headers)[0]
    t.same(server.requests.map((r) => r.headers[name]), [value, value], `${label}: on both hops`)
  }
})

t.test('URL credentials: answered to a 401 of their origin after a redirect the fetch followed, not of another', async (t) => {
  const basic = `Basic ${Buffer.from('user:pw').toString('base64')}`
  const challenge = (req, res) => req.headers.authorization === basic
    ? sse(res, 'data: in\n\n', { end: false })
    : res.writeHead(401, { 'www-authenticate': 'Basic' }).end()
  const same = await serve(t, (req, res) => req.url === '/start' ? redirect(res, '/private') : challenge(req, res))
  const es = open(t, `http://user:pw@127.0.0.1:${same.port}/start`, { fetch: globalThis.fetch })
  t.equal((await record(es).wait('message')).data, 'in', 'same origin: answered')
  es.close()
  t.same(same.requests.map((r) => [r.url, r.headers.authorization]), [['/start', undefined], ['/private', undefined], ['/private', basic]])

  const other = await serve(t, challenge)
  const main = await serve(t, (req, res) => redirect(res, other.url('/private')))
  const away = open(t, `http://user:pw@127.0.0.1:${main.port}/start`, { fetch: globalThis.fetch })
  const { event } = await record(away).wait('error')
  t.same([event.code, event.status], ['ERR_EVENTSOURCE_BAD_STATUS', 401], 'another origin: not answered')
  t.same(other.requests.map((r) => r.headers.authorization), [undefined])
})

t.test('https: to http:, followed by the fetch: what comes back in clear text is refused, unless allowed', async (t) => {
  const { key, cert } = tlsFixture()
  const dispatcher = new Agent({ connect: { ca: cert } })
  t.teardown(() => dispatcher.close())
  const plain = await serve(t, (req, res) => sse(res, 'data: clear\n\n', { end: false }))
  const secure = await serve(t, (req, res) => redirect(res, plain.url('/insecure')), { tls: { key, cert } })
  const es = open(t, secure.url('/start'), { fetch: tokenFetch([], { dispatcher }) })
  const rec = record(es)
  const { event, readyState } = await rec.wait('error')
  t.same([readyState, event.code, rec.count('message')], [CLOSED, 'ERR_EVENTSOURCE_INSECURE_REDIRECT', 0])
  const allowed = open(t, secure.url('/start'), { fetch: tokenFetch([], { dispatcher }), allowInsecureRedirect: true })
  t.equal((await record(allowed).wait('message')).data, 'clear')
})

t.test('what a user\'s fetch answers is its own: no redirect response of its is followed', async (t) => {
  // A fetch that ignores `redirect: 'follow'` and hands back the redirect: it is the response.
  const server = await serve(t, (req, res) => req.url === '/start' ? redirect(res, '/final') : sse(res, 'data: x\n\n'))
  const es = open(t, server.url('/start'), { fetch: (input, init) => globalThis.fetch(input, { ...init, redirect: 'manual' }) })
  const { event } = await record(es).wait('error')
  t.same([event.code, event.status], ['ERR_EVENTSOURCE_BAD_STATUS', 302])
  t.same(server.requests.map((r) => r.url), ['/start'])
})
