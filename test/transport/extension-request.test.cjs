'use strict'

// init.request: the request of each attempt as code. What it is given (attempt, last event ID, the
// URL and method requests go with now, why the previous attempt ended and that response's headers),
// what it may change (URL, method, headers, body), the credential rules for every URL it returns, and
// what happens when it throws or returns something that cannot be sent. Each end-to-end case runs on
// the Dispatcher transport and on the fetch transport (Node's fetch given as init.fetch).

const t = require('tap')
const { EventSource } = require('../../')
const { SSE_HEADERS, serve, open, record, recordChannels, macrotask } = require('../helpers/index.cjs')

const TRANSPORTS = [
  ['dispatcher', {}],
  ['fetch', { fetch: (input, init) => fetch(input, init) }]
]

for (const [transport, base] of TRANSPORTS) {
  t.test(`${transport}: a POST resumed by a GET with Last-Event-ID (MCP's streamable HTTP)`, async (t) => {
    const server = await serve(t, (req, res, i) => {
      if (i === 0) res.writeHead(200, SSE_HEADERS).end('id: s1-0\ndata:\n\nid: s1-1\ndata: progress\n\n')
      else res.writeHead(200, SSE_HEADERS).end(`id: s1-${i + 1}\ndata: more ${i}\n\n`)
    })
    const contexts = []
    const es = open(t, server.url('/mcp'), {
      ...base,
      method: 'POST',
      headers: { 'content-type': 'application/json', 'mcp-session-id': 'abc' },
      body: '{"jsonrpc":"2.0","id":1,"method":"tools/call"}',
      reconnectionTime: 0,
      request (context) {
        contexts.push(context)
        if (context.previous === null) return
        return { method: 'GET', headers: { 'mcp-session-id': 'abc' } }
      }
    })
    const rec = record(es)
    await rec.wait('open', 3)
    const seen = server.requests.map((r) => [r.method, r.url, r.body.toString(), r.headers['content-type'], r.headers['last-event-id'], r.headers['mcp-session-id']])
    t.same(seen, [
      ['POST', '/mcp', '{"jsonrpc":"2.0","id":1,"method":"tools/call"}', 'application/json', undefined, 'abc'],
      ['GET', '/mcp', '', undefined, 's1-1', 'abc'],
      ['GET', '/mcp', '', undefined, 's1-2', 'abc']
    ], 'one POST, then GETs without its body or Content-Type, with Last-Event-ID')
    t.match(contexts[0], { attempt: 1, lastEventId: '', url: server.url('/mcp'), method: 'POST', previous: null })
    t.match(contexts[1], { attempt: 2, lastEventId: 's1-1', method: 'POST', previous: { code: 'ERR_EVENTSOURCE_STREAM_ENDED', status: 200 } })
    t.equal(contexts[1].previous.headers.get('content-type'), 'text/event-stream', 'the previous response\'s headers, as Headers')
    t.match(contexts[2], { attempt: 3, lastEventId: 's1-2', method: 'GET' }, 'the method requests go with now is the last open one\'s')
    t.ok(Object.isFrozen(contexts[1].previous))
    t.same(rec.data().slice(0, 3), ['', 'progress', 'more 1'])
  })

  t.test(`${transport}: a position in the URL's query; url keeps the constructor's value`, async (t) => {
    const server = await serve(t, (req, res) => {
      const offset = Number(new URL(req.url, 'http://x').searchParams.get('offset'))
      res.writeHead(200, SSE_HEADERS).end(`id: ${offset + 1}\ndata: at ${offset}\n\n`)
    })
    const es = open(t, server.url('/log'), {
      ...base,
      reconnectionTime: 0,
      request: ({ lastEventId }) => ({ url: `/log?offset=${lastEventId || 0}` })
    })
    const rec = record(es)
    await rec.wait('message', 3)
    t.same(server.requests.slice(0, 3).map((r) => r.url), ['/log?offset=0', '/log?offset=1', '/log?offset=2'], 'relative to the source\'s URL')
    t.same(rec.data().slice(0, 3), ['at 0', 'at 1', 'at 2'])
    t.equal(es.url, server.url('/log'))
  })

  t.test(`${transport}: a server that names the next URL; each event's origin is its response's`, async (t) => {
    const second = await serve(t, (req, res) => res.writeHead(200, SSE_HEADERS).end(`data: from ${req.url}\n\n`))
    const first = await serve(t, (req, res) => {
      res.writeHead(200, { ...SSE_HEADERS, 'stream-next-url': second.url('/next?cursor=c1') }).end('data: first\n\n')
    })
    const es = open(t, first.url(), {
      ...base,
      reconnectionTime: 0,
      request: ({ previous }) => ({ url: previous?.headers?.get('stream-next-url') ?? undefined })
    })
    const rec = record(es)
    await rec.wait('message', 2)
    t.same(rec.of('message').slice(0, 2).map((e) => [e.data, e.origin]), [['first', first.origin], ['from /next?cursor=c1', second.origin]])
    t.equal(es.url, first.url())
  })

  t.test(`${transport}: credentials go only to the source URL's origin, whatever URL init.request returns`, async (t) => {
    const other = await serve(t, (req, res) => res.writeHead(200, SSE_HEADERS).end('data: other\n\n'))
    const home = await serve(t, (req, res) => res.writeHead(200, SSE_HEADERS).end('data: home\n\n'))
    const credentials = { authorization: 'Bearer secret', cookie: 'a=b', 'x-api-key': 'k', 'x-plain': 'p' }
    for (const returned of ['init', 'result']) {
      const targets = [home.url('/1'), other.url('/2'), home.url('/3')]
      const es = open(t, home.url('/0'), {
        ...base,
        reconnectionTime: 0,
        credentialHeaders: ['X-Api-Key'],
        headers: returned === 'init' ? credentials : undefined,
        request: ({ attempt }) => attempt === 1 ? undefined : { url: targets[attempt - 2], headers: returned === 'result' ? credentials : undefined }
      })
      await record(es).wait('open', 4)
      es.close()
      const at = (server, path) => server.requests.find((r) => r.url === path).headers
      for (const [server, path] of [[home, '/1'], [home, '/3']]) {
        t.match(at(server, path), credentials, `${returned}: ${path} (same origin) carries them`)
      }
      const sent = at(other, '/2')
      t.same([sent.authorization, sent.cookie, sent['x-api-key'], sent['x-plain']], [undefined, undefined, undefined, 'p'],
        `${returned}: another origin gets none of them, and the other headers`)
      home.requests.length = 0
      other.requests.length = 0
    }
  })
}

