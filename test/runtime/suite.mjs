// The runtime suite: one set of tests of the package as each runtime loads it (Node, Bun, Deno through
// test/runtime/main.mjs; a page and a worker in Chromium through test/runtime/browser-main.mjs, bundled
// with the `browser` or `worker` condition). It uses nothing but what every one of them has (fetch, Request,
// EventTarget, TextEncoder, setTimeout), against the loopback servers of test/runtime/server.mjs; the tests of
// serving also get the runtime's own servers from main.mjs (none in a page or a worker).
// test/runtime/run.mjs runs it everywhere; test/README.md says how.
//
// Framework-free: a test is an async function; every wait is for an event or a server's answer, and is
// bounded (within()); nothing sleeps. Each test prints `ok - name` or `not ok - name: why`.

const WAIT_MS = 5000
// The runtime's own EventSource (Chromium's, Deno's), as it was before the polyfill's test could define ours.
const NATIVE_EVENT_SOURCE = globalThis.EventSource

// ---- assertions and bounded waits ----

function show (value) {
  return typeof value === 'string' ? JSON.stringify(value) : String(value)
}

function assert (ok, message) {
  if (!ok) throw new Error(message)
}

function equal (actual, expected, what) {
  if (!Object.is(actual, expected)) throw new Error(`${what}: expected ${show(expected)}, got ${show(actual)}`)
}

function same (actual, expected, what) {
  const a = JSON.stringify(actual)
  const e = JSON.stringify(expected)
  if (a !== e) throw new Error(`${what}:\n  expected ${e}\n  got      ${a}`)
}

function within (promise, ms, what) {
  let timer
  const timeout = new Promise((resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no ${what} within ${ms} ms`)), ms)
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}

// Records the events of the given types, with the readyState at dispatch and the time; wait(type, n)
// resolves with the n-th event of a type, once it has come.
function record (source, types) {
  const events = []
  const waiters = new Set()
  for (const type of types) {
    source.addEventListener(type, (event) => {
      events.push({ type, event, data: event.data, lastEventId: event.lastEventId, readyState: source.readyState, time: performance.now() })
      for (const waiter of waiters) waiter()
    })
  }
  const of = (type) => events.filter((e) => e.type === type)
  return {
    events,
    of,
    types: () => events.map((e) => e.type),
    wait (type, n = 1, ms = WAIT_MS) {
      const got = new Promise((resolve) => {
        const check = () => {
          if (of(type).length < n) return
          waiters.delete(check)
          resolve(of(type)[n - 1])
        }
        waiters.add(check)
        check()
      })
      return within(got, ms, `${type} event #${n} (so far: ${events.map((e) => e.event.code ?? e.type).join(', ') || 'none'})`)
    }
  }
}

// A test that cannot run where it is: reported as `ok N - name # SKIP why`, neither passed nor failed.
class Skip extends Error {}

// ---- the tests ----

// Which build a test runs in: every test in the build with the extensions (Node, Bun, Deno, and a browser
// build that imports whatwg-eventsource/extensions); the standard's tests (STANDARD) also in a browser
// build without them (test/runtime/browser-standard.mjs), and the tests of that build (STANDARD_ONLY)
// there alone.
const FULL = 'full'
const STANDARD = 'standard'
const STANDARD_ONLY = 'standard only'
const tests = []
function test (name, fn, builds = FULL) {
  tests.push({ name, fn, builds })
}

test('connect: open, a message, readyState, url, origin, the request', async ({ open, url, requests, env, pkg }) => {
  const source = open(url('basic'))
  equal(source.readyState, pkg.EventSource.CONNECTING, 'readyState at first')
  equal(source.url, url('basic'), 'url')
  const events = record(source, ['open', 'message', 'error'])
  equal((await events.wait('open')).readyState, pkg.EventSource.OPEN, 'readyState at open')
  const message = await events.wait('message')
  assert(message.event instanceof MessageEvent, 'a MessageEvent')
  same([message.data, message.lastEventId, message.event.origin], ['hello', '1', env.base], 'data, lastEventId, origin')
  const [request] = (await requests(1)).requests
  same([request.method, request.headers.accept], ['GET', 'text/event-stream'], 'method, Accept')
  // What Node's fetch sends for the request, and the Dispatcher transport with it (as Node's own
  // EventSource): the request's mode and a User-Agent. (Bun's and Deno's fetch send no Sec-Fetch-Mode.)
  const agent = request.headers['user-agent']
  assert(agent !== undefined, 'a User-Agent')
  if (env.transport === 'dispatcher') equal(request.headers['sec-fetch-mode'], 'cors', 'Sec-Fetch-Mode')
  env.note(`user-agent: ${agent}`)
  if (env.browser) {
    // In a document or a worker, a relative URL is resolved against its location.
    const relative = open(new URL(url('basic')).pathname + new URL(url('basic')).search)
    equal(relative.url, url('basic'), 'a relative URL, resolved')
    await record(relative, ['message']).wait('message')
  }
}, STANDARD)

test('message types: named events, multi-line data, ids, comments, CR/CRLF, BOM, UTF-8', async ({ open, url }) => {
  const source = open(url('types'))
  const events = record(source, ['message', 'update', 'done', 'nodata'])
  let handled = 0
  source.onmessage = () => { handled++ }
  await events.wait('done')
  same(events.events.map((e) => [e.type, e.data, e.lastEventId]), [
    ['message', 'first', ''],
    ['update', 'line 1\nline 2', ''],
    ['message', 'no space', ''],
    ['message', 'after CR', '7'],
    ['message', 'café 😀', '7'],
    ['message', '', '7'],
    ['done', 'end', '7']
  ], 'events')
  equal(handled, 5, 'onmessage calls')
}, STANDARD)

test('reconnect: an error, then Last-Event-ID (UTF-8) on the next request', async ({ open, url, requests, pkg }) => {
  const source = open(url('reconnect'))
  const events = record(source, ['open', 'message', 'error'])
  await events.wait('message', 2)
  same(events.types(), ['open', 'message', 'error', 'open', 'message'], 'events')
  const [error] = events.of('error')
  same([error.readyState, error.event.code, error.event.willReconnect], [pkg.EventSource.CONNECTING, 'ERR_EVENTSOURCE_STREAM_ENDED', true],
    'the error: readyState, code, willReconnect')
  same(events.of('message').map((e) => e.lastEventId), ['é1', 'é1'], 'lastEventId')
  same((await requests(2)).requests.map((r) => r.lastEventId ?? null), [null, 'é1'], 'Last-Event-ID sent')
}, STANDARD)

