'use strict'

// `whatwg-eventsource/eventsource`: what code and tests written against the `eventsource` package rely on,
// checked on our entry point and, where that package's installed version (4) behaves so too, on the
// original, so that each check is shown to test that package's behaviour. Version 5's changes (it
// follows the standard where 4 did not) are checked on ours only. Real servers on 127.0.0.1; the
// fetches are real ones, wrapped where a test needs a broken or hand-made response.

const t = require('tap')
const { inspect } = require('node:util')
const dropIn = require('whatwg-eventsource/eventsource')
const original = require('eventsource')
const {
  serve, sse, record, closedPort, reconnectionCycle, closeAtTeardown, bounded, catchError, throwsError
} = require('../../helpers/index.cjs')

const IMPLEMENTATIONS = [['whatwg-eventsource/eventsource', dropIn], ['eventsource 4', original]]

// A check on both implementations: fn(t, { EventSource, ErrorEvent }).
function both (name, fn) {
  for (const [label, implementation] of IMPLEMENTATIONS) t.test(`${name} (${label})`, (t) => fn(t, implementation))
}

// A check of that package's version 5 (the original installed is version 4): ours only.
function version5 (name, fn) {
  t.test(`${name} (whatwg-eventsource/eventsource, as eventsource 5)`, (t) => fn(t, dropIn))
}

// A check of where we differ from that package on purpose (docs/migrating-from-eventsource.md).
function differs (name, fn) {
  t.test(`${name} (whatwg-eventsource/eventsource, unlike eventsource)`, (t) => fn(t, dropIn))
}

function open (t, { EventSource }, url, init) {
  return closeAtTeardown(t, new EventSource(url, init))
}

// A fetch that records its calls and makes them with the runtime's fetch (after `change`, if given).
function recordingFetch (change = (url, init) => [url, init]) {
  const calls = []
  const runtimeFetch = globalThis.fetch
  const fetchFn = (url, init) => {
    calls.push({ url, init })
    return runtimeFetch(...change(url, init))
  }
  return { calls, fetch: fetchFn }
}

// The first response sets a short reconnection time and ends; `then(res, index)` answers the others.
function retryFirst (then) {
  return (req, res, index) => {
    if (index === 0) sse(res, 'retry: 10\n\n')
    else then(res, index)
  }
}

t.test('the exports: ErrorEvent and EventSource, by require and by import, as the original\'s', async (t) => {
  t.same(Object.keys(dropIn).sort(), Object.keys(original).sort())
  const esm = await import('whatwg-eventsource/eventsource')
  const originalEsm = await import('eventsource')
  t.same(Object.keys(esm).sort(), Object.keys(originalEsm).sort(), 'the same named exports, no default')
  t.equal(esm.EventSource, dropIn.EventSource)
  t.equal(esm.ErrorEvent, dropIn.ErrorEvent)
})

both('the constructor: its name, the readyState constants, the fetch-override marker', async (t, { EventSource }) => {
  t.equal(EventSource.name, 'EventSource')
  t.same([EventSource.CONNECTING, EventSource.OPEN, EventSource.CLOSED], [0, 1, 2])
  const marker = Symbol.for('eventsource.supports-fetch-override')
  t.ok(marker in EventSource)
  t.same(Object.getOwnPropertyDescriptor(EventSource, marker), { value: true, writable: false, enumerable: false, configurable: false })
  const srv = await serve(t, (req, res) => sse(res))
  const es = open(t, { EventSource }, srv.url())
  t.same([es.CONNECTING, es.OPEN, es.CLOSED], [0, 1, 2])
  t.equal(es.readyState, EventSource.CONNECTING)
  t.ok(es instanceof EventTarget)
})

both('the URL: a string or a URL; anything else throws the package\'s SyntaxError', async (t, { EventSource }) => {
  const srv = await serve(t, (req, res) => sse(res))
  const href = srv.url('/events?x=1')
  t.equal(open(t, { EventSource }, href).url, href)
  t.equal(open(t, { EventSource }, new URL(href)).url, href)
  for (const url of [123, 'not a URL', { toString: () => href }, undefined]) {
    const err = catchError(t, () => new EventSource(url), inspect(url))
    t.ok(err instanceof DOMException, `${inspect(url)}: a DOMException`)
    t.same([err?.name, err?.message], ['SyntaxError', 'An invalid or illegal string was specified'])
  }
})