t.test('what init.request is given after each kind of failure', async (t) => {
  const server = await serve(t, (req, res, i) => {
    if (i === 0) res.writeHead(200, { ...SSE_HEADERS, 'x-cursor': 'c0' }).end('data: a\n\n')
    else if (i === 1) res.writeHead(503, { 'retry-after': '0', 'x-why': 'busy' }).end()
    else if (i === 2) res.writeHead(200, SSE_HEADERS).write(':\n\n', () => res.socket.destroy())
    else res.writeHead(200, SSE_HEADERS).flushHeaders()
  })
  const previous = []
  const es = open(t, server.url(), {
    reconnect: { delay: 0, retryOnStatus: [503] },
    request: (context) => { previous.push(context.previous) }
  })
  await record(es).wait('open', 3)
  t.equal(previous[0], null)
  t.match(previous[1], { code: 'ERR_EVENTSOURCE_STREAM_ENDED', status: 200 })
  t.equal(previous[1].headers.get('x-cursor'), 'c0')
  t.match(previous[2], { code: 'ERR_EVENTSOURCE_BAD_STATUS', status: 503 })
  t.equal(previous[2].headers.get('x-why'), 'busy', 'a failed response\'s headers')
  t.match(previous[3], { code: 'ERR_EVENTSOURCE_NETWORK', status: 200 }, 'a stream that dropped')
})

t.test('a network error before any response: no status, no headers', async (t) => {
  const server = await serve(t, (req, res, i) => {
    if (i === 0) res.socket.destroy()
    else res.writeHead(200, SSE_HEADERS).flushHeaders()
  })
  const previous = []
  const es = open(t, server.url(), { reconnectionTime: 0, request: (context) => { previous.push(context.previous) } })
  await record(es).wait('open')
  t.match(previous[1], { code: 'ERR_EVENTSOURCE_NETWORK', status: undefined, headers: undefined })
})

t.test('an async init.request; its result is awaited before the request goes', async (t) => {
  const server = await serve(t, (req, res) => res.writeHead(200, SSE_HEADERS).flushHeaders())
  const es = open(t, server.url('/a'), {
    method: 'PUT',
    request: async () => {
      await macrotask()
      return { url: '/b', method: 'POST', headers: [['x-one', '1']], body: new Uint8Array([104, 105]) }
    }
  })
  await record(es).wait('open')
  const [req] = server.requests
  t.same([req.method, req.url, req.body.toString(), req.headers['x-one'], req.headers['content-type']], ['POST', '/b', 'hi', '1', undefined])
})

t.test('without a body in the result, the init\'s goes with the init\'s method only', async (t) => {
  const server = await serve(t, (req, res) => res.writeHead(200, SSE_HEADERS).end('data: x\n\n'))
  const es = open(t, server.url(), {
    method: 'POST',
    body: 'b',
    reconnectionTime: 0,
    request: ({ attempt }) => [undefined, { method: 'PUT' }, undefined, { method: 'POST', body: null }][attempt - 1]
  })
  await record(es).wait('open', 5)
  t.same(server.requests.slice(0, 5).map((r) => [r.method, r.body.toString()]), [['POST', 'b'], ['PUT', ''], ['PUT', ''], ['POST', ''], ['POST', 'b']],
    'and `body: null` sends none with it')
})