test('retry: the reconnection time, from the stream', async ({ open, url }) => {
  const source = open(url('retry'))
  const events = record(source, ['open', 'message', 'error'])
  // Within 2.5 s: the default reconnection time, 3 s, would not make it.
  await events.wait('message', 2, 2500)
  const [error] = events.of('error')
  same([error.event.willReconnect, error.event.reconnectDelay], [true, 40], 'the error: willReconnect, reconnectDelay')
  const waited = events.of('open')[1].time - error.time
  assert(waited >= 35, `reconnected ${waited.toFixed(1)} ms after the error; retry: 40 asks for 40`)
}, STANDARD)

test('POST: string, bytes and form bodies; a body function, called again on reconnection', async ({ open, url }) => {
  // idempotent: true, or the POST would not be sent again (the next test).
  const body = ({ attempt }) => `attempt ${attempt}`
  const posts = record(open(url('echo', 'end=1'), { method: 'POST', body, idempotent: true }), ['message'])
  await posts.wait('message', 2)
  same(posts.of('message').map((e) => JSON.parse(e.data)).map((s) => [s.method, s.body, s.contentType]), [
    ['POST', 'attempt 1', 'text/plain;charset=UTF-8'],
    ['POST', 'attempt 2', 'text/plain;charset=UTF-8']
  ], 'method, body, Content-Type of both attempts')
  const bytes = await record(open(url('echo', 'key2=bytes'), { method: 'PUT', body: new TextEncoder().encode('bytes ✓') }), ['message']).wait('message')
  same(JSON.parse(bytes.data), { method: 'PUT', body: 'bytes ✓' }, 'a Uint8Array body: no Content-Type')
  const form = await record(open(url('echo', 'key2=form'), { method: 'POST', body: new URLSearchParams({ q: 'a b' }) }), ['message']).wait('message')
  same(JSON.parse(form.data), { method: 'POST', body: 'q=a+b', contentType: 'application/x-www-form-urlencoded;charset=UTF-8' }, 'a URLSearchParams body')
})

test('POST: sent once unless idempotent, the end of the response fails it', async ({ open, url, requests, pkg }) => {
  const post = record(open(url('echo', 'end=1'), { method: 'POST', body: 'once' }), ['message', 'error'])
  const error = await post.wait('error')
  same([post.types(), error.readyState, error.event.code, error.event.willReconnect],
    [['message', 'error'], pkg.EventSource.CLOSED, 'ERR_EVENTSOURCE_STREAM_ENDED', false],
    'events, readyState, code, willReconnect')
  // A GET that reconnects after the same 1 ms (`retry: 1`): by its second request, a second POST would have come.
  await record(open(url('echo', 'end=1')), ['message']).wait('message', 2)
  equal((await requests(3)).requests.filter((r) => r.method === 'POST').length, 1, 'POST requests')
})

test('headers: a function called at each attempt, with its number and the last event ID', async ({ open, url }) => {
  const calls = []
  const source = open(url('echo', 'end=1'), {
    headers: async ({ attempt, lastEventId }) => {
      calls.push([attempt, lastEventId])
      return { authorization: `Bearer t${attempt}`, 'x-custom': 'v' }
    }
  })
  const events = record(source, ['message'])
  await events.wait('message', 2)
  same(calls, [[1, ''], [2, '1']], 'calls')
  same(events.of('message').map((e) => JSON.parse(e.data)).map((s) => [s.authorization, s.custom, s.lastEventId ?? null]), [
    ['Bearer t1', 'v', null],
    ['Bearer t2', 'v', '1']
  ], 'Authorization, X-Custom, Last-Event-ID sent')
})

test('request: a POST resumed by a GET with the position in the URL; told why the last attempt ended', async ({ open, url }) => {
  const contexts = []
  const source = open(url('echo', 'end=1'), {
    method: 'POST',
    body: 'call',
    request: (context) => {
      contexts.push(context)
      if (context.attempt === 1) return undefined
      const next = new URL(url('echo', 'end=1'))
      next.searchParams.set('offset', context.lastEventId)
      return { method: 'GET', url: next }
    }
  })
  const events = record(source, ['message'])
  await events.wait('message', 3)
  same(events.of('message').slice(0, 3).map((e) => JSON.parse(e.data)).map((s) => [s.method, s.body, s.offset ?? null, s.lastEventId ?? null]), [
    ['POST', 'call', null, null],
    ['GET', '', '1', '1'],
    ['GET', '', '2', '2']
  ], 'method, body, offset in the query, Last-Event-ID')
  same(contexts.slice(0, 2).map((c) => [c.attempt, c.method, c.previous?.code ?? null, c.previous?.status ?? null]), [
    [1, 'POST', null, null],
    [2, 'POST', 'ERR_EVENTSOURCE_STREAM_ENDED', 200]
  ], 'the contexts')
  equal(contexts[1].previous.headers.get('content-type'), 'text/event-stream', 'the previous response\'s Content-Type')
  equal(source.url, url('echo', 'end=1'), 'url: the constructor\'s')
})

test('close() from a synchronous headers function: no request at all', async ({ open, url, requests }) => {
  let calls = 0
  const closing = open(url('basic'), {
    headers: () => {
      calls++
      closing.close()
      return { 'x-custom': 'closed' }
    }
  })
  // A source opened after that one has closed: by the time its event has come back, a request the first
  // had sent would have reached the server well before.
  await within(new Promise((resolve) => setTimeout(resolve, 0)), WAIT_MS, 'a task')
  equal(calls, 1, 'the headers function ran')
  await record(open(url('basic')), ['message']).wait('message')
  same((await requests(1)).requests.map((r) => r.headers['x-custom'] ?? null), [null], 'only the second source\'s request')
})

