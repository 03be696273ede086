'use strict'

// A request that is not idempotent (RFC 9110 9.2.2: POST, PATCH, any method but GET, HEAD, OPTIONS, TRACE,
// PUT and DELETE) is never sent again without the user's say: where the source would reconnect (a cut, an
// idle or connect timeout, the end of the response, a status reconnect.retryOnStatus lists), it fails
// with that failure's own code. The say is init.idempotent, or an init.request function; what counts is the
// method the next attempt would go with (after a 303, a GET). The `eventsource` drop-in's requests are its
// fetch's, and it reconnects as that package does.

const t = require('tap')
const { once } = require('node:events')
const { EventSource } = require('../../')
const { EventSource: DropInEventSource } = require('whatwg-eventsource/eventsource')
const { SSE_HEADERS, serve, sse, open, closeAtTeardown, record, reconnectionCycle, onceBounded } = require('../helpers/index.cjs')

const { CONNECTING, CLOSED } = EventSource

// An OpenAI-style answer, one token per event, each with its position as the event ID.
const TOKENS = ['Hello', ',', ' world', '!']
const chunk = (i) => `id: ${i + 1}\ndata: ${JSON.stringify({ choices: [{ delta: { content: TOKENS[i] } }] })}\n\n`

/**
 * The handler of an LLM-style endpoint that drops the first connection after three tokens and, asked
 * again, answers from the token after Last-Event-ID (from the start without one) and ends.
 */
function cutOnceAfterThreeTokens (req, res, index) {
  // The body is read before the answer: a socket destroyed with unread bytes would be reset.
  req.once('end', () => {
    res.writeHead(200, SSE_HEADERS)
    if (index === 0) {
      res.write(chunk(0) + chunk(1) + chunk(2))
      setImmediate(() => req.socket.destroy())
      return
    }
    let body = ''
    for (let i = Number(req.headers['last-event-id'] ?? 0); i < TOKENS.length; i++) body += chunk(i)
    res.end(body + 'data: [DONE]\n\n')
  })
}

// The program of the docs' LLM recipe: the answer, token by token, until [DONE].
function collectAnswer (source) {
  const answer = { text: '' }
  source.onmessage = (event) => {
    if (event.data !== '[DONE]') answer.text += JSON.parse(event.data).choices[0].delta.content
  }
  return answer
}

const RECIPE = {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ model: 'small', stream: true, messages: [{ role: 'user', content: 'Say hello' }] }),
  closeOnEnd: true,
  reconnectionTime: 0
}

t.test('the LLM recipe against a server that cuts once: one POST, the network error, CLOSED', async (t) => {
  const server = await serve(t, cutOnceAfterThreeTokens)
  const source = open(t, server.url('/v1/chat/completions'), RECIPE)
  const answer = collectAnswer(source)
  const rec = record(source, ['open', 'error', 'end'])
  const [error] = await onceBounded(source, 'error')
  t.equal(error.code, 'ERR_EVENTSOURCE_NETWORK', 'the error is the cut itself')
  t.equal(error.willReconnect, false)
  t.equal(error.reconnectDelay, undefined)
  t.equal(source.readyState, CLOSED, 'CLOSED when error fires')
  t.equal(answer.text, 'Hello, world', 'the three tokens before the cut')
  // A reconnection would have come after 0 ms: one full reconnection cycle elsewhere shows none did.
  await reconnectionCycle(t, 0)
  t.equal(server.requests.length, 1, 'exactly one POST reached the server')
  t.same(rec.types, ['open', 'error'], 'one error event, and no end')
})

t.test('idempotent: true sends the POST again, and the answer arrives whole', async (t) => {
  const server = await serve(t, cutOnceAfterThreeTokens)
  const source = open(t, server.url('/v1/chat/completions'), { ...RECIPE, idempotent: true })
  const answer = collectAnswer(source)
  const rec = record(source, ['open', 'error', 'end'])
  await onceBounded(source, 'end')
  t.equal(answer.text, 'Hello, world!')
  t.same(rec.events.map(({ type, code, event }) => [type, code ?? null, event.willReconnect ?? null]),
    [['open', null, null], ['error', 'ERR_EVENTSOURCE_NETWORK', true], ['open', null, null], ['end', null, null]])
  t.same(server.requests.map((req) => [req.method, req.body.toString(), req.headers['last-event-id']]),
    [['POST', RECIPE.body, undefined], ['POST', RECIPE.body, '3']], 'the same POST, resumed after the last event ID')
})