both('a relative URL is resolved against document.baseURI', async (t, impl) => {
  const srv = await serve(t, (req, res) => sse(res))
  globalThis.document = { baseURI: srv.url('/base/') }
  let es
  try {
    es = open(t, impl, 'events?x=1')
  } finally {
    delete globalThis.document
  }
  t.equal(es.url, srv.url('/base/events?x=1'))
  await srv.request(0)
  t.equal(srv.requests[0].url, '/base/events?x=1')
})

both('fetch: called in the constructor, then per attempt, with the URL (a URL) and exactly the package\'s init', async (t, impl) => {
  const srv = await serve(t, (req, res, index) => sse(res, index === 0 ? 'retry: 10\nid: 7\ndata: a\n\n' : 'data: b\n\n', { end: index === 0 }))
  const { calls, fetch } = recordingFetch()
  const es = open(t, impl, srv.url('/stream'), { fetch })
  t.equal(calls.length, 1, 'the first call comes from the constructor')
  const rec = record(es)
  await rec.wait('message', 2)
  t.equal(calls.length, 2)
  for (const { url } of calls) {
    t.ok(url instanceof URL, 'the URL is a URL')
    t.equal(url.href, srv.url('/stream'))
  }
  const [first, second] = calls.map((call) => call.init)
  t.same(Object.keys(first), ['mode', 'redirect', 'headers', 'cache', 'signal'], 'no other member (no credentials outside a window)')
  t.same({ ...first, signal: null }, {
    mode: 'cors', redirect: 'follow', headers: { Accept: 'text/event-stream' }, cache: 'no-store', signal: null
  })
  t.same(second.headers, { Accept: 'text/event-stream', 'Last-Event-ID': '7' }, 'Last-Event-ID on the reconnection')
  t.same(Object.getPrototypeOf(second.headers), Object.prototype, 'a plain object')
  t.ok(first.signal instanceof AbortSignal)
  t.equal(srv.requests[1].headers['last-event-id'], '7')
  t.notOk(second.signal.aborted)
  es.close()
  t.ok(second.signal.aborted, 'close() aborts the signal')
  t.equal(es.readyState, 2)
})

both('fetch: credentials in the init only where `window` exists', async (t, impl) => {
  const srv = await serve(t, (req, res) => sse(res, 'data: a\n\n', { end: false }))
  globalThis.window = globalThis
  t.teardown(() => { delete globalThis.window })
  for (const withCredentials of [false, true]) {
    const { calls, fetch } = recordingFetch()
    const es = open(t, impl, srv.url(), { fetch, withCredentials })
    await record(es).wait('message')
    t.equal(es.withCredentials, withCredentials)
    t.equal(calls[0].init.credentials, withCredentials ? 'include' : 'same-origin')
  }
})

both('without fetch: globalThis.fetch as it is at construction, for every attempt', async (t, impl) => {
  const srv = await serve(t, retryFirst((res) => sse(res, 'data: a\n\n', { end: false })))
  const runtimeFetch = globalThis.fetch
  const { calls, fetch } = recordingFetch()
  globalThis.fetch = fetch
  let es
  try {
    es = open(t, impl, srv.url())
  } finally {
    globalThis.fetch = runtimeFetch
  }
  await record(es).wait('message')
  t.equal(calls.length, 2, 'the reconnection too went through the fetch of construction time')
})