test('a user\'s fetch that adds Authorization: never sent to another origin after a redirect', async ({ open, url, requests, env }) => {
  const calls = []
  const source = open(url('away'), {
    fetch: (input, init) => {
      calls.push(init.redirect)
      return globalThis.fetch(input, { ...init, headers: { ...init.headers, authorization: 'Bearer wrapper-token' } })
    }
  })
  const message = await record(source, ['message']).wait('message')
  equal(message.event.origin, env.cross, 'origin: the other origin\'s')
  equal(JSON.parse(message.data).authorization, undefined, 'Authorization at the other origin')
  const seen = (await requests(2)).requests.map((r) => [r.route, r.headers.authorization ?? null])
  same(seen, [['away', 'Bearer wrapper-token'], ['echo', null]], 'what the two origins saw')
  same(calls, ['follow'], 'the fetch follows redirects itself')
})

test('close(): nothing dispatched after it, the connection released, no reconnection', async ({ open, url, requests, closed, pkg }) => {
  const source = open(url('hold'))
  const got = []
  let errors = 0
  source.onerror = () => { errors++ }
  source.addEventListener('message', (event) => {
    got.push(event.data)
    source.close()
    equal(source.readyState, pkg.EventSource.CLOSED, 'readyState right after close()')
  })
  await record(source, ['message']).wait('message')
  same(await closed(), { closed: true }, 'the server saw the connection close')
  same(got, ['one'], 'messages (two more came in the same chunk)')
  equal(errors, 0, 'error events')
  equal((await requests(1)).requests.length, 1, 'requests')
}, STANDARD)

test('error details: a status or type that fails the connection', async ({ open, url, env, pkg }) => {
  const notFound = await record(open(url('status', 'code=404')), ['error']).wait('error')
  assert(notFound.event instanceof pkg.EventSourceErrorEvent, 'an EventSourceErrorEvent')
  same([notFound.readyState, notFound.event.code, notFound.event.status, notFound.event.statusText, notFound.event.willReconnect],
    [pkg.EventSource.CLOSED, 'ERR_EVENTSOURCE_BAD_STATUS', 404, 'Not Found', false], '404: readyState, code, status, statusText, willReconnect')
  equal(notFound.event.headers.get('content-type'), 'text/plain', '404: headers')
  // What the body said (init.errorBody, an extension, on by default); the standard EventSource reads none.
  same([notFound.event.body, notFound.event.bodyTruncated], env.standardBuild ? [undefined, undefined] : ['not an event stream', false],
    '404: the body')
  // The browser build's messages are the code in words and its values (docs/browser.md); Node's wording elsewhere.
  if (env.browser) equal(notFound.event.message, 'bad status: 404, Not Found', '404: the message')
  else assert(/^The server answered 404 Not Found/.test(notFound.event.message), `404: the message says so (${notFound.event.message})`)
  const wrongType = await record(open(url('type')), ['error']).wait('error')
  same([wrongType.readyState, wrongType.event.code, wrongType.event.status], [pkg.EventSource.CLOSED, 'ERR_EVENTSOURCE_BAD_CONTENT_TYPE', 200],
    'text/plain: readyState, code, status')
}, STANDARD)

test('error details: a dropped connection and an ended stream reconnect', async ({ open, url, env, pkg, cut: cutNow }) => {
  const cut = record(open(url('cut')), ['message', 'error'])
  await cut.wait('message')
  same(await cutNow(), { cut: true }, 'the server dropped the connection')
  const dropped = await cut.wait('error')
  same([cut.types(), dropped.readyState, dropped.event.code, dropped.event.willReconnect, dropped.event.reconnectDelay],
    [['message', 'error'], pkg.EventSource.CONNECTING, 'ERR_EVENTSOURCE_NETWORK', true, 60000], 'cut: events, readyState, code, willReconnect, delay')
  const expected = env.browser ? `network: ${env.base}, ` : `The connection to ${env.base} failed: `
  assert(dropped.event.message.startsWith(expected), `cut: the message (${dropped.event.message})`)
  const ended = await record(open(url('end')), ['error']).wait('error')
  same([ended.readyState, ended.event.code, ended.event.reconnectDelay], [pkg.EventSource.CONNECTING, 'ERR_EVENTSOURCE_STREAM_ENDED', 60000],
    'end: readyState, code, delay')
})

test('reconnection policy: retryOnStatus, then maxRetries gives up', async ({ open, url, requests, pkg }) => {
  const source = open(url('status', 'code=503'), { reconnect: { retryOnStatus: [503], maxRetries: 1, delay: 1 } })
  const events = record(source, ['error'])
  const last = await events.wait('error', 2)
  same(events.of('error').map((e) => [e.readyState, e.event.code, e.event.status]), [
    [pkg.EventSource.CONNECTING, 'ERR_EVENTSOURCE_BAD_STATUS', 503],
    [pkg.EventSource.CLOSED, 'ERR_EVENTSOURCE_RETRIES_EXHAUSTED', 503]
  ], 'errors: readyState, code, status')
  equal(last.event.willReconnect, false, 'gave up')
  equal((await requests(2)).requests.length, 2, 'requests')
})

test('timeouts: connectTimeout and idleTimeout', async ({ open, url, pkg }) => {
  const noHead = await record(open(url('nohead'), { connectTimeout: 150 }), ['error']).wait('error')
  same([noHead.readyState, noHead.event.code], [pkg.EventSource.CONNECTING, 'ERR_EVENTSOURCE_CONNECT_TIMEOUT'], 'no head: readyState, code')
  const silent = record(open(url('silent'), { idleTimeout: 150, reconnect: { delay: 60000 } }), ['open', 'error'])
  const idle = await silent.wait('error')
  same([silent.types(), idle.readyState, idle.event.code], [['open', 'error'], pkg.EventSource.CONNECTING, 'ERR_EVENTSOURCE_IDLE_TIMEOUT'],
    'silent: events, readyState, code')
})

test('for await: every message; break closes the source', async ({ open, url, pkg }) => {
  const source = open(url('several'))
  const data = []
  await within((async () => {
    for await (const event of source) {
      data.push(event.data)
      if (data.length === 3) break
    }
  })(), WAIT_MS, 'three messages through for await')
  same(data, ['1', '2', '3'], 'messages')
  equal(source.readyState, pkg.EventSource.CLOSED, 'readyState after break')
})

