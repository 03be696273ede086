'use strict'

// init.headers in all its forms, init.lastEventId, and what a headers function's failure does.

const t = require('tap')
const { Agent } = require('undici')
const { EventSource, EventSourceErrorEvent } = require('../../')
const { SSE_HEADERS, serve, open, record, closedPort } = require('../helpers/index.cjs')

/** The headers the server received on its first request for `init`. */
async function firstRequestHeaders (t, init) {
  const server = await serve(t, (req, res) => res.writeHead(200, SSE_HEADERS).flushHeaders())
  const es = open(t, server.url(), init)
  const rec = record(es)
  const req = await server.request(0)
  await rec.wait('open')
  return req.headers
}

t.test('headers as a record, a Headers, an array of pairs, any iterable of pairs', async (t) => {
  const forms = {
    record: { 'X-Token': 'abc', 'x-num': 42 },
    Headers: new Headers({ 'X-Token': 'abc', 'x-num': '42' }),
    pairs: [['X-Token', 'abc'], ['x-num', '42']],
    Map: new Map([['X-Token', 'abc'], ['x-num', 42]])
  }
  for (const [form, headers] of Object.entries(forms)) {
    const got = await firstRequestHeaders(t, { headers })
    t.equal(got['x-token'], 'abc', `${form}: x-token`)
    t.equal(got['x-num'], '42', `${form}: a value is converted to a string`)
    t.equal(got.accept, 'text/event-stream', `${form}: the standard headers are still sent`)
    t.equal(got['cache-control'], 'no-cache', `${form}: cache-control`)
  }
})

t.test('repeated names are combined, values trimmed, standard headers overridable', async (t) => {
  const got = await firstRequestHeaders(t, {
    headers: [['X-List', 'a'], ['x-list', 'b'], ['X-Edge', ' \t padded \r\n'], ['Accept', 'text/event-stream, */*;q=0.1'], ['x-latin1', 'caf\u00e9']]
  })
  t.equal(got['x-list'], 'a, b')
  t.equal(got['x-edge'], 'padded', 'leading and trailing whitespace (CR and LF included) is removed, as fetch does')
  t.equal(got.accept, 'text/event-stream, */*;q=0.1', 'a user Accept replaces the default')
  t.equal(Buffer.from(got['x-latin1'], 'latin1').toString('latin1'), 'caf\u00e9', 'characters up to U+00FF go out as single bytes')
})

t.test('a headers function is called once per attempt with { attempt, lastEventId, url }', async (t) => {
  // Each response sends an event with an ID and ends, so every attempt has a new last event ID.
  const server = await serve(t, (req, res, i) => {
    if (i < 2) res.writeHead(200, SSE_HEADERS).end(`id: id-${i}\ndata: ${i}\n\n`)
    else res.writeHead(200, SSE_HEADERS).flushHeaders()
  })
  const calls = []
  const es = open(t, server.url('/stream?q=1'), {
    reconnect: { delay: 0 },
    headers (context) {
      calls.push(context)
      return { 'X-Attempt': String(context.attempt) }
    }
  })
  const rec = record(es)
  await rec.wait('open', 3)
  t.match(calls, [
    { attempt: 1, lastEventId: '', url: server.url('/stream?q=1') },
    { attempt: 2, lastEventId: 'id-0', url: server.url('/stream?q=1') },
    { attempt: 3, lastEventId: 'id-1', url: server.url('/stream?q=1') }
  ], 'one call per request, in order, before it is sent')
  t.same(server.requests.map((r) => r.headers['x-attempt']), ['1', '2', '3'], 'each request carries its own result')
  t.same(server.requests.map((r) => r.headers['last-event-id']), [undefined, 'id-0', 'id-1'])
})

t.test('an async headers function (a token refreshed per attempt)', async (t) => {
  const server = await serve(t, (req, res, i) => {
    if (i === 0) res.writeHead(200, SSE_HEADERS).end('data: x\n\n')
    else res.writeHead(200, SSE_HEADERS).flushHeaders()
  })
  const calls = []
  const es = open(t, server.url(), {
    reconnectionTime: 0,
    async headers (context) {
      calls.push(context.attempt)
      await new Promise((resolve) => setImmediate(resolve))
      return new Headers({ Authorization: `Bearer token-${context.attempt}` })
    }
  })
  await record(es).wait('open', 2)
  t.same(calls, [1, 2])
  t.same(server.requests.map((r) => r.headers.authorization), ['Bearer token-1', 'Bearer token-2'])
})