t.test('a request function that resumes with a GET resumes', async (t) => {
  const server = await serve(t, cutOnceAfterThreeTokens)
  const source = open(t, server.url('/v1/chat/completions'), {
    ...RECIPE,
    request: ({ attempt }) => attempt === 1 ? undefined : { method: 'GET', headers: {} }
  })
  const answer = collectAnswer(source)
  await onceBounded(source, 'end')
  t.equal(answer.text, 'Hello, world!')
  t.same(server.requests.map((req) => [req.method, req.headers['last-event-id']]), [['POST', undefined], ['GET', '3']])
})

t.test('a request function is the say even when it sends the POST again', async (t) => {
  const server = await serve(t, cutOnceAfterThreeTokens)
  const source = open(t, server.url('/'), { ...RECIPE, request: () => {} })
  await onceBounded(source, 'end')
  t.same(server.requests.map((req) => req.method), ['POST', 'POST'])
})

t.test('headers and body functions are not a say: they do not choose the method', async (t) => {
  for (const init of [{ headers: () => ({ 'x-token': 't' }) }, { body: () => RECIPE.body }]) {
    const server = await serve(t, cutOnceAfterThreeTokens)
    const source = open(t, server.url('/'), { ...RECIPE, ...init })
    const [error] = await onceBounded(source, 'error')
    const what = Object.keys(init)[0]
    t.same([error.code, error.willReconnect, source.readyState], ['ERR_EVENTSOURCE_NETWORK', false, CLOSED], what)
    await reconnectionCycle(t, 0)
    t.equal(server.requests.length, 1)
  }
})

t.test('a headers function that throws sent nothing: the POST goes once, when it can', async (t) => {
  const server = await serve(t, cutOnceAfterThreeTokens)
  let calls = 0
  const headers = () => {
    if (++calls === 1) throw new Error('token service down')
    return { 'content-type': 'application/json' }
  }
  const source = open(t, server.url('/'), { ...RECIPE, headers })
  const answer = collectAnswer(source)
  const [error] = await onceBounded(source, 'error')
  t.same([error.code, error.willReconnect, server.requests.length], ['ERR_EVENTSOURCE_REQUEST_INIT', true, 0])
  // The second attempt sends the POST, which the server cuts: that one is not sent again.
  const [cut] = await onceBounded(source, 'error')
  t.same([cut.code, cut.willReconnect, source.readyState], ['ERR_EVENTSOURCE_NETWORK', false, CLOSED])
  await reconnectionCycle(t, 0)
  t.same([server.requests.length, answer.text], [1, 'Hello, world'])
})

t.test('for await throws the cause', async (t) => {
  const server = await serve(t, cutOnceAfterThreeTokens)
  const source = open(t, server.url('/'), RECIPE)
  const tokens = []
  await t.rejects(async () => {
    for await (const event of source) tokens.push(JSON.parse(event.data).choices[0].delta.content)
  }, { code: 'ERR_EVENTSOURCE_NETWORK' })
  t.same(tokens, ['Hello', ',', ' world'])
  t.equal(source.readyState, CLOSED)
})

// Each of the failures the standard (or the reconnection policy) re-establishes, on a POST: one request,
// and the failure's own code. `reconnect.policy` would say to go on: it is not asked.
function cut (req, res) {
  res.writeHead(200, SSE_HEADERS).write('data: a\n\n')
  setImmediate(() => req.socket.destroy())
}

