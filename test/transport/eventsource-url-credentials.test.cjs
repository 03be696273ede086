'use strict'

// Credentials in the URL (http://user:pass@host/events), used as fetch uses them for a same-origin
// request (lib/transport/redirect-policy-node.js): never sent up front, one answer to a Basic challenge, never to
// another origin, never over the user's own Authorization header.
// https://fetch.spec.whatwg.org/#http-network-or-cache-fetch

const t = require('tap')
const { EventSource } = require('../../')
const { serve, sse, record, reconnectionCycle } = require('../helpers/index.cjs')

const { OPEN, CLOSED } = EventSource
const CHALLENGE = { 'www-authenticate': 'Basic realm="events"' }

/** The Authorization value for `user:password`, spelled out independently of the code under test. */
const basic = (pair) => `Basic ${Buffer.from(pair, 'utf8').toString('base64')}`

/** http://<userinfo>@127.0.0.1:<port><path> */
const withUserinfo = (srv, userinfo, path = '/events') => `http://${userinfo}@127.0.0.1:${srv.port}${path}`

/**
 * A server that challenges every request without an Authorization header (401, `headers`), and
 * answers the others with `body` (an event stream, ended when `end`).
 */
function challenging (t, { headers = CHALLENGE, body = 'data: in\n\n', end = false } = {}) {
  return serve(t, (req, res) => {
    if (req.headers.authorization === undefined) res.writeHead(401, headers).end('no')
    else sse(res, body, { end })
  })
}

const authorizations = (srv) => srv.requests.map((r) => r.headers.authorization)

t.test('a Basic challenge is answered once, with the URL\'s credentials', async (t) => {
  const srv = await challenging(t)
  const es = srv.eventSource(withUserinfo(srv, 'user:pass'))
  const rec = record(es)
  await rec.wait('message')
  t.same(authorizations(srv), [undefined, basic('user:pass')], 'not sent up front; sent on the retry')
  t.same(srv.requests.map((r) => [r.method, r.url, r.headers.host]),
    [['GET', '/events', `127.0.0.1:${srv.port}`], ['GET', '/events', `127.0.0.1:${srv.port}`]],
    'the request goes to the URL without its userinfo')
  t.same(rec.types, ['open', 'message'], 'the 401 itself is not reported')
  t.equal(es.readyState, OPEN)
  t.equal(rec.events[1].origin, srv.origin, 'origin has no userinfo')
  t.equal(es.url, withUserinfo(srv, 'user:pass'), 'url keeps the userinfo, as the URL serializer and browsers do')
})

t.test('the header is exact for percent-encoded and non-ASCII userinfo', async (t) => {
  const cases = [
    // [userinfo as written in the URL, the user:password the server must decode]
    ['us%20er:p%40ss%3Aword', 'us er:p@ss:word'],
    ['jürgen:pä ss', 'jürgen:pä ss'], // the URL parser percent-encodes these as UTF-8
    ['J%C3%BCrgen:%F0%9F%94%91', 'Jürgen:🔑'],
    ['token', 'token:'],
    [':secret', ':secret'],
    // A % that starts no escape stays as it is (the URL standard's percent-decode).
    ['100%:50%zz%4', '100%:50%zz%4'],
    // Decoded bytes that are not UTF-8: sent as written, as Chromium does.
    ['a%FF:b', 'a%FF:b']
  ]
  for (const [userinfo, pair] of cases) {
    const srv = await challenging(t)
    const rec = record(srv.eventSource(withUserinfo(srv, userinfo)))
    await rec.wait('open')
    t.equal(srv.requests[1].headers.authorization, basic(pair), `${userinfo} -> ${pair}`)
  }
})

t.test('a second 401 fails the connection as any status but 200 does', async (t) => {
  const srv = await serve(t, (req, res) => res.writeHead(401, CHALLENGE).end())
  const es = srv.eventSource(withUserinfo(srv, 'user:wrong'))
  const rec = record(es)
  const error = await rec.first(['open', 'error'])
  t.equal(error.type, 'error')
  t.equal(error.readyState, CLOSED, 'failed, not reestablished')
  t.equal(error.event.code, 'ERR_EVENTSOURCE_BAD_STATUS')
  t.equal(error.event.status, 401)
  t.equal(error.event.headers.get('www-authenticate'), CHALLENGE['www-authenticate'])
  await reconnectionCycle(t)
  t.same(authorizations(srv), [undefined, basic('user:wrong')], 'one retry, then nothing more')
  t.equal(rec.count('error'), 1)
  // What the error says, its details included, never shows the password.
  const cause = error.event.cause
  t.equal(cause.url, `http://127.0.0.1:${srv.port}/events`, 'the URL in the details has no userinfo')
  t.notMatch(`${error.event.message} ${cause.message} ${cause.stack}`, 'wrong', 'nor has any message')
})