t.test('the url in the context is the final URL after a redirect', async (t) => {
  const server = await serve(t, (req, res) => {
    if (req.url === '/start') res.writeHead(302, { location: '/final' }).end()
    else if (req.url === '/final' && !req.headers['x-seen']) res.writeHead(200, SSE_HEADERS).end('data: x\n\n')
    else res.writeHead(200, SSE_HEADERS).flushHeaders()
  })
  const urls = []
  const es = open(t, server.url('/start'), {
    reconnectionTime: 0,
    headers: ({ attempt, url }) => { urls.push(url); return attempt > 1 ? { 'x-seen': '1' } : null }
  })
  await record(es).wait('open', 2)
  t.same(urls, [server.url('/start'), server.url('/final')], 'reconnections go to the final URL, and say so')
  t.same(server.requests.map((r) => r.url), ['/start', '/final', '/final'], 'one call per attempt, not per redirect')
})

t.test('a headers function returning nothing sends no extra headers', async (t) => {
  for (const result of [undefined, null]) {
    const got = await firstRequestHeaders(t, { headers: () => result })
    t.equal(got.accept, 'text/event-stream', `${result}: the request is sent`)
  }
})

for (const [kind, fn] of [
  ['throws', () => { throw new Error('token service down') }],
  ['rejects', async () => { throw new Error('token service down') }]
]) {
  t.test(`a headers function that ${kind} reestablishes the connection`, async (t) => {
    const server = await serve(t, (req, res) => res.writeHead(200, SSE_HEADERS).flushHeaders())
    let calls = 0
    const es = open(t, server.url(), {
      reconnectionTime: 5,
      headers: (context) => ++calls === 1 ? fn(context) : { 'x-token': 'ok' }
    })
    const rec = record(es)
    await rec.wait('open')
    const [{ event: error }] = rec.of('error')
    t.ok(error instanceof EventSourceErrorEvent, 'an EventSourceErrorEvent')
    t.equal(error.code, 'ERR_EVENTSOURCE_REQUEST_INIT')
    t.equal(error.message, 'init.headers() failed: token service down')
    t.ok(error.cause instanceof Error && error.cause.message === 'token service down', 'cause: what the function threw')
    t.equal(error.willReconnect, true)
    t.equal(error.reconnectDelay, 5)
    t.same(rec.events.map((e) => [e.type, e.readyState]), [['error', EventSource.CONNECTING], ['open', EventSource.OPEN]])
    t.equal(server.requests.length, 1, 'the failed attempt sent no request')
    t.equal(server.requests[0].headers['x-token'], 'ok')
  })
}

t.test('what a headers function throws need not be an Error', async (t) => {
  const es = new EventSource('http://127.0.0.1:1/', { reconnectionTime: 60000, headers: () => { throw 'nope' } }) // eslint-disable-line no-throw-literal
  t.teardown(() => es.close())
  const { event: error } = await record(es).wait('error')
  t.equal(error.code, 'ERR_EVENTSOURCE_REQUEST_INIT')
  t.equal(error.message, 'init.headers() failed: nope')
  t.ok(error.cause instanceof Error, 'the cause is an Error, as typed')
  t.equal(error.cause.message, 'nope')
})

t.test('a headers function returning invalid headers fails the connection', async (t) => {
  const cases = [
    [() => ({ 'bad name': 'x' }), 'ERR_INVALID_HTTP_TOKEN', /^Header name in the result of init\.headers\(\) must be a valid HTTP token/],
    [async () => ({ 'x-a': 'b\r\nx-injected: 1' }), 'ERR_INVALID_CHAR', /header "x-a" of the result of init\.headers\(\)/],
    [() => [['Last-Event-ID', '3']], 'ERR_INVALID_ARG_VALUE', /must not set Last-Event-ID/],
    [async () => 'x-token: abc', 'ERR_INVALID_ARG_TYPE', /"the result of init\.headers\(\)"/],
    [() => ({ Host: 'a b' }), 'ERR_INVALID_ARG_VALUE', /is not a Host value for header "Host"/]
  ]
  for (const [headers, code, message] of cases) {
    let dispatched = 0
    const agent = new Agent()
    t.teardown(() => agent.close())
    const dispatcher = { dispatch: (o, h) => { dispatched++; return agent.dispatch(o, h) } }
    const es = open(t, `http://127.0.0.1:${await closedPort()}/`, { headers, dispatcher, reconnectionTime: 0 })
    const rec = record(es)
    const { event: error } = await rec.wait('error')
    t.equal(error.code, code)
    t.match(error.message, message)
    t.equal(error.willReconnect, false, `${code}: no reconnection, it would send the same`)
    t.equal(error.reconnectDelay, undefined)
    t.equal(rec.events[0].readyState, EventSource.CLOSED)
    t.equal(es.readyState, EventSource.CLOSED)
    t.equal(error.cause?.code, code, 'cause: the validation error')
    t.equal(dispatched, 0, 'no request was sent')
  }
})