test('one task per event: a loop that awaits each event sees all those of one chunk', async ({ open, url }) => {
  const source = open(url('several'))
  const nextMessage = () => new Promise((resolve) => source.addEventListener('message', resolve, { once: true }))
  // Two levels of promises between an event and the next listener, as a helper function makes.
  async function nextData () {
    const event = await nextMessage()
    await null
    return event.data
  }
  const data = []
  await within((async () => {
    for (let i = 0; i < 3; i++) data.push(await nextData())
  })(), WAIT_MS, 'three messages, awaited one at a time')
  same(data, ['1', '2', '3'], 'messages')
}, STANDARD)

test('content coding: a gzip stream is decoded', async ({ open, url, requests }) => {
  const message = await record(open(url('gzip')), ['message']).wait('message')
  equal(message.data, 'zipped', 'data')
  const [request] = (await requests(1)).requests
  assert(/\bgzip\b/.test(request.headers['accept-encoding'] ?? ''), `gzip accepted (Accept-Encoding: ${request.headers['accept-encoding']})`)
})

test('redirect: followed; origin is the final URL\'s', async ({ open, url, requests, env }) => {
  const message = await record(open(url('redirect')), ['message']).wait('message')
  same([message.data, message.event.origin], ['hello', env.base], 'data, origin')
  same((await requests(2)).requests.map((r) => r.route), ['redirect', 'basic'], 'requests')
})

test('cross-origin with CORS: POST, a custom header (a preflight in browsers)', async ({ open, url, requests, env }) => {
  const source = open(url('echo', '', env.cross), { method: 'POST', body: 'x', headers: { 'x-custom': 'v' } })
  const message = await record(source, ['message']).wait('message')
  equal(message.event.origin, env.cross, 'origin')
  same(JSON.parse(message.data), { method: 'POST', body: 'x', contentType: 'text/plain;charset=UTF-8', custom: 'v' }, 'what the server saw')
  const { preflights } = await requests(1)
  if (env.browser) {
    same(preflights.map((p) => [p.headers['access-control-request-method'], p.headers['access-control-request-headers']]),
      [['POST', 'x-custom']], 'the preflight')
  } else {
    equal(preflights.length, 0, 'preflights (CORS is a browser\'s)')
  }
})

test('cross-origin without CORS: refused in browsers, as a network error', async ({ open, url, env, pkg }) => {
  const source = open(url('basic', 'nocors=1', env.cross), { reconnect: { delay: 60000 } })
  const events = record(source, ['message', 'error'])
  if (env.browser) {
    const error = await events.wait('error')
    same([events.types(), error.readyState, error.event.code], [['error'], pkg.EventSource.CONNECTING, 'ERR_EVENTSOURCE_NETWORK'],
      'events, readyState, code')
  } else {
    equal((await events.wait('message')).data, 'hello', 'data (CORS is a browser\'s)')
  }
})

test('polyfill: defines EventSource where the runtime has none, and leaves a native one alone', async ({ open, url, env, pkg }) => {
  const before = Object.getOwnPropertyDescriptor(globalThis, 'EventSource')
  await env.loadPolyfill()
  const after = Object.getOwnPropertyDescriptor(globalThis, 'EventSource')
  if (before !== undefined) {
    same([after.value === before.value, after.writable, after.enumerable, after.configurable],
      [true, before.writable, before.enumerable, before.configurable], 'the native EventSource, unchanged')
    env.note('polyfill: the runtime has its own EventSource, left in place')
    return
  }
  same([after.value === pkg.EventSource, after.writable, after.enumerable, after.configurable], [true, true, false, true],
    'globalThis.EventSource: ours, writable, not enumerable, configurable')
  const source = open(url('basic'), {}, globalThis.EventSource)
  equal((await record(source, ['message']).wait('message')).data, 'hello', 'data through globalThis.EventSource')
  env.note('polyfill: defined globalThis.EventSource')
})

// The drop-in entry points, as each runtime loads them: env.loadEntry(name) imports
// `whatwg-eventsource/<name>`; where an entry cannot be bundled for a browser, test/runtime/run.mjs gives
// the page and the worker a module that says why (`unavailable`), and the test is skipped.
async function dropIn (env, name) {
  const entry = await env.loadEntry(name)
  if (typeof entry.unavailable === 'string') throw new Skip(`whatwg-eventsource/${name} does not bundle here: ${entry.unavailable}`)
  return entry
}

// What eventsource-parser makes of the `types` stream, as { event, data, id } (the drop-ins give the same).
const TYPES_PARSED = [
  ['message', 'first', null],
  ['update', 'line 1\nline 2', null],
  ['message', 'no space', null],
  ['message', 'after CR', '7'],
  ['message', 'café 😀', null],
  ['message', '', null],
  ['done', 'end', null]
]

// Reads a fetched event stream as text into `feed` until `done` says so, then cancels the body.
async function readText (response, feed, done) {
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader()
  try {
    while (!done()) {
      const { value, done: ended } = await reader.read()
      if (ended) break
      feed(value)
    }
  } finally {
    await reader.cancel().catch(() => {})
  }
}

test('drop-in whatwg-eventsource/eventsource: messages, the error event, Last-Event-ID on reconnection', async ({ open, url, requests, env }) => {
  const { EventSource, ErrorEvent } = await dropIn(env, 'eventsource')
  const source = open(url('reconnect'), {}, EventSource)
  const events = record(source, ['open', 'message', 'error'])
  await events.wait('message', 2)
  same(events.types(), ['open', 'message', 'error', 'open', 'message'], 'events')
  same(events.of('message').map((e) => [e.data, e.lastEventId]), [['first', 'é1'], ['second', 'é1']], 'data, lastEventId')
  const [error] = events.of('error')
  assert(error.event instanceof ErrorEvent, 'the error event is the package\'s ErrorEvent')
  equal(error.readyState, EventSource.CONNECTING, 'readyState at the error')
  same((await requests(2)).requests.map((r) => r.lastEventId ?? null), [null, 'é1'], 'Last-Event-ID sent')
})

test('drop-in whatwg-eventsource/parser: createParser on a fetched body, as text', async ({ url, env }) => {
  const { createParser } = await dropIn(env, 'parser')
  const parsed = []
  const parser = createParser({ onEvent: (event) => parsed.push([event.event ?? 'message', event.data, event.id ?? null]) })
  await within(readText(await fetch(url('types')), (text) => parser.feed(text), () => parsed.length >= TYPES_PARSED.length),
    WAIT_MS, 'the events of the stream')
  same(parsed, TYPES_PARSED, 'events')
})

