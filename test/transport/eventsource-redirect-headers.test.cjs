'use strict'

// What a redirect does to the request (with the `headers`, `method` and `body` extensions): credential
// headers are not carried to another origin, and 301/302 after POST and 303 turn it into a body-less GET;
// https: to http: is refused unless allowInsecureRedirect.
// https://fetch.spec.whatwg.org/#http-redirect-fetch (steps 12-14)

const t = require('tap')
const { Agent } = require('undici')
const { EventSource } = require('../../')
const { serve, sse, record, reconnectionCycle, closeAtTeardown } = require('../helpers/index.cjs')

const CREDENTIALS = {
  authorization: 'Bearer secret',
  cookie: 'session=1',
  'proxy-authorization': 'Basic cHJveHk6cHc=',
  'x-api-key': 'not a credential header'
}

function redirect (res, status, location) {
  res.writeHead(status, { location }).end()
}

// One server reachable as two origins: 127.0.0.1 and localhost.
async function twoOrigins (t, handler) {
  const srv = await serve(t, handler)
  return { srv, a: `http://127.0.0.1:${srv.port}`, b: `http://localhost:${srv.port}` }
}

const headersOf = (req) => ({
  authorization: req.headers.authorization,
  cookie: req.headers.cookie,
  'proxy-authorization': req.headers['proxy-authorization'],
  'x-api-key': req.headers['x-api-key']
})
const NONE = { authorization: undefined, cookie: undefined, 'proxy-authorization': undefined, 'x-api-key': 'not a credential header' }

t.test('a same-origin redirect keeps the credential headers', async (t) => {
  const { srv, a } = await twoOrigins(t, (req, res) =>
    req.url === '/start' ? redirect(res, 302, '/end') : sse(res, 'data: x\n\n', { end: false }))
  await record(srv.eventSource(`${a}/start`, { headers: CREDENTIALS, reconnectionTime: 10 })).wait('message')
  t.same(srv.requests.map(headersOf), [CREDENTIALS, CREDENTIALS])
})

t.test('a cross-origin redirect drops Authorization, Cookie and Proxy-Authorization', async (t) => {
  const { srv, a, b } = await twoOrigins(t, (req, res) => {
    if (req.url === '/start') redirect(res, 307, `${b}/hop`)
    else if (req.url === '/hop') redirect(res, 308, `${a}/end`)
    else sse(res, 'data: x\n\n', { end: false })
  })
  const rec = record(srv.eventSource(`${a}/start`, { headers: CREDENTIALS, reconnectionTime: 10 }))
  t.equal((await rec.wait('message')).origin, a)
  t.same(srv.requests.map(headersOf), [CREDENTIALS, NONE, NONE],
    'dropped on the way to the other origin and not restored on the way back')
  t.same(srv.requests.map((r) => r.headers.host), [`127.0.0.1:${srv.port}`, `localhost:${srv.port}`, `127.0.0.1:${srv.port}`])
  t.equal(srv.requests[1].headers.accept, 'text/event-stream', 'other headers stay')
})

t.test('credential headers given in any case are dropped', async (t) => {
  const { srv, a, b } = await twoOrigins(t, (req, res) =>
    req.url === '/start' ? redirect(res, 302, `${b}/end`) : sse(res, 'data: x\n\n', { end: false }))
  const headers = [['Authorization', 'Bearer A'], ['COOKIE', 'c=1'], ['Proxy-Authorization', 'p']]
  await record(srv.eventSource(`${a}/start`, { headers, reconnectionTime: 10 })).wait('message')
  t.equal(srv.requests[0].headers.authorization, 'Bearer A')
  t.same(headersOf(srv.requests[1]), { ...NONE, 'x-api-key': undefined })
})