t.test('without a Basic challenge the credentials are never sent', async (t) => {
  for (const [name, headers] of [['no WWW-Authenticate', {}], ['a Bearer challenge', { 'www-authenticate': 'Bearer' }],
    ['a Digest challenge', { 'www-authenticate': 'Digest realm="x", nonce="1, Basic"' }]]) {
    t.test(name, async (t) => {
      const srv = await challenging(t, { headers })
      const rec = record(srv.eventSource(withUserinfo(srv, 'user:pass')))
      const error = await rec.first(['open', 'error'])
      t.equal(error.event.status, 401)
      t.equal(error.readyState, CLOSED)
      t.same(authorizations(srv), [undefined])
    })
  }
  t.test('a URL without credentials has nothing to answer with', async (t) => {
    const srv = await challenging(t)
    const rec = record(srv.eventSource('/events'))
    t.equal((await rec.first(['open', 'error'])).event.status, 401)
    t.same(authorizations(srv), [undefined])
  })
  t.test('one Basic challenge among others is answered', async (t) => {
    const srv = await challenging(t, { headers: { 'www-authenticate': ['Negotiate', 'Basic realm="x"'] } })
    await record(srv.eventSource(withUserinfo(srv, 'user:pass'))).wait('open')
    t.same(authorizations(srv), [undefined, basic('user:pass')])
  })
  t.test('a server that asks for nothing never gets them, reconnections included', async (t) => {
    const srv = await serve(t, (req, res, i) => sse(res, `id: ${i}\ndata: ${i}\n\n`))
    const rec = record(srv.eventSource(withUserinfo(srv, 'user:pass')))
    await rec.wait('message', 2)
    t.same(authorizations(srv).slice(0, 2), [undefined, undefined])
  })
})

t.test('reconnections answer the challenge again', async (t) => {
  // Node has no authentication cache: each attempt starts without the credentials, as fetch does.
  const srv = await serve(t, (req, res) => {
    if (req.headers.authorization === undefined) res.writeHead(401, CHALLENGE).end()
    else sse(res, `id: ${srv.requests.length}\ndata: x\n\n`)
  })
  const es = srv.eventSource(withUserinfo(srv, 'user:pass'))
  const rec = record(es)
  await rec.wait('open', 3)
  t.same(authorizations(srv).slice(0, 6),
    [undefined, basic('user:pass'), undefined, basic('user:pass'), undefined, basic('user:pass')])
  t.same(srv.requests.slice(2, 4).map((r) => r.headers['last-event-id']), ['2', '2'],
    'both requests of the reconnection send Last-Event-ID')
  t.same(rec.types.slice(0, 6), ['open', 'message', 'error', 'open', 'message', 'error'])
})

t.test('the user\'s own Authorization header is sent instead, and the 401 is not retried', async (t) => {
  const srv = await serve(t, (req, res) => res.writeHead(401, CHALLENGE).end())
  const rec = record(srv.eventSource(withUserinfo(srv, 'user:pass'), { headers: { Authorization: 'Bearer token' } }))
  const error = await rec.first(['open', 'error'])
  t.equal(error.event.status, 401)
  await reconnectionCycle(t)
  t.same(authorizations(srv), ['Bearer token'])
})

t.test('a POST body is sent again with the answer', async (t) => {
  // Each request is answered once its body has been read (and recorded as req.body).
  const srv = await serve(t, (req, res) => req.once('end', () => {
    if (req.headers.authorization === undefined) res.writeHead(401, CHALLENGE).end()
    else sse(res, 'data: x\n\n', { end: false })
  }))
  await record(srv.eventSource(withUserinfo(srv, 'user:pass'), { method: 'POST', body: 'q=1' })).wait('message')
  t.same(srv.requests.map((r) => r.body.toString()), ['q=1', 'q=1'])
  t.same(srv.requests.map((r) => r.method), ['POST', 'POST'])
})

