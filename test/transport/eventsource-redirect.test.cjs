'use strict'

// Redirects, followed as fetch follows them: 301/302/303/307/308 up to 20 times, the final URL's
// origin on MessageEvent#origin, reconnection to the final URL, Origin and the tainted origin.
// https://fetch.spec.whatwg.org/#http-redirect-fetch
// (Credential headers on cross-origin hops: eventsource-redirect-headers.test.cjs, which can set them.)

const t = require('tap')
const { EventSource } = require('../../')
const { serve, sse, record, reconnectionCycle } = require('../helpers/index.cjs')

const { CLOSED } = EventSource

function redirect (res, status, location) {
  res.writeHead(status, { location, 'content-type': 'text/event-stream' })
  res.end('data: from the redirect response\n\n')
}

// Waits for the first open or error; true when the connection opened.
async function opened (t, rec) {
  const first = await rec.first(['open', 'error'])
  t.equal(first.type, 'open', 'the redirect was followed to an event stream')
  return first.type === 'open'
}

// Waits for the first open or error and checks that the connection failed.
async function failed (t, rec, es) {
  const first = await rec.first(['open', 'error'])
  t.equal(first.type, 'error', 'not announced')
  t.equal(first.readyState, CLOSED, 'readyState CLOSED at the error event')
  await reconnectionCycle(t)
  t.equal(rec.count('error'), 1, 'exactly one error event')
  t.equal(es.readyState, CLOSED, 'CLOSED')
}

for (const status of [301, 302, 303, 307, 308]) {
  t.test(`status ${status} is followed`, async (t) => {
    const srv = await serve(t, (req, res) => {
      if (req.url === '/start') redirect(res, status, '/final')
      else sse(res, 'data: final\n\n', { end: false })
    })
    const es = srv.eventSource('/start')
    const rec = record(es)
    if (!await opened(t, rec)) return
    const message = await rec.wait('message')
    t.equal(message.data, 'final', 'the redirect response body is not parsed')
    t.equal(message.origin, srv.origin)
    t.equal(es.url, srv.url('/start'), 'url is still the URL given to the constructor')
    t.same(srv.requests.map((r) => `${r.method} ${r.url}`), ['GET /start', 'GET /final'])
    t.equal(srv.requests[1].headers.accept, 'text/event-stream', 'the redirected request keeps its headers')
    t.equal(srv.requests[1].headers['cache-control'], 'no-cache')
  })
}

t.test('origin is the origin of the final URL, after a cross-origin redirect', async (t) => {
  const target = await serve(t, (req, res) => sse(res, 'data: x\n\n', { end: false }), { host: 'localhost' })
  const srv = await serve(t, (req, res) => redirect(res, 302, target.url('/there')))
  const rec = record(srv.eventSource('/here'))
  if (!await opened(t, rec)) return
  t.equal((await rec.wait('message')).origin, `http://localhost:${target.port}`)
  t.equal(target.requests[0].url, '/there')
})

t.test('reconnection goes to the final URL', async (t) => {
  const srv = await serve(t, (req, res) => {
    if (req.url === '/start') redirect(res, 307, '/final')
    else sse(res, 'id: 5\ndata: x\n\n')
  })
  const rec = record(srv.eventSource('/start'))
  if (!await opened(t, rec)) return
  await rec.wait('open', 3)
  t.same(srv.requests.map((r) => r.url), ['/start', '/final', '/final', '/final'])
  t.equal(srv.requests[2].headers['last-event-id'], '5')
})

t.test('a redirect met on reconnection is followed, and its target used from then on', async (t) => {
  const srv = await serve(t, (req, res, i) => {
    if (req.url === '/a' && i > 0) redirect(res, 308, '/b')
    else sse(res, `data: ${req.url}\n\n`)
  })
  const rec = record(srv.eventSource('/a'))
  await rec.wait('error')
  if (!await opened(t, record(rec.target))) return
  await rec.wait('message', 3)
  t.same(rec.data().slice(0, 3), ['/a', '/b', '/b'])
  t.same(srv.requests.slice(0, 4).map((r) => r.url), ['/a', '/a', '/b', '/b'])
})

t.test('Location is resolved against the current URL; its fragment is not sent', async (t) => {
  const srv = await serve(t, (req, res) => {
    if (req.url === '/a/b/start?q=1') redirect(res, 302, '../c/next?x=%20y#frag')
    else if (req.url === '/a/c/next?x=%20y') redirect(res, 302, '//127.0.0.1:' + srv.port + '/abs')
    else sse(res, 'data: x\n\n', { end: false })
  })
  const rec = record(srv.eventSource('/a/b/start?q=1'))
  if (!await opened(t, rec)) return
  t.same(srv.requests.map((r) => r.url), ['/a/b/start?q=1', '/a/c/next?x=%20y', '/abs'])
})

t.test('20 redirects are followed', async (t) => {
  const srv = await serve(t, (req, res) => {
    const n = Number(req.url.slice(3))
    if (n < 20) redirect(res, 302, `/r/${n + 1}`)
    else sse(res, 'data: end of chain\n\n', { end: false })
  })
  const rec = record(srv.eventSource('/r/0'))
  if (!await opened(t, rec)) return
  t.equal((await rec.wait('message')).data, 'end of chain')
  t.equal(srv.requests.length, 21)
})