test('drop-in whatwg-eventsource/parser/stream: EventSourceParserStream on a fetched body', async ({ url, env }) => {
  const { EventSourceParserStream } = await dropIn(env, 'parser/stream')
  const response = await fetch(url('types'))
  const reader = response.body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream()).getReader()
  const parsed = []
  await within((async () => {
    while (parsed.length < TYPES_PARSED.length) {
      const { value, done } = await reader.read()
      if (done) break
      parsed.push([value.event ?? 'message', value.data, value.id ?? null])
    }
  })(), WAIT_MS, 'the events of the stream')
  await reader.cancel().catch(() => {})
  same(parsed, TYPES_PARSED, 'events')
})

test('the main entry\'s EventSource in a browser: an extension in the init, or for await, throws; nothing is sent', async ({ open, url, requests, pkg }) => {
  let refused
  try {
    open(url('basic'), { headers: { 'x-custom': 'never' } })
  } catch (err) {
    refused = err
  }
  same([refused?.code, refused instanceof TypeError], ['ERR_EVENTSOURCE_EXTENSION_NOT_LOADED', true], 'init.headers: code, class')
  assert(refused.message.startsWith('init.headers ') && refused.message.includes("'whatwg-eventsource/extensions'"),
    `the message names the member and where it is (${refused.message})`)
  const source = open(url('basic'), { withCredentials: false })
  let iterating
  try {
    source[Symbol.asyncIterator]()
  } catch (err) {
    iterating = err
  }
  equal(iterating?.code, 'ERR_EVENTSOURCE_EXTENSION_NOT_LOADED', 'for await')
  equal((await record(source, ['message']).wait('message')).data, 'hello', 'the standard EventSource')
  same((await requests(1)).requests.map((r) => r.headers['x-custom'] ?? null), [null], 'one request, the standard source\'s')
}, STANDARD_ONLY)

// EventSource.fromReadableStream(), whatwg/html PR #12272 (a proposal): the assertions of its web-platform tests
// (web-platform-tests PR #58550) that need nothing but a ReadableStream, in every runtime and build.
const encoder = new TextEncoder()
function streamOf (...chunks) {
  return new ReadableStream({
    start (controller) {
      for (const chunk of chunks) controller.enqueue(typeof chunk === 'string' ? encoder.encode(chunk) : chunk)
      controller.close()
    }
  })
}

test('fromReadableStream (whatwg/html PR #12272): state, messages, fields, the end, the error, the BOM', async ({ pkg }) => {
  const { EventSource } = pkg
  const sources = []
  const from = (stream) => {
    const source = EventSource.fromReadableStream(stream)
    sources.push(source)
    return source
  }
  try {
    const empty = from(streamOf())
    assert(empty instanceof EventSource, 'an EventSource')
    same([empty.readyState, empty.url, empty.withCredentials, empty.lastEventId], [0, 'about:event-stream', false, ''],
      'readyState, url, withCredentials, lastEventId')
    assert(empty.reconnectionTime > 0, 'reconnectionTime > 0')
    const emptyEvents = record(empty, ['error'])
    equal((await emptyEvents.wait('error')).readyState, EventSource.CLOSED, 'an empty stream: error, CLOSED')

    const locked = streamOf()
    locked.getReader()
    let thrown
    try { EventSource.fromReadableStream(locked) } catch (err) { thrown = err }
    assert(thrown instanceof TypeError, 'a locked stream: TypeError')

    const source = from(streamOf(
      new Uint8Array([0xef, 0xbb, 0xbf]), 'retry: 5000\n: a comment\nid: 42\nda', 'ta: hel', 'lo\ndata: world\n\n',
      'event: custom\ndata: typed\r\rdata: crlf\r\n\r\nretry: bogus\ndata: last\n\ndata: never dispatched'))
    const events = record(source, ['open', 'message', 'custom', 'error'])
    equal((await events.wait('open')).readyState, EventSource.OPEN, 'open: readyState OPEN')
    const error = await events.wait('error')
    same(events.events.map((e) => [e.type, e.data ?? null, e.lastEventId ?? null]), [
      ['open', null, null], ['message', 'hello\nworld', '42'], ['custom', 'typed', '42'], ['message', 'crlf', '42'],
      ['message', 'last', '42'], ['error', null, null]
    ], 'events: the BOM dropped, a split field, multi-line data, a custom type, CR and CRLF, then the error')
    equal(events.of('message')[0].event.origin, 'null', 'origin')
    same([error.readyState, source.lastEventId, source.reconnectionTime], [EventSource.CLOSED, '42', 5000],
      'CLOSED; lastEventId; reconnectionTime (a bogus retry ignored)')

    const failing = from(new ReadableStream({ start (controller) { controller.error(new Error('stream error')) } }))
    equal((await record(failing, ['error']).wait('error')).readyState, EventSource.CLOSED, 'an errored stream: error, CLOSED')

    const open = from(new ReadableStream({ start (controller) { controller.enqueue(encoder.encode('data: x\n\n')) } }))
    open.close()
    equal(open.readyState, EventSource.CLOSED, 'close(): CLOSED at once')

    // The TransformStream pattern: two streams piped through one, the last event ID and retry carried over.
    const ts = new TransformStream()
    const piped = from(ts.readable)
    const pipedEvents = record(piped, ['message'])
    await streamOf('id: 7\nretry: 3000\ndata: first\n\n').pipeTo(ts.writable, { preventClose: true })
    same([piped.lastEventId, piped.reconnectionTime], ['7', 3000], 'after the first stream')
    await streamOf('data: second\n\n').pipeTo(ts.writable, { preventClose: true })
    const second = await pipedEvents.wait('message', 2)
    same([second.data, second.lastEventId], ['second', '7'], 'the second stream\'s event')
  } finally {
    for (const source of sources) source.close()
  }
}, STANDARD)

test('fromReadableStream on a fetched body: the application\'s request, the standard\'s events', async ({ url, pkg, requests }) => {
  const response = await fetch(url('types'))
  const source = pkg.EventSource.fromReadableStream(response.body)
  try {
    const events = record(source, ['message', 'done'])
    await events.wait('done')
    equal(events.of('message')[0].data, 'first', 'the first message')
    equal((await requests(1)).requests.length, 1, 'one request, the application\'s')
  } finally {
    source.close()
  }
}, STANDARD)