t.test('a Host header must be a host and a port: refused at construction, on every transport', async (t) => {
  for (const host of ['a b', 'a/b', 'user@a', 'a?b', 'a#b', '[::1', 'a:b', '']) {
    for (const http2 of [undefined, { priorKnowledge: true }]) {
      let err = null
      try {
        const es = new EventSource('http://127.0.0.1:1/', { headers: { host }, http2 })
        es.close()
      } catch (error) {
        err = error
      }
      t.equal(err?.code, 'ERR_INVALID_ARG_VALUE', `${JSON.stringify(host)}${http2 ? ', http2' : ''}: refused`)
    }
  }
  // What a server can be told: a name, an address, an IP literal, each with or without a port.
  for (const host of ['example.test', 'Example.TEST:8080', '10.0.0.1:1', '[::1]:3000', 'xn--bcher-kva.example']) {
    t.equal((await firstRequestHeaders(t, { headers: { host } })).host, host, `${host}: sent as given`)
  }
})

t.test('close() while an async headers function runs: nothing is sent, nothing dispatched', async (t) => {
  for (const outcome of ['resolve', 'reject']) {
    let dispatched = 0
    const dispatcher = { dispatch () { dispatched++ } }
    let settle
    const pending = new Promise((resolve, reject) => { settle = outcome === 'resolve' ? () => resolve({ 'x-a': 'b' }) : () => reject(new Error('late')) })
    let called
    const calledPromise = new Promise((resolve) => { called = resolve })
    const es = open(t, 'http://127.0.0.1:1/', { dispatcher, headers: () => { called(); return pending } })
    const rec = record(es)
    await calledPromise
    es.close()
    settle()
    await pending.catch(() => {})
    // The EventSource's own continuation was queued before ours: it has run by the next macrotask.
    await new Promise((resolve) => setImmediate(resolve))
    t.equal(dispatched, 0, `${outcome}: no request`)
    t.same(rec.events, [], `${outcome}: no event`)
  }
})

t.test('lastEventId is sent as Last-Event-ID on the very first request', async (t) => {
  const server = await serve(t, (req, res, i) => {
    if (i === 0) res.writeHead(200, SSE_HEADERS).end('data: no id\n\n')
    else if (i === 1) res.writeHead(200, SSE_HEADERS).end('id: server-1\ndata: x\n\n')
    else res.writeHead(200, SSE_HEADERS).flushHeaders()
  })
  const contexts = []
  const es = open(t, server.url(), {
    lastEventId: 'resume-from-41',
    reconnectionTime: 0,
    headers: (context) => { contexts.push(context.lastEventId) }
  })
  const rec = record(es)
  await rec.wait('open', 3)
  t.same(server.requests.map((r) => r.headers['last-event-id']), ['resume-from-41', 'resume-from-41', 'server-1'],
    'first request; kept until the server sends an ID; then the server\'s')
  t.same(contexts, ['resume-from-41', 'resume-from-41', 'server-1'], 'the headers function sees it too')
  t.same(rec.of('message').map((e) => e.lastEventId), ['resume-from-41', 'server-1'], 'events carry it')
})

t.test('a non-ASCII lastEventId goes out as UTF-8; an empty one sends no header', async (t) => {
  const got = await firstRequestHeaders(t, { lastEventId: 'caf\u00e9-\u{1f600}' })
  t.equal(Buffer.from(got['last-event-id'], 'latin1').toString('utf8'), 'caf\u00e9-\u{1f600}')
  const none = await firstRequestHeaders(t, { lastEventId: '' })
  t.notOk('last-event-id' in none)
})