t.test('the 21st redirect fails the connection', async (t) => {
  const srv = await serve(t, (req, res) => redirect(res, 301, `/r/${Number(req.url.slice(3)) + 1}`))
  const es = srv.eventSource('/r/0')
  await failed(t, record(es), es)
  t.equal(srv.requests.length, 21, 'the initial request and 20 redirects')
})

t.test('a redirect loop fails the connection', async (t) => {
  const srv = await serve(t, (req, res) => redirect(res, 307, '/loop'))
  const es = srv.eventSource('/loop')
  await failed(t, record(es), es)
  t.equal(srv.requests.length, 21)
})

t.test('the redirect limit counts per connection attempt', async (t) => {
  let finals = 0
  const srv = await serve(t, (req, res) => {
    if (req.url.startsWith('/hop/')) {
      const n = Number(req.url.slice(5))
      redirect(res, 302, n < 15 ? `/hop/${n + 1}` : '/final')
    } else if (finals++ === 1) {
      redirect(res, 302, '/hop/0')
    } else {
      sse(res, 'data: x\n\n', { end: finals === 1 })
    }
  })
  const rec = record(srv.eventSource('/hop/0'))
  if (!await opened(t, rec)) return
  await rec.wait('open', 2)
  t.equal(srv.requests.length, 35, '16 redirects, the end; 17 redirects, the open stream')
  t.equal(rec.count('error'), 1)
})

t.test('an unparsable Location fails the connection', async (t) => {
  for (const location of ['http://[bad', 'http://exa mple.com/', 'https://:80/']) {
    const srv = await serve(t, (req, res) => redirect(res, 302, location))
    const es = srv.eventSource('/')
    await failed(t, record(es), es)
    t.equal(srv.requests.length, 1, `${location}: no further request`)
  }
})

t.test('a Location with another scheme fails the connection', async (t) => {
  for (const location of ['ftp://127.0.0.1/feed', 'data:text/event-stream,data:%20x%0A%0A', 'file:///etc/hosts',
    'javascript:void(0)', 'ws://127.0.0.1/']) {
    const srv = await serve(t, (req, res) => redirect(res, 307, location))
    const es = srv.eventSource('/')
    await failed(t, record(es), es)
    t.equal(srv.requests.length, 1, `${location}: no further request`)
  }
})

t.test('Origin across redirects', async (t) => {
  t.teardown(() => { delete globalThis.location })

  // A server on 127.0.0.1 and the same server named localhost: two origins, one socket.
  async function pair (t, handler) {
    const srv = await serve(t, handler)
    return { srv, local: `http://127.0.0.1:${srv.port}`, named: `http://localhost:${srv.port}` }
  }
  const stream = (res) => sse(res, 'data: x\n\n', { end: false })

  t.test('same-origin, then cross-origin: the document origin', async (t) => {
    const { srv, local, named } = await pair(t, (req, res) =>
      req.url === '/start' ? redirect(res, 302, `${named}/end`) : stream(res))
    globalThis.location = { href: `${local}/page` }
    if (!await opened(t, record(srv.eventSource(`${local}/start`)))) return
    t.same(srv.requests.map((r) => r.headers.origin), [undefined, local])
  })

  t.test('cross-origin, then another origin: null (tainted)', async (t) => {
    const { srv, local, named } = await pair(t, (req, res) =>
      req.url === '/start' ? redirect(res, 302, `${named}/end`) : stream(res))
    globalThis.location = { href: 'http://document.example/' }
    if (!await opened(t, record(srv.eventSource(`${local}/start`)))) return
    t.same(srv.requests.map((r) => r.headers.origin), ['http://document.example', 'null'])
  })

  t.test('cross-origin, then back to the document origin: still null', async (t) => {
    const { srv, local, named } = await pair(t, (req, res) =>
      req.url === '/start' ? redirect(res, 302, `${local}/end`) : stream(res))
    globalThis.location = { href: `${local}/` }
    if (!await opened(t, record(srv.eventSource(`${named}/start`)))) return
    t.same(srv.requests.map((r) => r.headers.origin), [local, 'null'])
  })

  t.test('cross-origin, then the same foreign origin: the document origin', async (t) => {
    const { srv, named } = await pair(t, (req, res) =>
      req.url === '/start' ? redirect(res, 302, '/end') : stream(res))
    globalThis.location = { href: 'http://document.example/' }
    if (!await opened(t, record(srv.eventSource(`${named}/start`)))) return
    t.same(srv.requests.map((r) => r.headers.origin), ['http://document.example', 'http://document.example'])
  })

  t.test('without a document, never an Origin header', async (t) => {
    delete globalThis.location
    const { srv, local, named } = await pair(t, (req, res) =>
      req.url === '/start' ? redirect(res, 302, `${named}/end`) : stream(res))
    if (!await opened(t, record(srv.eventSource(`${local}/start`)))) return
    t.same(srv.requests.map((r) => r.headers.origin), [undefined, undefined])
  })
})