// ---- serving: whatwg-eventsource/server ----

// The server entry as this runtime loads it: lib/entries/server.js on Node, Bun and Deno; in a page and a worker,
// the bundle's, which test/runtime/run.mjs checks is lib/entries/server.browser.js.
const serverEntry = (env) => dropIn(env, 'server')

// What the package's parser makes of some chunks: [type, data, lastEventId] per event.
function parseAll (pkg, chunks, onRetry = () => {}) {
  const events = []
  const parser = new pkg.EventSourceParser({ onEvent: (type, data, id) => events.push([type, data, id]), onRetry })
  for (const chunk of chunks) parser.write(chunk)
  parser.end()
  return events
}

// Every chunk of a body, to its end.
async function readAll (body) {
  const chunks = []
  const reader = body.getReader()
  for (;;) {
    const { value, done } = await reader.read()
    if (done) return chunks
    chunks.push(value)
  }
}

const codeOf = (promise) => promise.then(() => 'resolved', (err) => err?.code)

test('server: the encoder\'s bytes, read back by the parser; what the format cannot carry is refused', async ({ env, pkg }) => {
  const { encodeEvent, encodeEvents, formatEvent } = await serverEntry(env)
  const events = [
    { data: 'hello' },
    { event: 'note', id: '1', data: 'Ada\nevent: admin' },
    { data: 'a\revent: evil\rb', comment: 'not\nan event' },
    { data: ' one\r\ntwo\rthree\n', retry: 1500 },
    { id: 'é 2', event: 'done', data: 'café 😀' },
    { id: '', data: '' }
  ]
  const bytes = encodeEvents(events)
  assert(bytes instanceof Uint8Array, 'encodeEvents() gives bytes')
  const retries = []
  const parsed = parseAll(pkg, [bytes], (ms) => retries.push(ms))
  same(parsed, [
    ['message', 'hello', ''],
    ['note', 'Ada\nevent: admin', '1'],
    ['message', 'a\nevent: evil\nb', '1'],
    ['message', ' one\ntwo\nthree\n', '1'],
    ['done', 'café 😀', 'é 2'],
    ['message', '', '']
  ], 'events: every value whole, its line ends as LF; an empty id resets')
  same(retries, [1500], 'retry')
  same(parseAll(pkg, [...bytes].map((byte) => new Uint8Array([byte]))), parsed, 'the same bytes one at a time')
  equal(events.map(formatEvent).join(''), new TextDecoder().decode(bytes), 'formatEvent(): the same text')
  equal(new TextDecoder().decode(encodeEvent(events[0])), 'data: hello\n\n', 'encodeEvent()')
  for (const event of [{ id: '1\n\ndata: injected' }, { event: 'a\rb' }, { id: '7\0' }, {}]) {
    let thrown
    try {
      encodeEvent(event)
    } catch (err) {
      thrown = err
    }
    same([thrown?.name, thrown?.code], ['TypeError', 'ERR_INVALID_ARG_VALUE'], `refused: ${JSON.stringify(event)}`)
  }
})

test('server: a writer for a Request: its Response read as a client reads it; close(); a client that leaves', async ({ env, pkg }) => {
  const { EventStreamWriter } = await serverEntry(env)
  const writer = new EventStreamWriter(new Request('http://127.0.0.1/events', { headers: { 'last-event-id': 'w2' } }),
    { retry: 1000, heartbeat: 0, headers: { 'x-served-by': 'EventStreamWriter' } })
  equal(writer.lastEventId, 'w2', 'lastEventId: the request\'s Last-Event-ID')
  const response = writer.response({ headers: { 'x-more': 'yes' } })
  same(['content-type', 'cache-control', 'x-accel-buffering', 'x-served-by', 'x-more'].map((name) => response.headers.get(name)),
    ['text/event-stream', 'no-cache', 'no', 'EventStreamWriter', 'yes'], 'the head')
  equal(response.status, 200, 'status')
  equal(writer.send([{ id: 'w3', data: 'three' }, { data: 'a\nb' }]), true, 'send(): true while the client keeps up')
  writer.comment('bye')
  writer.close()
  equal(writer.send({ data: 'too late' }), false, 'send() after close()')
  const chunks = await within(readAll(response.body), WAIT_MS, 'the end of the body')
  equal(chunks.length, 1, 'chunks: what was sent in one tick, in one')
  const retries = []
  same(parseAll(pkg, chunks, (ms) => retries.push(ms)), [['message', 'three', 'w3'], ['message', 'a\nb', 'w3']], 'events')
  same(retries, [1000], 'retry, first')
  await within(writer.closed, WAIT_MS, 'closed')
  same([writer.signal.aborted, writer.signal.reason?.code, await codeOf(writer.ready)],
    [true, 'ERR_EVENTSOURCE_WRITER_CLOSED', 'ERR_EVENTSOURCE_WRITER_CLOSED'], 'signal, reason, ready')

  // A client that leaves: the body cancelled, or the request's signal aborted.
  const cancelled = new EventStreamWriter(new Request('http://127.0.0.1/events'), { heartbeat: 0 })
  equal(cancelled.lastEventId, '', 'lastEventId without Last-Event-ID')
  const source = pkg.EventSource.fromReadableStream(cancelled.response().body)
  cancelled.send({ data: 'hi' })
  equal((await record(source, ['message']).wait('message')).data, 'hi', 'read by EventSource.fromReadableStream()')
  source.close()
  await within(cancelled.closed, WAIT_MS, 'closed, once the body is cancelled')
  equal(cancelled.signal.reason?.code, 'ERR_EVENTSOURCE_WRITER_CLOSED', 'reason')
  const controller = new AbortController()
  const aborted = new EventStreamWriter(new Request('http://127.0.0.1/events', { signal: controller.signal }), { heartbeat: 0 })
  controller.abort()
  await within(aborted.closed, WAIT_MS, 'closed, once the request\'s signal aborts')
  equal(aborted.send({ data: 'x' }), false, 'send() once the client left')
})