both('a status other than 200 fails the connection: code the status, the package\'s message', async (t, impl) => {
  const cases = [[503, 'Non-200 status code (503)'], [401, 'Non-200 status code (401)'],
    [204, 'Server sent HTTP 204, not reconnecting']]
  for (const [status, message] of cases) {
    t.test(`${status}`, async (t) => {
      // Once an attempt with a 10 ms reconnection time: a reconnection after the failure would show.
      const srv = await serve(t, retryFirst((res) => res.writeHead(status).end()))
      const es = open(t, impl, srv.url())
      const rec = record(es)
      const error = await rec.wait('error', 2)
      t.equal(error.readyState, impl.EventSource.CLOSED)
      t.equal(error.code, status)
      t.equal(error.event.message, message)
      t.ok(error.event instanceof impl.ErrorEvent)
      await reconnectionCycle(t, 50)
      t.equal(srv.requests.length, 2, 'no reconnection')
      t.equal(rec.count('error'), 2)
    })
  }
})

both('a Content-Type other than text/event-stream fails the connection: code the status', async (t, impl) => {
  const srv = await serve(t, (req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('data: a\n\n'))
  const es = open(t, impl, srv.url())
  const rec = record(es)
  const error = await rec.wait('error')
  t.same(rec.types, ['error'])
  t.equal(error.readyState, impl.EventSource.CLOSED)
  t.equal(error.code, 200)
  t.equal(error.event.message, 'Invalid content type, expected "text/event-stream"')
})

both('a network error reconnects: no code, the fetch\'s rejection flattened', async (t, impl) => {
  const port = await closedPort()
  const es = open(t, impl, `http://127.0.0.1:${port}/`)
  const error = await record(es).wait('error')
  t.equal(error.readyState, impl.EventSource.CONNECTING)
  t.equal(error.code, undefined)
  t.match(error.event.message, /^TypeError: fetch failed: .*ECONNREFUSED/)
})

t.test('a network error: the same message from ours and from the original', async (t) => {
  const port = await closedPort()
  const messages = []
  for (const [, impl] of IMPLEMENTATIONS) {
    const es = open(t, impl, `http://127.0.0.1:${port}/`)
    messages.push((await record(es).wait('error')).event.message)
    es.close()
  }
  t.equal(messages[0], messages[1])
})

both('a rejection that is not one Error: an AggregateError\'s errors joined, anything else as a string', async (t, impl) => {
  const rejections = [
    [new AggregateError([new Error('first'), 'plain', new TypeError('second', { cause: new Error('why') })]), 'first, plain, TypeError: second: why'],
    ['a string', 'a string']
  ]
  for (const [rejection, message] of rejections) {
    const es = open(t, impl, 'http://127.0.0.1:9/', { fetch: () => Promise.reject(rejection) })
    const error = await record(es).wait('error')
    t.equal(error.event.message, message)
    t.equal(error.readyState, impl.EventSource.CONNECTING)
    es.close()
  }
})

both('the end of the stream: an error without code or message, then a reconnection with Last-Event-ID', async (t, impl) => {
  const srv = await serve(t, (req, res, index) => sse(res, index === 0 ? 'retry: 10\nid: 42\ndata: x\n\n' : 'data: y\n\n', { end: index === 0 }))
  const es = open(t, impl, srv.url())
  const rec = record(es)
  await rec.wait('message', 2)
  t.same(rec.types, ['open', 'message', 'error', 'open', 'message'])
  const error = rec.of('error')[0]
  t.equal(error.readyState, impl.EventSource.CONNECTING)
  t.equal(error.code, undefined)
  t.equal(error.event.message, undefined)
  t.equal(srv.requests[1].headers['last-event-id'], '42')
})

both('after a redirect: url and reconnections stay on the URL given; origin is the final one', async (t, impl) => {
  const final = await serve(t, (req, res) => sse(res, 'retry: 10\ndata: here\n\n'))
  const start = await serve(t, (req, res) => res.writeHead(302, { location: final.url('/final') }).end())
  const es = open(t, impl, start.url('/start'))
  const rec = record(es)
  const message = await rec.wait('message', 2)
  t.equal(message.origin, final.origin, 'the origin of the final URL')
  t.equal(es.url, start.url('/start'))
  t.same(start.requests.map((req) => req.url), ['/start', '/start'], 'the reconnection went to the URL given')
  t.same(final.requests.map((req) => req.url), ['/final', '/final'])
})

both('a redirect the fetch does not follow fails the connection with its status', async (t, impl) => {
  const final = await serve(t, (req, res) => sse(res, 'data: here\n\n'))
  const start = await serve(t, (req, res) => res.writeHead(302, { location: final.url('/final') }).end())
  // A fetch wrapper with a redirect policy of its own (the MCP SDK's), here: follow none.
  const { fetch } = recordingFetch((url, init) => [url, { ...init, redirect: 'manual' }])
  const es = open(t, impl, start.url('/start'), { fetch })
  const error = await record(es).wait('error')
  t.equal(error.readyState, impl.EventSource.CLOSED)
  t.equal(error.code, 302)
  t.equal(error.event.message, 'Non-200 status code (302)')
  t.equal(final.requests.length, 0)
})

both('a fetch whose response has no body stream: open, then the error, code the status', async (t, impl) => {
  const bodies = [['a body that is not a stream', 'not a stream'], ['no body', undefined], ['a null body, no url', null]]
  for (const [name, body] of bodies) {
    t.test(name, async (t) => {
      const srv = await serve(t, (req, res) => sse(res, 'data: a\n\n'))
      // A broken wrapper: it reads the real response and hands on something else as its body.
      const brokenFetch = async (url, init) => {
        const response = await globalThis.fetch(url, init)
        await response.body.cancel()
        const made = { status: response.status, headers: response.headers, redirected: false }
        if (body !== null) made.url = response.url
        if (body !== undefined) made.body = body
        return made
      }
      const es = open(t, impl, srv.url(), { fetch: brokenFetch })
      const rec = record(es)
      const error = await rec.wait('error')
      t.same(rec.types, ['open', 'error'])
      t.equal(error.readyState, impl.EventSource.CLOSED)
      t.equal(error.code, 200)
      t.equal(error.event.message, 'Invalid response body, expected a web ReadableStream')
    })
  }
})

// A fetch whose response is made by hand from a real one: headers with only get(), a body whose reader
// yields each chunk as `chunkAs(bytes)` (after a read without a value, with `empty`) and has a cancel()
// only when asked for.
function handMadeFetch (chunkAs, { cancel = true, empty = false } = {}) {
  return async (url, init) => {
    const response = await globalThis.fetch(url, init)
    const reader = response.body.getReader()
    let reads = 0
    const handMadeReader = {
      async read () {
        if (empty && reads++ % 2 === 0) return { done: false, value: undefined }
        const { done, value } = await reader.read()
        return done ? { done } : { done, value: chunkAs(value) }
      }
    }
    if (cancel) handMadeReader.cancel = () => reader.cancel()
    return {
      status: response.status,
      url: response.url,
      redirected: response.redirected,
      headers: { get: (name) => response.headers.get(name) },
      body: { getReader: () => handMadeReader }
    }
  }
}

both('a fetch returning a hand-made response: headers with only get(), chunks of ArrayBuffer or DataView, reads without a value', async (t, impl) => {
  const forms = [['ArrayBuffer', (bytes) => bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)],
    ['DataView', (bytes) => new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)],
    ['Uint8Array, after reads without a value', (bytes) => bytes, { empty: true }]]
  for (const [name, chunkAs, options] of forms) {
    t.test(name, async (t) => {
      const srv = await serve(t, (req, res) => sse(res, 'data: one\n\ndata: two\n\n', { end: false }))
      const rec = record(open(t, impl, srv.url(), { fetch: handMadeFetch(chunkAs, options) }))
      await rec.wait('message', 2)
      t.same(rec.data(), ['one', 'two'])
    })
  }
})