const FAILURES = [
  ['a cut', 'ERR_EVENTSOURCE_NETWORK', {}, cut],
  ['an idle timeout', 'ERR_EVENTSOURCE_IDLE_TIMEOUT', { idleTimeout: 50 }, (req, res) => sse(res, '', { end: false })],
  ['a connect timeout', 'ERR_EVENTSOURCE_CONNECT_TIMEOUT', { connectTimeout: 50 }, () => {}],
  ['the end of the response', 'ERR_EVENTSOURCE_STREAM_ENDED', {}, (req, res) => sse(res, 'data: a\n\n')],
  ['a status retryOnStatus lists', 'ERR_EVENTSOURCE_BAD_STATUS', { reconnect: { retryOnStatus: [503] } },
    (req, res) => res.writeHead(503, { 'retry-after': '0' }).end()]
]

for (const [what, code, init, handler] of FAILURES) {
  t.test(`a POST fails on ${what} with ${code}, without asking the policy`, async (t) => {
    const server = await serve(t, handler)
    const source = open(t, server.url('/'), { method: 'POST', body: '{}', reconnectionTime: 0, ...init })
    const rec = record(source)
    const [error] = await once(source, 'error')
    t.same([error.code, error.willReconnect, source.readyState], [code, false, CLOSED])
    await reconnectionCycle(t, 0)
    t.equal(server.requests.length, 1, 'one request')
    t.equal(rec.count('error'), 1, 'one error event')
  })
}

t.test('a reconnection policy is not asked: it would only say when to repeat', async (t) => {
  const server = await serve(t, (req, res) => sse(res, 'data: a\n\n'))
  let asked = 0
  const policy = () => { asked++; return 0 }
  const source = open(t, server.url('/'), { method: 'POST', body: '{}', reconnect: { policy } })
  const [error] = await onceBounded(source, 'error')
  t.same([error.code, error.willReconnect, asked], ['ERR_EVENTSOURCE_STREAM_ENDED', false, 0])
})

t.test('the same failures reconnect a POST with idempotent: true', async (t) => {
  for (const [what, code, init, handler] of FAILURES) {
    const server = await serve(t, handler)
    const source = open(t, server.url('/'), { method: 'POST', idempotent: true, reconnectionTime: 0, ...init })
    const [error] = await onceBounded(source, 'error')
    t.same([error.code, error.willReconnect], [code, true], what)
    await server.request(1)
    t.same(server.requests.map((req) => req.method), ['POST', 'POST'], `${what}: the POST went again`)
    source.close()
  }
})

// What RFC 9110 calls idempotent reconnects; anything else fails, PATCH and methods of other RFCs included.
const METHODS = [
  ['POST', false], ['PATCH', false], ['PROPFIND', false],
  ['PUT', true], ['DELETE', true], ['OPTIONS', true], ['GET', true]
]

for (const [method, reconnects] of METHODS) {
  t.test(`${method} ${reconnects ? 'reconnects' : 'fails'} after the end of the response`, async (t) => {
    const server = await serve(t, (req, res) => sse(res, 'data: a\n\n'))
    const source = open(t, server.url('/'), { method, reconnectionTime: 0 })
    const [error] = await onceBounded(source, 'error')
    t.same([error.code, error.willReconnect, source.readyState],
      ['ERR_EVENTSOURCE_STREAM_ENDED', reconnects, reconnects ? CONNECTING : CLOSED])
    if (reconnects) await server.request(1)
    else await reconnectionCycle(t, 0)
    t.same(server.requests.map((req) => req.method), reconnects ? [method, method] : [method])
  })
}

t.test('idempotent: false makes a GET one-shot, and wins over a request function', async (t) => {
  for (const init of [{ idempotent: false }, { idempotent: false, request: () => {} }, { idempotent: 0 }]) {
    const server = await serve(t, (req, res) => sse(res, 'data: a\n\n'))
    const source = open(t, server.url('/'), { reconnectionTime: 0, ...init })
    const [error] = await onceBounded(source, 'error')
    t.same([error.code, error.willReconnect, source.readyState], ['ERR_EVENTSOURCE_STREAM_ENDED', false, CLOSED],
      JSON.stringify(init))
    await reconnectionCycle(t, 0)
    t.equal(server.requests.length, 1)
  }
})