// A writer's stream, served by a server, read by the package's EventSource: two events, the end (the first time),
// a reconnection with Last-Event-ID, two more; the server sees the client leave.
async function servedAndResumed ({ open, origin, writers }) {
  const source = open(`${origin}/events`)
  const events = record(source, ['open', 'message', 'error'])
  await events.wait('message', 4)
  same(events.of('message').map((e) => [e.data, e.lastEventId]), [['event 1', '1'], ['event 2', '2'], ['event 3', '3'], ['event 4', '4']],
    'messages: data, lastEventId')
  same(events.types(), ['open', 'message', 'message', 'error', 'open', 'message', 'message'], 'events: the end, the reconnection')
  source.close()
  await within(Promise.all(writers.map((writer) => writer.closed)), WAIT_MS, 'both writers to close')
  same(writers.map((writer) => [writer.lastEventId, writer.signal.reason?.code]),
    [['', 'ERR_EVENTSOURCE_WRITER_CLOSED'], ['2', 'ERR_EVENTSOURCE_WRITER_CLOSED']], 'the writers: Last-Event-ID, why closed')
}

// The events of servedAndResumed(), from a writer.
function sendTwo (writer) {
  const after = Number(writer.lastEventId || 0)
  writer.send([{ id: `${after + 1}`, data: `event ${after + 1}` }, { id: `${after + 2}`, data: `event ${after + 2}` }])
  if (after === 0) writer.close()
}

test('server: a writer for a Request, its Response served by the runtime\'s own server', async ({ open, env }) => {
  if (env.serve === undefined) throw new Skip('no server in a page or a worker: the test before reads the Response itself')
  const { EventStreamWriter } = await serverEntry(env)
  const writers = []
  const server = await env.serve((request) => {
    const writer = new EventStreamWriter(request, { retry: 20 })
    writers.push(writer)
    sendTwo(writer)
    return writer.response()
  })
  env.note(`served by ${server.name}`)
  try {
    // The head, as fetch sees it.
    const response = await fetch(`${server.origin}/events`)
    same(['content-type', 'cache-control', 'x-accel-buffering'].map((name) => response.headers.get(name)),
      ['text/event-stream', 'no-cache', 'no'], 'the head')
    same(parseAll(env.pkg, await within(readAll(response.body), WAIT_MS, 'the body')), [['message', 'event 1', '1'], ['message', 'event 2', '2']],
      'the body, read by the parser')
    writers.length = 0
    await servedAndResumed({ open, origin: server.origin, writers })
  } finally {
    await server.close()
  }
})

test('server: a writer for a node:http response of the runtime (Bun\'s and Deno\'s node:http too), gzip', async ({ open, env }) => {
  if (env.serveNode === undefined) throw new Skip('node:http is Node\'s, Bun\'s and Deno\'s')
  const { EventStreamWriter } = await serverEntry(env)
  const writers = []
  const server = await env.serveNode((req, res) => {
    const writer = new EventStreamWriter(res, { retry: 20, compress: true })
    writers.push(writer)
    sendTwo(writer)
  })
  try {
    // fetch asks for gzip, and decodes it.
    const response = await fetch(`${server.origin}/events`)
    same(['content-type', 'content-encoding'].map((name) => response.headers.get(name)), ['text/event-stream', 'gzip'], 'the head')
    same(parseAll(env.pkg, await within(readAll(response.body), WAIT_MS, 'the body')), [['message', 'event 1', '1'], ['message', 'event 2', '2']],
      'the body, read by the parser')
    writers.length = 0
    await servedAndResumed({ open, origin: server.origin, writers })
  } finally {
    await server.close()
  }
})

test('server: a channel with two subscribers; resumption from Last-Event-ID; the gap event; leaving', async ({ env, pkg }) => {
  const { Channel } = await serverEntry(env)
  const channel = new Channel({ heartbeat: 0 })
  const sources = []
  // A subscriber for a request with these headers, read by the package's EventSource.
  const subscribe = (headers = {}) => {
    const writer = channel.subscribe(new Request('http://127.0.0.1/channel', { headers }))
    const source = pkg.EventSource.fromReadableStream(writer.response().body)
    sources.push(source)
    return { writer, source, events: record(source, ['message', 'gap']) }
  }
  const messages = (subscriber) => subscriber.events.of('message').map((e) => [e.data, e.lastEventId])
  try {
    const a = subscribe()
    const b = subscribe()
    equal(channel.size, 2, 'size')
    const ids = ['one', 'two', 'three'].map((data) => channel.publish({ data }))
    equal(channel.lastEventId, ids[2], 'lastEventId')
    await Promise.all([a.events.wait('message', 3), b.events.wait('message', 3)])
    const expected = [['one', ids[0]], ['two', ids[1]], ['three', ids[2]]]
    same([messages(a), messages(b)], [expected, expected], 'both subscribers: every event, its id')
    // Back with the first event's ID: the two after it, then the next event published (an id of its own).
    const c = subscribe({ 'last-event-id': ids[0] })
    channel.publish({ data: 'four', id: 'own-4' })
    await c.events.wait('message', 3)
    same(messages(c), [['two', ids[1]], ['three', ids[2]], ['four', 'own-4']], 'resumed: what it missed, then the next')
    // An ID the history does not hold: a gap, whose ID is the newest event's, then the next events.
    const d = subscribe({ 'last-event-id': 'from-another-process' })
    const gap = await d.events.wait('gap')
    same([gap.data, gap.lastEventId], ['', 'own-4'], 'the gap event: data, lastEventId')
    channel.publish({ data: 'five' })
    equal((await d.events.wait('message')).data, 'five', 'after the gap')
    // A subscriber whose client leaves (the body cancelled) leaves the channel.
    a.source.close()
    await within(a.writer.closed, WAIT_MS, 'the subscriber to leave')
    equal(channel.size, 3, 'size, one left')
    channel.close()
    await within(Promise.all([b, c, d].map((subscriber) => subscriber.writer.closed)), WAIT_MS, 'the others to be closed')
    equal(channel.size, 0, 'size, closed')
    let thrown
    try {
      channel.publish({ data: 'late' })
    } catch (err) {
      thrown = err
    }
    equal(thrown?.code, 'ERR_EVENTSOURCE_CHANNEL_CLOSED', 'publish() after close()')
  } finally {
    for (const source of sources) source.close()
    channel.close()
  }
})