both('close() with a hand-made reader that has no cancel()', async (t, impl) => {
  const srv = await serve(t, (req, res) => sse(res, 'data: one\n\n', { end: false }))
  const es = open(t, impl, srv.url(), { fetch: handMadeFetch((bytes) => bytes, { cancel: false }) })
  await record(es).wait('message')
  es.close()
  t.equal(es.readyState, impl.EventSource.CLOSED)
})

both('close(): CLOSED at once, the request aborted, nothing after', async (t, impl) => {
  const srv = await serve(t, (req, res) => sse(res, 'retry: 10\ndata: a\n\n', { end: false }))
  const { calls, fetch } = recordingFetch()
  const es = open(t, impl, srv.url(), { fetch })
  const rec = record(es)
  await rec.wait('message')
  es.close()
  t.equal(es.readyState, impl.EventSource.CLOSED)
  t.ok(calls[0].init.signal.aborted)
  await reconnectionCycle(t, 50)
  t.same(rec.types, ['open', 'message'])
  t.equal(srv.requests.length, 1)
})

both('error events are the exported ErrorEvent', async (t, { EventSource, ErrorEvent }) => {
  const srv = await serve(t, (req, res) => res.writeHead(404).end())
  const es = open(t, { EventSource }, srv.url())
  const listened = []
  es.onerror = (event) => listened.push(event)
  const [event] = await bounded(new Promise((resolve) => es.addEventListener('error', (e) => resolve([e]))), 'error')
  t.ok(event instanceof ErrorEvent)
  t.ok(event instanceof Event)
  t.equal(event.type, 'error')
  t.equal(event.target, es)
  t.same([event.code, event.message], [404, 'Non-200 status code (404)'])
  t.same(listened, [event], 'onerror sees it')
  const shown = inspect(event)
  t.match(shown, /code: 404/)
  t.match(shown, /message: 'Non-200 status code \(404\)'/)

  const denoShown = event[Symbol.for('Deno.customInspect')]((value) => JSON.stringify(value), {})
  t.same(JSON.parse(denoShown), { type: 'error', message: 'Non-200 status code (404)', code: 404, defaultPrevented: false, cancelable: false, timeStamp: event.timeStamp })

  const made = new ErrorEvent('error', { code: 401, message: 'no', cancelable: true })
  t.same([made.type, made.code, made.message, made.cancelable, made.bubbles], ['error', 401, 'no', false, false])
  const bare = new ErrorEvent('error')
  t.same([bare.code, bare.message], [undefined, undefined])
})

