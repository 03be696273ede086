'use strict'

// init.method and init.body: every body form with the Content-Type fetch would give it, bodies re-sent
// on reconnection or computed per attempt, and what redirects do to them.

const t = require('tap')
const { EventSource } = require('../../')
const { SSE_HEADERS, serve, open, record } = require('../helpers/index.cjs')

/** The first request the server receives for `init`. */
async function firstRequest (t, init) {
  const server = await serve(t, (req, res) => res.writeHead(200, SSE_HEADERS).flushHeaders())
  const es = open(t, server.url(), init)
  const req = await server.request(0)
  await record(es).wait('open')
  return req
}

t.test('each body form, with its Content-Type', async (t) => {
  const bytes = Uint8Array.from([0, 1, 2, 250, 255])
  const window = new Uint8Array([9, 9, 0, 1, 2, 250, 255, 9]).subarray(2, 7)
  const cases = [
    ['a string', 'h\u00e9llo \u{1f600}', Buffer.from('h\u00e9llo \u{1f600}'), 'text/plain;charset=UTF-8'],
    ['an empty string', '', Buffer.alloc(0), 'text/plain;charset=UTF-8'],
    ['a Buffer', Buffer.from(bytes), Buffer.from(bytes), undefined],
    ['a Uint8Array', bytes, Buffer.from(bytes), undefined],
    ['a Uint8Array over part of its buffer', window, Buffer.from(bytes), undefined],
    ['an ArrayBuffer', bytes.buffer, Buffer.from(bytes), undefined],
    ['URLSearchParams', new URLSearchParams({ a: '1', b: 'x y&z' }), Buffer.from('a=1&b=x+y%26z'), 'application/x-www-form-urlencoded;charset=UTF-8']
  ]
  for (const [what, body, expected, type] of cases) {
    const req = await firstRequest(t, { method: 'POST', body })
    t.equal(req.method, 'POST', `${what}: method`)
    t.same(req.body, expected, `${what}: the bytes`)
    t.equal(req.headers['content-type'], type, `${what}: content-type`)
    t.equal(req.headers['content-length'], String(expected.length), `${what}: content-length`)
    t.equal(req.headers.accept, 'text/event-stream', `${what}: still an EventSource request`)
  }
})

t.test('a Content-Type in init.headers wins over the body\'s', async (t) => {
  const req = await firstRequest(t, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"q":1}' })
  t.equal(req.headers['content-type'], 'application/json')
  t.equal(req.body.toString(), '{"q":1}')
})

t.test('method names are normalized as fetch does; others are sent as given', async (t) => {
  for (const [given, sent] of [['post', 'POST'], ['Put', 'PUT'], ['delete', 'DELETE'], ['options', 'OPTIONS'], ['SEARCH', 'SEARCH']]) {
    const req = await firstRequest(t, { method: given, body: 'x' })
    t.equal(req.method, sent, `${given} -> ${sent}`)
  }
  const req = await firstRequest(t, { method: 'POST' })
  t.equal(req.method, 'POST', 'a method without a body')
  t.equal(req.body.length, 0)
})

t.test('with idempotent: true, the body is sent again on every reconnection', async (t) => {
  const server = await serve(t, (req, res, i) => {
    if (i < 2) res.writeHead(200, SSE_HEADERS).end(`id: ${i}\ndata: ${i}\n\n`)
    else res.writeHead(200, SSE_HEADERS).flushHeaders()
  })
  const body = new URLSearchParams({ topic: 'news' })
  const es = open(t, server.url(), { method: 'POST', body, reconnectionTime: 0, idempotent: true })
  await record(es).wait('open', 3)
  t.same(server.requests.map((r) => [r.method, r.body.toString(), r.headers['content-type'], r.headers['last-event-id']]), [
    ['POST', 'topic=news', 'application/x-www-form-urlencoded;charset=UTF-8', undefined],
    ['POST', 'topic=news', 'application/x-www-form-urlencoded;charset=UTF-8', '0'],
    ['POST', 'topic=news', 'application/x-www-form-urlencoded;charset=UTF-8', '1']
  ])
})

t.test('a body function is called per attempt, sync or async', async (t) => {
  for (const kind of ['sync', 'async']) {
    const server = await serve(t, (req, res, i) => {
      if (i === 0) res.writeHead(200, SSE_HEADERS).end('id: a\ndata: x\n\n')
      else res.writeHead(200, SSE_HEADERS).flushHeaders()
    })
    const contexts = []
    const make = (context) => {
      contexts.push(context)
      return JSON.stringify({ attempt: context.attempt, since: context.lastEventId })
    }
    const es = open(t, server.url(), {
      method: 'POST',
      reconnectionTime: 0,
      idempotent: true,
      body: kind === 'sync' ? make : async (context) => make(context)
    })
    await record(es).wait('open', 2)
    t.match(contexts, [
      { attempt: 1, lastEventId: '', url: server.url() },
      { attempt: 2, lastEventId: 'a', url: server.url() }
    ], `${kind}: one call per attempt`)
    t.same(server.requests.map((r) => r.body.toString()), ['{"attempt":1,"since":""}', '{"attempt":2,"since":"a"}'], `${kind}: bodies`)
    t.same(server.requests.map((r) => r.headers['content-type']), ['text/plain;charset=UTF-8', 'text/plain;charset=UTF-8'])
  }
})