t.test('reconnecting to the final URL of a cross-origin redirect does not send the credentials there', async (t) => {
  const { srv, a, b } = await twoOrigins(t, (req, res) =>
    req.url === '/start' ? redirect(res, 302, `${b}/end`) : sse(res, 'data: x\n\n'))
  const rec = record(srv.eventSource(`${a}/start`, { headers: CREDENTIALS, reconnectionTime: 10 }))
  await rec.wait('open', 2)
  t.same(srv.requests.slice(0, 3).map((r) => `${r.headers.host}${r.url}`),
    [`127.0.0.1:${srv.port}/start`, `localhost:${srv.port}/end`, `localhost:${srv.port}/end`])
  t.same(headersOf(srv.requests[1]), NONE)
  t.same(headersOf(srv.requests[2]), NONE, 'the reconnection to the other origin')
})

t.test('POST becomes a body-less GET after 301, 302 and 303', async (t) => {
  for (const status of [301, 302, 303]) {
    // Each request is answered once its body has been read (and recorded as req.body).
    const srv = await serve(t, (req, res) => req.once('end', () => {
      if (req.url === '/start') redirect(res, status, '/end')
      else sse(res, 'data: x\n\n', { end: false })
    }))
    const es = srv.eventSource('/start', { method: 'POST', body: 'q=1', headers: { 'content-language': 'en' }, reconnectionTime: 10 })
    await record(es).wait('message')
    t.same(srv.requests.map((r) => r.method), ['POST', 'GET'], `${status}: method`)
    t.same(srv.requests.map((r) => r.body.toString()), ['q=1', ''], `${status}: body`)
    t.equal(srv.requests[0].headers['content-type'], 'text/plain;charset=UTF-8', `${status}: typed body first`)
    t.equal(srv.requests[1].headers['content-type'], undefined, `${status}: no Content-Type after`)
    t.equal(srv.requests[1].headers['content-language'], undefined, `${status}: request-body headers removed`)
    t.equal(srv.requests[1].headers['content-length'], undefined, `${status}: no Content-Length`)
    es.close()
  }
})

t.test('307 and 308 keep the method and the body', async (t) => {
  for (const status of [307, 308]) {
    const srv = await serve(t, (req, res) => req.once('end', () => {
      if (req.url === '/start') redirect(res, status, '/end')
      else sse(res, 'data: x\n\n', { end: false })
    }))
    const body = new URLSearchParams({ a: '1', b: 'é' })
    const es = srv.eventSource('/start', { method: 'post', body, reconnectionTime: 10 })
    await record(es).wait('message')
    t.same(srv.requests.map((r) => r.method), ['POST', 'POST'], `${status}: method (normalised to upper case)`)
    t.same(srv.requests.map((r) => r.body.toString()), ['a=1&b=%C3%A9', 'a=1&b=%C3%A9'], `${status}: body re-sent`)
    t.same(srv.requests.map((r) => r.headers['content-type']),
      Array(2).fill('application/x-www-form-urlencoded;charset=UTF-8'), `${status}: Content-Type kept`)
    es.close()
  }
})

t.test('other methods keep their method after 301 and 302; HEAD stays HEAD after 303', async (t) => {
  for (const [method, status] of [['PUT', 301], ['DELETE', 302], ['PATCH', 301], ['HEAD', 303], ['OPTIONS', 303]]) {
    // Ended: a HEAD response has no body, and Node's server sends nothing of one before end().
    const srv = await serve(t, (req, res) => req.once('end', () => req.url === '/start' ? redirect(res, status, '/end') : sse(res, 'data: x\n\n')))
    const es = srv.eventSource('/start', { method, reconnectionTime: 10 })
    await record(es).wait('open')
    const expected = status === 303 && method !== 'HEAD' ? 'GET' : method
    t.same(srv.requests.map((r) => r.method), [method, expected], `${method} + ${status}`)
    es.close()
  }
})