version5('the Content-Type is compared by its essence', async (t, impl) => {
  const srv = await serve(t, (req, res) => res.writeHead(200, { 'content-type': ' Text/Event-Stream ; charset=utf-8' }).end('data: a\n\n'))
  const rec = record(open(t, impl, srv.url()))
  await rec.wait('message')
  t.same(rec.types.slice(0, 2), ['open', 'message'])
})

version5('an event without id: keeps the last event ID', async (t, impl) => {
  const srv = await serve(t, (req, res) => sse(res, 'id: 1\ndata: a\n\ndata: b\n\n', { end: false }))
  const rec = record(open(t, impl, srv.url()))
  await rec.wait('message', 2)
  t.same(rec.of('message').map((e) => e.lastEventId), ['1', '1'])
})

version5('on* handlers run in their place among the listeners', async (t, impl) => {
  const srv = await serve(t, (req, res) => sse(res, 'data: a\n\n', { end: false }))
  const es = open(t, impl, srv.url())
  const order = []
  es.addEventListener('message', () => order.push('listener 1'))
  es.onmessage = () => order.push('onmessage')
  es.addEventListener('message', () => order.push('listener 2'))
  await record(es).wait('message')
  t.same(order, ['listener 1', 'onmessage', 'listener 2'])
})

version5('a last event ID that is not ASCII is sent as its UTF-8 bytes', async (t, impl) => {
  const id = 'é€😀'
  const srv = await serve(t, (req, res, index) => sse(res, index === 0 ? `retry: 10\nid: ${id}\ndata: a\n\n` : 'data: b\n\n', { end: index === 0 }))
  const { calls, fetch } = recordingFetch()
  const rec = record(open(t, impl, srv.url(), { fetch }))
  await rec.wait('message', 2)
  t.equal(calls[1].init.headers['Last-Event-ID'], Buffer.from(id).toString('latin1'), 'a byte string, one character per byte')
  t.same(Buffer.from(srv.requests[1].headers['last-event-id'], 'latin1'), Buffer.from(id))
  t.equal(rec.of('message')[1].lastEventId, id)
})

