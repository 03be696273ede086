'use strict'

// What EventSource sends: method, target, the fixed request headers, Last-Event-ID on reconnection,
// and Origin when there is a document origin (globalThis.location).
// https://html.spec.whatwg.org/multipage/server-sent-events.html#the-last-event-id-header
// https://fetch.spec.whatwg.org/#origin-header

const t = require('tap')
const { EventSource } = require('../../')
const { serve, sse, record, closeAtTeardown } = require('../helpers/index.cjs')

// Node's server decodes header values as latin1; EventSource sends the UTF-8 bytes of the ID.
function lastEventId (req) {
  const value = req.headers['last-event-id']
  return value === undefined ? undefined : Buffer.from(value, 'latin1').toString('utf8')
}

// Serves bodies[i] to the i-th request and ends it; the last body is served without ending.
async function sequence (t, bodies) {
  const srv = await serve(t, (req, res, i) => {
    const last = i >= bodies.length - 1
    sse(res, bodies[Math.min(i, bodies.length - 1)], { end: !last })
  })
  return srv
}

t.test('the first request', async (t) => {
  const srv = await serve(t, (req, res) => sse(res, 'data: x\n\n', { end: false }))
  const es = srv.eventSource('/path/to%20stream?a=1&b=%C3%A9#fragment')
  await record(es).wait('message')
  const req = srv.requests[0]
  t.equal(req.method, 'GET')
  t.equal(req.url, '/path/to%20stream?a=1&b=%C3%A9', 'path and query, no fragment')
  t.equal(req.headers.host, `127.0.0.1:${srv.port}`)
  t.equal(req.headers.accept, 'text/event-stream')
  t.equal(req.headers['cache-control'], 'no-cache')
  // HTML sets the request's cache mode to "no-store"; fetch then adds both of these headers (WPT
  // fetch/http-cache/cache-mode.any.js: "Cache-Control: no-cache and Pragma: no-cache").
  t.equal(req.headers.pragma, 'no-cache', 'Pragma: no-cache')
  // What Node's fetch sends with it for an EventSource's request (on Node 20 to 26), so that a server sees
  // the same request from Node's built-in EventSource and from this one: the request's mode, the codings
  // decoded (br over https: only, test/transport/eventsource-encoding.test.cjs), Accept-Language and User-Agent.
  t.equal(req.headers['sec-fetch-mode'], 'cors')
  t.equal(req.headers['accept-encoding'], 'gzip, deflate')
  t.equal(req.headers['accept-language'], '*')
  t.equal(req.headers['user-agent'], 'node')
  t.notOk('last-event-id' in req.headers, 'no Last-Event-ID on the first request')
  t.notOk('origin' in req.headers, 'no Origin without a document')
  for (const name of ['authorization', 'cookie', 'content-type', 'content-length', 'transfer-encoding']) {
    t.notOk(name in req.headers, `no ${name}`)
  }
  t.equal(req.headers['content-length'], undefined, 'no body')
})

t.test('withCredentials does not change the request', async (t) => {
  const srv = await serve(t, (req, res) => sse(res, 'data: x\n\n', { end: false }))
  await record(srv.eventSource('/', { withCredentials: true, reconnectionTime: 10 })).wait('message')
  t.notOk('cookie' in srv.requests[0].headers)
  t.notOk('authorization' in srv.requests[0].headers)
  t.equal(srv.requests[0].headers.accept, 'text/event-stream')
})

t.test('Last-Event-ID carries the last event ID on reconnection', async (t) => {
  const srv = await sequence(t, ['id: 42\ndata: first\n\n', 'data: second\n\n'])
  const rec = record(srv.eventSource('/'))
  await rec.wait('message', 2)
  t.equal(lastEventId(srv.requests[0]), undefined)
  t.equal(lastEventId(srv.requests[1]), '42')
  t.same(rec.events.filter((e) => e.type === 'message').map((e) => e.lastEventId), ['42', '42'],
    'an event without id keeps the last event ID, also after reconnecting')
  t.equal(srv.requests[1].headers.accept, 'text/event-stream', 'reconnections send the same headers')
  t.equal(srv.requests[1].headers['cache-control'], 'no-cache')
})

t.test('a non-ASCII last event ID is sent as UTF-8 bytes', async (t) => {
  const id = 'é☃😀 \u00ff\u0100'
  const srv = await sequence(t, [`id: ${id}\ndata: x\n\n`, 'data: y\n\n'])
  await record(srv.eventSource('/')).wait('message', 2)
  const raw = srv.requests[1].headers['last-event-id']
  t.same(Buffer.from(raw, 'latin1'), Buffer.from(id, 'utf8'), 'the exact UTF-8 bytes are on the wire')
  t.equal(lastEventId(srv.requests[1]), id)
})

t.test('ID with spaces and punctuation is sent as it is', async (t) => {
  const id = ' a b:c\t,d; e '
  const srv = await sequence(t, [`id:${id}\ndata: x\n\n`, 'data: y\n\n'])
  await record(srv.eventSource('/')).wait('message', 2)
  // HTTP strips leading and trailing whitespace from field values; the inside survives.
  t.equal(lastEventId(srv.requests[1]), id.trim())
})