t.test('credentialHeaders: more headers kept from other origins', async (t) => {
  const { srv, a, b } = await twoOrigins(t, (req, res) =>
    req.url === '/start' ? redirect(res, 302, `${b}/end`) : sse(res, 'data: x\n\n', { end: false }))
  const headers = { 'X-Api-Key': 'k', 'x-session': 's', 'x-public': 'p', authorization: 'a' }
  const es = srv.eventSource(`${a}/start`, { headers, credentialHeaders: ['x-API-key', 'X-Session'], reconnectionTime: 10 })
  await record(es).wait('message')
  const [first, second] = srv.requests.map((r) => [r.headers['x-api-key'], r.headers['x-session'], r.headers['x-public'], r.headers.authorization])
  t.same(first, ['k', 's', 'p', 'a'], 'all sent to the first origin')
  t.same(second, [undefined, undefined, 'p', undefined], 'names matched in any case; other headers stay')
})

t.test('credentialHeaders names are trimmed and lower-cased: \' X-Token \' is kept from another origin', async (t) => {
  const { srv, a, b } = await twoOrigins(t, (req, res) =>
    req.url === '/start' ? redirect(res, 302, `${b}/end`) : sse(res, 'data: x\n\n', { end: false }))
  const headers = { 'X-Token': 't', 'X-Other': 'o' }
  const es = srv.eventSource(`${a}/start`, { headers, credentialHeaders: [' X-Token ', '\tX-Other\r\n'], reconnectionTime: 10 })
  const message = await record(es).wait('message')
  t.equal(message.origin, b, 'the redirect was followed')
  const sent = srv.requests.map((r) => [r.headers.host, r.headers['x-token'], r.headers['x-other']])
  t.same(sent, [[`127.0.0.1:${srv.port}`, 't', 'o'], [`localhost:${srv.port}`, undefined, undefined]])
})

// https: URLs carried over plain HTTP by a dispatcher that rewrites the scheme, so the redirect rules
// for https: can be checked against a real (plain) server without certificates.
function httpsOverHttp (t) {
  const agent = new Agent()
  t.teardown(() => agent.destroy())
  return { dispatch: (opts, handler) => agent.dispatch({ ...opts, origin: opts.origin.replace(/^https:/, 'http:') }, handler) }
}

t.test('https: to http: is refused unless allowInsecureRedirect', async (t) => {
  const srv = await serve(t, (req, res) =>
    req.url === '/start' ? redirect(res, 302, `http://127.0.0.1:${srv.port}/end`) : sse(res, 'data: x\n\n', { end: false }))
  const dispatcher = httpsOverHttp(t)
  const secure = `https://127.0.0.1:${srv.port}/start`

  const refused = closeAtTeardown(t, new EventSource(secure, { dispatcher, reconnectionTime: 10 }))
  const rec = record(refused)
  const { event, readyState } = await rec.first(['open', 'error'])
  t.equal(event.code, 'ERR_EVENTSOURCE_INSECURE_REDIRECT')
  t.equal(readyState, EventSource.CLOSED, 'the connection fails')
  await reconnectionCycle(t)
  t.same(srv.requests.map((r) => r.url), ['/start'], 'the http: URL was not requested')

  const allowed = closeAtTeardown(t, new EventSource(secure, { dispatcher, allowInsecureRedirect: true, reconnectionTime: 10 }))
  const message = await record(allowed).wait('message')
  t.equal(message.origin, `http://127.0.0.1:${srv.port}`)
  t.same(srv.requests.map((r) => r.url), ['/start', '/start', '/end'])
})

t.test('http: to https: and https: to https: are followed', async (t) => {
  const srv = await serve(t, (req, res) => {
    if (req.url === '/start') redirect(res, 307, `https://127.0.0.1:${srv.port}/secure`)
    else if (req.url === '/secure') redirect(res, 307, `https://localhost:${srv.port}/end`)
    else sse(res, 'data: x\n\n', { end: false })
  })
  const es = closeAtTeardown(t, new EventSource(srv.url('/start'), { dispatcher: httpsOverHttp(t), reconnectionTime: 10 }))
  const message = await record(es).wait('message')
  t.equal(message.origin, `https://localhost:${srv.port}`)
  t.same(srv.requests.map((r) => r.url), ['/start', '/secure', '/end'])
})