version5('maxBufferSize: an event over it fails the connection', async (t, impl) => {
  const srv = await serve(t, (req, res) => sse(res, `retry: 10\n\ndata: ${'x'.repeat(4096)}\n\n`, { end: false }))
  const rec = record(open(t, impl, srv.url(), { maxBufferSize: 1024 }))
  const error = await rec.wait('error')
  t.equal(error.readyState, impl.EventSource.CLOSED)
  t.equal(error.code, undefined)
  t.equal(error.event.message, 'Buffered data exceeded max buffer size of 1024 characters')
  await reconnectionCycle(t, 50)
  t.equal(srv.requests.length, 1, 'no reconnection')
})

differs('a body chunk that is not bytes fails the connection', async (t, impl) => {
  const srv = await serve(t, (req, res) => sse(res, 'data: one\n\n', { end: false }))
  const rec = record(open(t, impl, srv.url(), { fetch: handMadeFetch((bytes) => Buffer.from(bytes).toString()) }))
  const error = await rec.wait('error')
  t.equal(error.readyState, impl.EventSource.CLOSED)
  t.equal(error.code, undefined)
  t.match(error.event.message, /The "chunk" argument must be an instance of Buffer or Uint8Array/)
})

differs('maxBufferSize must be a positive integer or Infinity', async (t, impl) => {
  throwsError(t, () => new impl.EventSource('http://127.0.0.1:9/', { maxBufferSize: '1024' }), {
    type: TypeError, code: 'ERR_INVALID_ARG_TYPE', message: /^The "init.maxBufferSize" property must be of type number/
  })
  throwsError(t, () => new impl.EventSource('http://127.0.0.1:9/', { maxBufferSize: 0 }), {
    type: RangeError, code: 'ERR_OUT_OF_RANGE', message: /^The value of "init.maxBufferSize" is out of range/
  })
})

differs('a URL scheme other than http: or https: fails at once, without calling the fetch', async (t, impl) => {
  const { calls, fetch } = recordingFetch()
  const rec = record(open(t, impl, 'ftp://127.0.0.1/events', { fetch }))
  const error = await rec.wait('error')
  t.equal(error.readyState, impl.EventSource.CLOSED)
  t.same([error.code, error.event.message], [undefined, 'The URL scheme "ftp:" is not supported: an event stream needs http: or https:'])
  t.equal(calls.length, 0)
})

differs('a fetch that throws is a network error: the attempt is retried', async (t, impl) => {
  const srv = await serve(t, (req, res) => sse(res, 'data: one\n\n', { end: false }))
  let calls = 0
  const throwsOnce = (url, init) => {
    if (calls++ === 0) throw new TypeError('not now')
    return globalThis.fetch(url, init)
  }
  const es = open(t, impl, srv.url(), { fetch: throwsOnce })
  t.equal(calls, 1, 'the constructor did not throw')
  const rec = record(es)
  const error = await rec.wait('error')
  t.same([error.readyState, error.code, error.event.message], [impl.EventSource.CONNECTING, undefined, 'not now'])
  es.close()
})

differs('credentials in the URL: not in the URL given to the fetch; answered to a Basic 401', async (t, impl) => {
  const srv = await serve(t, (req, res) => {
    if (req.headers.authorization === undefined) res.writeHead(401, { 'www-authenticate': 'Basic realm="events"' }).end()
    else sse(res, `data: ${req.headers.authorization}\n\n`, { end: false })
  })
  const { calls, fetch } = recordingFetch()
  const url = new URL(srv.url('/'))
  url.username = 'user'
  url.password = 'pass'
  const rec = record(open(t, impl, url, { fetch }))
  const message = await rec.wait('message')
  t.equal(message.data, `Basic ${Buffer.from('user:pass').toString('base64')}`)
  t.same(calls.map((call) => call.url.href), [srv.url('/'), srv.url('/')])
  t.same(calls[1].init.headers, { Accept: 'text/event-stream', authorization: message.data })
})