test('server: a Node server\'s writer and channel, read by the runtime\'s own EventSource; resumed after a cut', async ({ open, url, requests, publish, env, pkg }) => {
  const Native = NATIVE_EVENT_SOURCE
  env.note(`EventSource: ${Native === undefined ? 'this package\'s EventSource (the runtime has none)' : 'the runtime\'s own EventSource'}`)
  const Client = Native ?? pkg.EventSource
  // The writer: values a template would turn into fields, line ends of every kind.
  const written = record(open(url('writer'), {}, Client), ['message', 'note', 'done', 'admin', 'evil'])
  await written.wait('done')
  same(written.events.map((e) => [e.type, e.data, e.lastEventId]), [
    ['message', 'hello', 'w1'],
    ['note', 'Ada\nevent: admin', 'w2'],
    ['message', 'a\nevent: evil\nb', 'w3'],
    ['message', ' one\ntwo\nthree\n', 'w4'],
    ['done', 'café 😀', 'é 5']
  ], 'events: type, data, lastEventId')
  // The channel: two events, the connection cut and two published meanwhile, the reconnection resumes with them.
  const source = open(url('channel'), {}, Client)
  const events = record(source, ['open', 'message', 'error'])
  await events.wait('open')
  const first = await publish(['one', 'two'])
  await events.wait('message', 2)
  const missed = await publish(['three', 'four'], { cut: true })
  await events.wait('message', 4)
  const last = await publish(['five'])
  await events.wait('message', 5)
  const ids = [...first.ids, ...missed.ids, ...last.ids]
  same(events.of('message').map((e) => [e.data, e.lastEventId]), ['one', 'two', 'three', 'four', 'five'].map((data, i) => [data, ids[i]]),
    'messages: every one once, in order, with its id')
  same(events.types(), ['open', 'message', 'message', 'error', 'open', 'message', 'message', 'message'], 'events: the cut, the reconnection')
  const seen = (await requests(3)).requests.filter((r) => r.route === 'channel').map((r) => r.lastEventId ?? null)
  same(seen, [null, ids[1]], 'Last-Event-ID of the two requests')
})

// ---- the runner ----

const testsOf = (standardBuild) => tests.filter((t) => standardBuild ? t.builds !== FULL : t.builds !== STANDARD_ONLY)

/** The name of every test, in order: test/runtime/run.mjs checks that each run reported them all. */
export const testNames = testsOf(false).map((t) => t.name)
/** The same for a browser build without whatwg-eventsource/extensions. */
export const standardTestNames = testsOf(true).map((t) => t.name)

/**
 * @param {object} options
 * @param {object} options.pkg the package's exports, as the runtime loaded them
 * @param {() => Promise<unknown>} options.loadPolyfill imports whatwg-eventsource/polyfill
 * @param {(name: 'eventsource' | 'parser' | 'parser/stream' | 'server') => Promise<object>} options.loadEntry imports
 *   whatwg-eventsource/<name> (in a browser, a module with `unavailable`, why, where it does not bundle)
 * @param {(handler: (request: Request) => Response | Promise<Response>) => Promise<{ origin: string, name: string,
 *   close: () => Promise<void> }>} [options.serve] serves a handler with the runtime's own server, on 127.0.0.1
 *   (none in a page or a worker)
 * @param {(handler: (req: object, res: object) => void) => Promise<{ origin: string, close: () => Promise<void> }>}
 *   [options.serveNode] the same with the runtime's node:http (none in a page or a worker)
 * @param {string} options.base the origin of the page and of same-origin streams
 * @param {string} options.cross another origin, with CORS
 * @param {string} options.keyPrefix unique to this run: the server keeps state per key
 * @param {'dispatcher' | 'fetch'} options.transport the transport this run should be using
 * @param {boolean} options.passFetch give every source `fetch: globalThis.fetch`
 * @param {boolean} options.browser in a document or a worker
 * @param {boolean} [options.standardBuild] a browser build without whatwg-eventsource/extensions: the standard's tests
 * @param {(line: string) => void} options.log
 * @returns {Promise<{ passed: number, failed: number, skipped: number }>}
 */
export async function runSuite ({ pkg, loadPolyfill, loadEntry, serve, serveNode, base, cross, keyPrefix, transport, passFetch, browser, standardBuild = false, log }) {
  let passed = 0
  let failed = 0
  let skipped = 0
  const env = { base, cross, transport, browser, standardBuild, loadPolyfill, loadEntry, serve, serveNode, pkg, note: (text) => log(`# ${text}`) }
  for (const [index, { name, fn }] of testsOf(standardBuild).entries()) {
    const key = `${keyPrefix}-${index}`
    const sources = []
    const url = (route, query = '', origin = base) => `${origin}/sse/${route}?key=${encodeURIComponent(key)}${query === '' ? '' : `&${query}`}`
    const control = async (path) => (await fetch(`${base}/control/${path}&key=${encodeURIComponent(key)}`)).json()
    const context = {
      pkg,
      env,
      url,
      open (href, init = {}, Class = pkg.EventSource) {
        const source = new Class(href, passFetch ? { fetch: globalThis.fetch, ...init } : init)
        sources.push(source)
        return source
      },
      // What the server saw: once `n` requests have come, or after its own bound.
      requests: (n) => control(`requests?wait=${n}`),
      closed: () => control('closed?'),
      cut: () => control('cut?'),
      // Publishes to the key's channel (test/runtime/server.mjs), after cutting its last subscriber's connection.
      publish: (data, { cut = false } = {}) => control(`publish?${data.map((d) => `data=${encodeURIComponent(d)}`).join('&')}${cut ? '&cut=1' : ''}`),
      same,
      equal
    }
    try {
      await within(fn(context), 4 * WAIT_MS, `end of the test "${name}"`)
      passed++
      log(`ok ${index + 1} - ${name}`)
    } catch (err) {
      if (err instanceof Skip) {
        skipped++
        log(`ok ${index + 1} - ${name} # SKIP ${err.message}`)
      } else {
        failed++
        log(`not ok ${index + 1} - ${name}`)
        for (const line of String(err?.stack ?? err).split('\n')) log(`#   ${line}`)
      }
    } finally {
      for (const source of sources) source.close()
    }
  }
  return { passed, failed, skipped }
}