t.test('idempotent is a boolean as WebIDL converts one', async (t) => {
  const values = [[1, true], ['yes', true], [{}, true], ['', false], [null, false], [undefined, false]]
  for (const [value, reconnects] of values) {
    const server = await serve(t, (req, res) => sse(res, 'data: a\n\n'))
    const source = open(t, server.url('/'), { method: 'POST', reconnectionTime: 0, idempotent: value })
    const [error] = await onceBounded(source, 'error')
    t.equal(error.willReconnect, reconnects, `${typeof value} ${String(value)}`)
    source.close()
  }
})

t.test('two sources alike but for idempotent each keep their own', async (t) => {
  const server = await serve(t, (req, res) => sse(res, 'data: a\n\n'))
  // Resolved one after the other, so the second would share the first's init if idempotent were not compared.
  const oneShot = open(t, server.url('/one-shot'), { method: 'POST', reconnectionTime: 0 })
  const repeated = open(t, server.url('/repeated'), { method: 'POST', reconnectionTime: 0, idempotent: true })
  const [[first], [second]] = await Promise.all([onceBounded(oneShot, 'error'), onceBounded(repeated, 'error')])
  t.same([first.willReconnect, second.willReconnect], [false, true])
})

// The method of the next attempt decides: after a 303 (or a 301 or 302 after a POST) the source goes on
// with a GET to the final URL; after a 307 it would POST again.
for (const [status, reconnects] of [[303, true], [302, true], [301, true], [307, false]]) {
  t.test(`a POST redirected by a ${status} ${reconnects ? 'reconnects with GET' : 'fails'} after a cut`, async (t) => {
    const server = await serve(t, (req, res) => {
      if (req.url === '/start') return res.writeHead(status, { location: '/stream' }).end()
      res.writeHead(200, SSE_HEADERS).write('id: 1\ndata: a\n\n')
      setImmediate(() => req.socket.destroy())
    })
    const source = open(t, server.url('/start'), { method: 'POST', body: '{}', reconnectionTime: 0 })
    const [error] = await onceBounded(source, 'error')
    t.same([error.code, error.willReconnect], ['ERR_EVENTSOURCE_NETWORK', reconnects])
    if (reconnects) await server.request(2)
    else await reconnectionCycle(t, 0)
    const expected = [['POST', '/start'], [status === 307 ? 'POST' : 'GET', '/stream']]
    if (reconnects) expected.push(['GET', '/stream'])
    t.same(server.requests.slice(0, 3).map((req) => [req.method, req.url]), expected)
  })
}

t.test('with a fetch that follows redirects itself, the next attempt would POST again: it fails', async (t) => {
  const server = await serve(t, (req, res) => {
    if (req.url === '/start') return res.writeHead(303, { location: '/stream' }).end()
    res.writeHead(200, SSE_HEADERS).write('data: a\n\n')
    setImmediate(() => req.socket.destroy())
  })
  const source = open(t, server.url('/start'), {
    method: 'POST', body: '{}', reconnectionTime: 0, fetch: (input, init) => fetch(input, init)
  })
  const [error] = await onceBounded(source, 'error')
  t.same([error.code, error.willReconnect], ['ERR_EVENTSOURCE_NETWORK', false])
})

t.test('the eventsource drop-in reconnects: its requests are what its fetch makes', async (t) => {
  const server = await serve(t, (req, res, index) => {
    res.writeHead(200, SSE_HEADERS).write(`retry: 0\nid: ${index}\ndata: ${req.method} ${index}\n\n`)
    if (index === 0) setImmediate(() => req.socket.destroy())
  })
  const source = closeAtTeardown(t, new DropInEventSource(server.url('/'), {
    fetch: (url, init) => fetch(url, { ...init, method: 'POST', body: '{}' })
  }))
  const rec = record(source)
  await rec.wait('message', 2)
  t.same(rec.data(), ['POST 0', 'POST 1'])
  t.same(rec.types, ['open', 'message', 'error', 'open', 'message'])
  t.same(server.requests.map((req) => req.method), ['POST', 'POST'])
})