t.test('the connect diagnostics message has the attempt\'s URL and method', async (t) => {
  const server = await serve(t, (req, res) => res.writeHead(200, SSE_HEADERS).end('data: x\n\n'))
  const channels = recordChannels(t)
  const es = open(t, server.url('/a'), {
    reconnectionTime: 0,
    request: ({ attempt }) => attempt === 1 ? undefined : { url: `/b?n=${attempt}`, method: 'PATCH' }
  })
  await record(es).wait('open', 2)
  const connects = channels.of('connect', es).slice(0, 2)
  t.same(connects.map((m) => [m.url, m.method]), [[server.url('/a'), 'GET'], [server.url('/b?n=2'), 'PATCH']])
})

t.test('what it throws or rejects with reconnects (ERR_EVENTSOURCE_REQUEST_INIT)', async (t) => {
  const server = await serve(t, (req, res) => res.writeHead(200, SSE_HEADERS).flushHeaders())
  for (const fail of [() => { throw new Error('token service down') }, async () => { throw new Error('token service down') }]) {
    let calls = 0
    const es = open(t, server.url(), {
      reconnectionTime: 0,
      request: (context) => ++calls === 1 ? fail() : undefined
    })
    const rec = record(es)
    const error = await rec.wait('error')
    t.match([error.code, error.event.message, error.event.cause.message], ['ERR_EVENTSOURCE_REQUEST_INIT', /^init\.request\(\) failed: token service down/, 'token service down'])
    t.equal(error.event.willReconnect, true)
    await rec.wait('open')
    es.close()
  }
})

t.test('a result that cannot be sent fails the connection, with a message that says why', async (t) => {
  const server = await serve(t, (req, res) => res.writeHead(200, SSE_HEADERS).flushHeaders())
  const cases = [
    [{ 'x-token': 'a' }, 'ERR_INVALID_ARG_VALUE', /has a member 'x-token': it may have url, method, headers and body/],
    ['/path', 'ERR_INVALID_ARG_TYPE', /result of init\.request\(\)" property must be of type object/],
    [{ url: 'http://[' }, 'ERR_INVALID_ARG_VALUE', /url.*is not a valid URL/],
    [{ url: 42 }, 'ERR_INVALID_ARG_TYPE', /url/],
    [{ method: 'GET', body: 'x' }, 'ERR_INVALID_ARG_VALUE', /cannot be sent with GET/],
    [{ method: 'bad method' }, 'ERR_INVALID_HTTP_TOKEN', /method/],
    [{ method: 'CONNECT' }, 'ERR_INVALID_ARG_VALUE', /CONNECT/],
    [{ headers: { 'x-a': 'b\nc' } }, 'ERR_INVALID_CHAR', /headers/],
    [{ url: 'ftp://127.0.0.1/' }, 'ERR_EVENTSOURCE_UNSUPPORTED_SCHEME', /ftp:/]
  ]
  for (const [result, code, message] of cases) {
    const es = open(t, server.url(), { method: 'POST', request: () => result })
    const error = await record(es).wait('error')
    t.match([error.code, error.event.message, error.readyState], [code, message, EventSource.CLOSED], `${JSON.stringify(result)}: ${code}`)
  }
  t.equal(server.requests.length, 0, 'nothing was sent')
})

t.test('close() from init.request: nothing is sent, no event fires', async (t) => {
  const server = await serve(t)
  for (const async of [false, true]) {
    const es = new EventSource(server.url(), {
      request: async ? async () => { es.close() } : () => { es.close() }
    })
    const rec = record(es)
    await macrotask()
    await macrotask()
    t.same(rec.types, [])
  }
  t.equal(server.requests.length, 0)
})

t.test('the init is checked: a function, and not with a headers or body function', async (t) => {
  const url = 'http://127.0.0.1:1/'
  t.throws(() => new EventSource(url, { request: {} }), { code: 'ERR_INVALID_ARG_TYPE', message: /init\.request/ })
  t.throws(() => new EventSource(url, { request: () => {}, headers: () => ({}) }), { code: 'ERR_INVALID_ARG_VALUE', message: /headers or body function/ })
  t.throws(() => new EventSource(url, { request: () => {}, method: 'POST', body: () => 'x' }), { code: 'ERR_INVALID_ARG_VALUE' })
  const es = new EventSource(url, { request: () => {}, headers: { a: 'b' }, method: 'POST', body: 'x' })
  es.close()
  t.pass('with static headers and body it is fine')
})

t.test('a headers function is shorthand for init.request: the same context, its result replaces the headers', async (t) => {
  const server = await serve(t, (req, res) => res.writeHead(200, SSE_HEADERS).end('data: x\n\n'))
  const contexts = []
  const es = open(t, server.url(), {
    reconnectionTime: 0,
    headers: (context) => { contexts.push(context); return { 'x-attempt': String(context.attempt) } }
  })
  await record(es).wait('open', 2)
  t.match(contexts[1], { attempt: 2, method: 'GET', previous: { code: 'ERR_EVENTSOURCE_STREAM_ENDED', status: 200 } })
  t.same(server.requests.slice(0, 2).map((r) => r.headers['x-attempt']), ['1', '2'])
})