t.test('an id without data still sets the last event ID', async (t) => {
  const srv = await sequence(t, ['data: a\nid: 1\n\nid: 2\n\n', ':\n'])
  const rec = record(srv.eventSource('/'))
  await srv.request(1)
  t.equal(lastEventId(srv.requests[1]), '2')
  t.same(rec.data(), ['a'], 'the event without data was not dispatched')
})

t.test('an id on an unterminated last event is not used', async (t) => {
  // "If the file ends in the middle of an event, before the final empty line, the incomplete event is
  // not dispatched": its id never reaches the last event ID string either.
  const srv = await sequence(t, ['id: 1\ndata: a\n\nid: 2\ndata: b\n', ':\n'])
  const rec = record(srv.eventSource('/'))
  await srv.request(1)
  t.equal(lastEventId(srv.requests[1]), '1')
  t.same(rec.data(), ['a'])
})

t.test('an empty id resets the last event ID: no header', async (t) => {
  const srv = await sequence(t, ['id: 1\ndata: a\n\n', 'id\ndata: b\n\n', 'id: 3\ndata: c\n\n', 'id:\n\n', ':\n'])
  const rec = record(srv.eventSource('/'))
  await srv.request(4)
  t.same(srv.requests.map(lastEventId), [undefined, '1', undefined, '3', undefined])
  t.same(rec.events.filter((e) => e.type === 'message').map((e) => e.lastEventId), ['1', '', '3'])
})

t.test('an id containing NUL is ignored', async (t) => {
  const srv = await sequence(t, ['id: 7\ndata: a\n\nid: 8\u00009\ndata: b\n\n', ':\n'])
  const rec = record(srv.eventSource('/'))
  await srv.request(1)
  t.same(rec.events.filter((e) => e.type === 'message').map((e) => e.lastEventId), ['7', '7'])
  t.equal(lastEventId(srv.requests[1]), '7')
})

t.test('the last event ID survives several reconnections', async (t) => {
  const srv = await sequence(t, ['id: x\n\n', ':\n', 'data: a\n\n', ':\n'])
  srv.eventSource('/')
  await srv.request(3)
  t.same(srv.requests.map(lastEventId), [undefined, 'x', 'x', 'x'])
})

t.test('Origin', async (t) => {
  t.teardown(() => { delete globalThis.location })

  t.test('same-origin: no Origin header', async (t) => {
    const srv = await serve(t, (req, res) => sse(res, 'data: x\n\n', { end: false }))
    globalThis.location = { href: `${srv.origin}/page.html` }
    await record(srv.eventSource('/')).wait('message')
    t.notOk('origin' in srv.requests[0].headers)
  })

  t.test('cross-origin: Origin is the document origin', async (t) => {
    const srv = await serve(t, (req, res, i) => sse(res, 'data: x\n\n', { end: i === 0 }))
    globalThis.location = { href: 'https://app.example:8443/some/page?q#h' }
    const rec = record(srv.eventSource('/'))
    await rec.wait('message', 2)
    t.equal(srv.requests[0].headers.origin, 'https://app.example:8443')
    t.equal(srv.requests[1].headers.origin, 'https://app.example:8443', 'also on reconnection')
  })

  t.test('127.0.0.1 and localhost are different origins', async (t) => {
    const srv = await serve(t, (req, res) => sse(res, 'data: x\n\n', { end: false }), { host: 'localhost' })
    globalThis.location = { href: `http://127.0.0.1:${srv.port}/` }
    await record(srv.eventSource('/')).wait('message')
    t.equal(srv.requests[0].headers.origin, `http://127.0.0.1:${srv.port}`)
  })

  t.test('a different port is a different origin', async (t) => {
    const srv = await serve(t, (req, res) => sse(res, 'data: x\n\n', { end: false }))
    globalThis.location = { href: `http://127.0.0.1:${srv.port === 1 ? 2 : srv.port - 1}/` }
    await record(srv.eventSource('/')).wait('message')
    t.equal(srv.requests[0].headers.origin, globalThis.location.href.slice(0, -1))
  })

  t.test('a relative URL resolves against the document and is same-origin', async (t) => {
    const srv = await serve(t, (req, res) => sse(res, 'data: x\n\n', { end: false }))
    globalThis.location = { href: `${srv.origin}/app/index.html` }
    const es = closeAtTeardown(t, new EventSource('events?x=1', { reconnectionTime: 10 }))
    await record(es).wait('message')
    t.equal(es.url, `${srv.origin}/app/events?x=1`)
    t.equal(srv.requests[0].url, '/app/events?x=1')
    t.notOk('origin' in srv.requests[0].headers)
  })

  t.test('the document origin is read when the request starts', async (t) => {
    const srv = await serve(t, (req, res, i) => sse(res, 'data: x\n\n', { end: i === 0 }))
    globalThis.location = { href: 'http://first.example/' }
    const es = srv.eventSource('/')
    es.addEventListener('error', () => { globalThis.location = { href: 'http://second.example/' } }, { once: true })
    await record(es).wait('message', 2)
    t.same(srv.requests.map((r) => r.headers.origin), ['http://first.example', 'http://second.example'])
  })
})