t.test('redirects', async (t) => {
  t.test('a same-origin redirect keeps the URL\'s credentials, and its request may be answered', async (t) => {
    // A relative Location resolves against the URL, userinfo included.
    const srv = await serve(t, (req, res) => {
      if (req.url === '/start') res.writeHead(302, { location: '/events' }).end()
      else if (req.headers.authorization === undefined) res.writeHead(401, CHALLENGE).end()
      else sse(res, 'data: x\n\n', { end: false })
    })
    const rec = record(srv.eventSource(withUserinfo(srv, 'user:pass', '/start')))
    await rec.wait('message')
    t.same(srv.requests.map((r) => [r.url, r.headers.authorization]),
      [['/start', undefined], ['/events', undefined], ['/events', basic('user:pass')]])
  })

  t.test('an answered request redirected to the same origin starts without them again', async (t) => {
    const srv = await serve(t, (req, res) => {
      if (req.headers.authorization === undefined) res.writeHead(401, CHALLENGE).end()
      else if (req.url === '/start') res.writeHead(307, { location: '/events' }).end()
      else sse(res, 'data: x\n\n', { end: false })
    })
    const rec = record(srv.eventSource(withUserinfo(srv, 'user:pass', '/start')))
    await rec.wait('message')
    t.same(srv.requests.map((r) => [r.url, r.headers.authorization]), [
      ['/start', undefined], ['/start', basic('user:pass')], ['/events', undefined], ['/events', basic('user:pass')]
    ])
  })

  t.test('another origin never gets them', async (t) => {
    const other = await challenging(t)
    const srv = await serve(t, (req, res) => {
      if (req.headers.authorization === undefined) res.writeHead(401, CHALLENGE).end()
      else res.writeHead(302, { location: other.url('/there') }).end()
    })
    const rec = record(srv.eventSource(withUserinfo(srv, 'user:pass')))
    const error = await rec.first(['open', 'error'])
    t.equal(error.event.status, 401, 'the other origin\'s challenge fails the connection')
    t.equal(error.readyState, CLOSED)
    t.same(authorizations(srv), [undefined, basic('user:pass')])
    t.same(authorizations(other), [undefined], 'not answered, not retried')
  })

  t.test('nor on a reconnection that goes to the other origin', async (t) => {
    const other = await serve(t, (req, res, i) => {
      if (i === 0) sse(res, 'id: 1\ndata: first\n\n') // then the body ends: reconnect, to this origin
      else res.writeHead(401, CHALLENGE).end()
    })
    const srv = await serve(t, (req, res) => res.writeHead(302, { location: other.url('/there') }).end())
    const rec = record(srv.eventSource(withUserinfo(srv, 'user:pass')))
    await rec.wait('error', 2)
    t.same(rec.types, ['open', 'message', 'error', 'error'])
    t.equal(rec.events[3].event.status, 401)
    t.same(authorizations(srv), [undefined])
    t.same(authorizations(other), [undefined, undefined])
  })

  t.test('a redirect to a URL with credentials fails unless it stays on the origin it never left', async (t) => {
    const other = await serve(t, (req, res) => {
      if (req.url === '/back') res.writeHead(302, { location: withUserinfo(srv, 'x:y', '/events') }).end()
      else sse(res, 'data: x\n\n', { end: false })
    })
    const srv = await serve(t, (req, res) => {
      if (req.url === '/to-other') res.writeHead(302, { location: withUserinfo(other, 'x:y', '/events') }).end()
      else if (req.url === '/via-other') res.writeHead(302, { location: other.url('/back') }).end()
      else if (req.url === '/to-self') res.writeHead(302, { location: withUserinfo(srv, 'x:y', '/events') }).end()
      else if (req.headers.authorization === undefined) res.writeHead(401, CHALLENGE).end()
      else sse(res, 'data: x\n\n', { end: false })
    })
    for (const path of ['/to-other', '/via-other']) {
      const rec = record(srv.eventSource(srv.url(path)))
      const error = await rec.first(['open', 'error'])
      t.equal(error.event.code, 'ERR_EVENTSOURCE_INVALID_REDIRECT', path)
      t.equal(error.readyState, CLOSED, path)
    }
    t.same(authorizations(other), [undefined], 'only /back was asked for there')
    // To the same origin, the Location's own credentials answer the challenge.
    await record(srv.eventSource(srv.url('/to-self'))).wait('message')
    t.equal(srv.requests.at(-1).headers.authorization, basic('x:y'))
  })
})

t.test('with a document (globalThis.location), only a request to its origin uses them', async (t) => {
  t.teardown(() => { delete globalThis.location })
  const srv = await challenging(t)
  globalThis.location = { href: `http://127.0.0.1:${srv.port}/page.html` }
  await record(srv.eventSource(withUserinfo(srv, 'user:pass'))).wait('open')
  t.same(authorizations(srv), [undefined, basic('user:pass')], 'same origin as the document: answered')

  const cross = await challenging(t)
  const rec = record(cross.eventSource(withUserinfo(cross, 'user:pass')))
  const error = await rec.first(['open', 'error'])
  t.equal(error.event.status, 401, 'cross-origin: fetch\'s response tainting is "cors", so not answered')
  t.same(authorizations(cross), [undefined])
})