t.test('a body function returning bytes, with headers from a function too', async (t) => {
  const req = await firstRequest(t, {
    method: 'PUT',
    headers: async () => ({ 'content-type': 'application/octet-stream' }),
    body: async () => new Uint8Array([1, 2, 3])
  })
  t.same(req.body, Buffer.from([1, 2, 3]))
  t.equal(req.headers['content-type'], 'application/octet-stream')
})

t.test('a body function that throws reestablishes; one returning a non-body fails', async (t) => {
  const server = await serve(t, (req, res) => res.writeHead(200, SSE_HEADERS).flushHeaders())
  let calls = 0
  const es = open(t, server.url(), {
    method: 'POST',
    reconnectionTime: 0,
    // A POST that may be sent again: without it the first failure, whatever it is, fails the source.
    idempotent: true,
    body: () => { if (++calls === 1) throw new Error('no body yet'); return 'ok' }
  })
  const rec = record(es)
  await rec.wait('open')
  const [{ event: error }] = rec.of('error')
  t.equal(error.code, 'ERR_EVENTSOURCE_REQUEST_INIT')
  t.equal(error.message, 'init.body() failed: no body yet')
  t.equal(error.willReconnect, true)
  t.equal(server.requests.length, 1)
  t.equal(server.requests[0].body.toString(), 'ok')

  for (const body of [() => 42, async () => ({}), () => undefined]) {
    const failing = open(t, server.url(), { method: 'POST', body, reconnectionTime: 0 })
    const rec = record(failing)
    const { event: error } = await rec.wait('error')
    t.equal(error.code, 'ERR_INVALID_ARG_TYPE')
    t.match(error.message, /^The "the result of init\.body\(\)" property must be a string, Buffer/)
    t.equal(error.willReconnect, false)
    t.equal(failing.readyState, EventSource.CLOSED)
  }
  t.equal(server.requests.length, 1, 'none of the failing ones sent a request')
})

t.test('a rejecting headers function and a throwing body function in the same attempt', async (t) => {
  const unhandled = []
  const onUnhandled = (reason) => unhandled.push(reason)
  process.on('unhandledRejection', onUnhandled)
  t.teardown(() => process.off('unhandledRejection', onUnhandled))
  const es = new EventSource('http://127.0.0.1:1/', {
    method: 'POST',
    idempotent: true,
    reconnectionTime: 60000,
    headers: async () => { throw new Error('token service down') },
    body: () => { throw new Error('no body') }
  })
  t.teardown(() => es.close())
  const { event: error } = await record(es).wait('error')
  t.equal(error.code, 'ERR_EVENTSOURCE_REQUEST_INIT')
  t.equal(error.willReconnect, true)
  // An unhandled rejection is reported after the microtask queue drains, before the next macrotask.
  await new Promise((resolve) => setImmediate(resolve))
  t.same(unhandled.map((r) => r?.message), [], 'no unhandled rejection')
})

t.test('redirects: 307 keeps POST and its body; 302 and 303 turn it into a body-less GET', async (t) => {
  for (const status of [307, 308, 302, 301, 303]) {
    const server = await serve(t, (req, res) => {
      if (req.url === '/start') res.writeHead(status, { location: '/events' }).end()
      else res.writeHead(200, SSE_HEADERS).flushHeaders()
    })
    const es = open(t, server.url('/start'), { method: 'POST', body: 'payload', headers: { 'x-keep': 'yes' } })
    await record(es).wait('open')
    const [first, second] = server.requests
    t.equal(first.method, 'POST')
    const keeps = status === 307 || status === 308
    t.same([second.method, second.body.toString(), second.headers['content-type']],
      keeps ? ['POST', 'payload', 'text/plain;charset=UTF-8'] : ['GET', '', undefined], `${status}`)
    t.equal(second.headers['x-keep'], 'yes', `${status}: other user headers stay`)
  }
})

t.test('after a redirect turned POST into GET, reconnections are GETs without a body', async (t) => {
  const server = await serve(t, (req, res, i) => {
    if (req.url === '/start') res.writeHead(303, { location: '/events' }).end()
    else if (i === 1) res.writeHead(200, SSE_HEADERS).end('data: x\n\n')
    else res.writeHead(200, SSE_HEADERS).flushHeaders()
  })
  let bodies = 0
  const es = open(t, server.url('/start'), { method: 'POST', body: () => `body ${++bodies}`, reconnectionTime: 0 })
  await record(es).wait('open', 2)
  t.same(server.requests.map((r) => [r.method, r.url, r.body.toString(), r.headers['content-type']]), [
    ['POST', '/start', 'body 1', 'text/plain;charset=UTF-8'],
    ['GET', '/events', '', undefined],
    ['GET', '/events', '', undefined]
  ])
})

t.test('303 turns a PUT into a GET too; 302 leaves it alone', async (t) => {
  for (const [status, method, body] of [[303, 'GET', ''], [302, 'PUT', 'p']]) {
    const server = await serve(t, (req, res) => {
      if (req.url === '/start') res.writeHead(status, { location: '/events' }).end()
      else res.writeHead(200, SSE_HEADERS).flushHeaders()
    })
    const es = open(t, server.url('/start'), { method: 'PUT', body: 'p' })
    await record(es).wait('open')
    t.same([server.requests[1].method, server.requests[1].body.toString()], [method, body], `${status}`)
  }
})
