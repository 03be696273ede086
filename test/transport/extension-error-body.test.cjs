'use strict'

// init.errorBody (lib/transport/error-body.js): the error of a response the source does not take (a status
// other than 200, a 200 that is not text/event-stream, a status retryOnStatus retries) carries the text of
// its body, `body`, and whether it was cut, `bodyTruncated`: decoded by its charset after its
// Content-Encoding, within a bound in bytes (past it the response is aborted) and in time (the error waits
// no longer). The same on every transport: a Dispatcher over http: and https:, HTTP/2 sessions, a fetch.

const t = require('tap')
const zlib = require('node:zlib')
const { once } = require('node:events')
const { Agent } = require('undici')
const { EventSource } = require('../../')
const {
  serve, sse, open, record, bounded, deferred, tlsFixture, countingDispatcher, reconnectionCycle, throwsError
} = require('../helpers/index.cjs')

const { key, cert } = tlsFixture()
const tls = { key, cert }

// Each transport: how its server is made and what the init says to go through it.
const TRANSPORTS = [
  { name: 'Dispatcher, http:', options: {}, init: () => ({}) },
  {
    name: 'Dispatcher, https:',
    options: { tls },
    init: (t) => {
      const dispatcher = new Agent({ connect: { ca: cert } })
      t.teardown(() => dispatcher.close())
      return { dispatcher }
    }
  },
  { name: 'HTTP/2 sessions', options: { tls, http2: {} }, init: () => ({ http2: { connect: { ca: cert } } }) },
  { name: 'fetch', options: {}, init: () => ({ fetch: globalThis.fetch }) }
]

/**
 * The first `error` event of a source on a server of the transport's kind answering with `handler`.
 * @returns {Promise<{
 *   event: import('../../types').EventSourceErrorEvent, ms: number, server: object, es: EventSource
 * }>}
 */
async function firstError (t, transport, handler, init = {}) {
  const server = await serve(t, handler, transport.options)
  const started = performance.now()
  const es = open(t, server.url('/'), { reconnectionTime: 10, ...transport.init(t), ...init })
  const { event } = await record(es).wait('error')
  return { event, ms: performance.now() - started, server, es }
}

// A response body written for as long as the response is open; resolves once the client has gone away
// (the response closed without the server ending it).
function endless (res) {
  const chunk = Buffer.alloc(16 * 1024, 'x')
  const write = () => {
    while (!res.destroyed && res.write(chunk));
    if (!res.destroyed) res.once('drain', write)
  }
  write()
  return once(res, 'close').then(() => res.writableFinished)
}

for (const transport of TRANSPORTS) {
  t.test(`${transport.name}: a 400 with a JSON body, read and parsed`, async (t) => {
    const { event, es } = await firstError(t, transport, (req, res) => {
      res.writeHead(400, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ error: { message: "'prompt' is required", type: 'invalid_request_error' } }))
    })
    t.same([event.code, event.status, event.willReconnect, es.readyState],
      ['ERR_EVENTSOURCE_BAD_STATUS', 400, false, EventSource.CLOSED])
    t.equal(JSON.parse(event.body).error.message, "'prompt' is required")
    t.equal(event.bodyTruncated, false)
  })

  t.test(`${transport.name}: the charset decides the decoding; gzip is undone first`, async (t) => {
    const bodies = {
      '/latin1': [{ 'content-type': 'text/plain; charset=ISO-8859-1' }, Buffer.from('café ½', 'latin1')],
      '/utf16': [{ 'content-type': 'text/plain;charset="UTF-16"' }, Buffer.from('héllo €', 'utf16le')],
      '/unknown': [{ 'content-type': 'text/plain; charset=no-such-thing' }, Buffer.from('naïve', 'utf8')],
      '/invalid': [{ 'content-type': 'text/plain' }, Buffer.from([0x61, 0xff, 0x62])],
      '/gzip': [{ 'content-type': 'text/plain;charset=utf-8', 'content-encoding': 'gzip' }, zlib.gzipSync('zipped €')]
    }
    const server = await serve(t, (req, res) => {
      const [headers, body] = bodies[req.url]
      res.writeHead(500, headers)
      res.end(body)
    }, transport.options)
    const read = {}
    for (const path of Object.keys(bodies)) {
      const es = open(t, server.url(path), transport.init(t))
      const { event } = await record(es).wait('error')
      read[path] = [event.body, event.bodyTruncated]
    }
    t.same(read, {
      '/latin1': ['café ½', false],
      '/utf16': ['héllo €', false],
      '/unknown': ['naïve', false],
      '/invalid': ['a\ufffdb', false],
      '/gzip': ['zipped €', false]
    })
  })

  t.test(`${transport.name}: a body over maxBytes is cut there, and the rest is not read`, async (t) => {
    const closed = deferred()
    const { event } = await firstError(t, transport, (req, res) => {
      res.writeHead(503, { 'content-type': 'text/plain' })
      endless(res).then(closed.resolve)
    }, { errorBody: { maxBytes: 10_000, timeout: 60_000 } })
    t.same([event.body.length, event.bodyTruncated], [10_000, true], 'the first 10,000 bytes, and cut')
    t.ok(event.body === 'x'.repeat(10_000), 'as they were')
    t.equal(await bounded(closed.promise, 'the server to see the response go'), false, 'aborted, never ended')
  })

  t.test(`${transport.name}: a head and then nothing: the error waits the timeout, no more`, async (t) => {
    const { event, ms } = await firstError(t, transport, (req, res) => {
      res.writeHead(502, { 'content-type': 'text/plain' })
      res.write('par')
    }, { errorBody: { timeout: 200 } })
    t.same([event.code, event.body, event.bodyTruncated], ['ERR_EVENTSOURCE_BAD_STATUS', 'par', true])
    t.ok(ms >= 200, `after the timeout (${Math.round(ms)} ms)`)
  })
}

t.test('a server that drips a byte now and then delays the error by the timeout at most', async (t) => {
  const closed = deferred()
  const { event, ms } = await firstError(t, TRANSPORTS[0], (req, res) => {
    res.writeHead(429, { 'content-type': 'text/plain' })
    // The server's own pace, not the test's: a byte every 20 ms, until the client goes.
    const drip = setInterval(() => res.write('.'), 20)
    once(res, 'close').then(() => {
      clearInterval(drip)
      closed.resolve(res.writableFinished)
    })
  }, { errorBody: { timeout: 300 } })
  t.equal(event.bodyTruncated, true)
  t.match(event.body, /^\.+$/, 'what had come')
  t.ok(ms >= 300, `after the timeout (${Math.round(ms)} ms)`)
  t.equal(await bounded(closed.promise, 'the server to see the response go'), false, 'aborted')
})

t.test('a gzip body that grows past maxBytes is cut after decoding', async (t) => {
  // 16 MiB of zeros, a few KiB compressed: the bound counts what it decodes to.
  const bomb = zlib.gzipSync(Buffer.alloc(16 * 1024 * 1024))
  const { event } = await firstError(t, TRANSPORTS[0], (req, res) => {
    res.writeHead(500, { 'content-type': 'text/plain', 'content-encoding': 'gzip' })
    res.end(bomb)
  }, { errorBody: { maxBytes: 1000, timeout: 60_000 } })
  t.same([event.body.length, event.bodyTruncated], [1000, true], 'the first 1,000 bytes it decodes to, and cut')
  t.ok(event.body === '\0'.repeat(1000), 'as they were')
})

t.test('a cut inside a character leaves the character out, whole', async (t) => {
  const server = await serve(t, (req, res) => {
    res.writeHead(400, { 'content-type': `text/plain; charset=${req.url === '/utf16' ? 'utf-16le' : 'utf-8'}` })
    res.end(req.url === '/utf16' ? Buffer.from('ab€', 'utf16le') : '€€€')
  })
  // UTF-8: the bound falls after one byte of the second euro sign; UTF-16: inside the third unit.
  const utf8 = await record(open(t, server.url('/utf8'), { errorBody: { maxBytes: 4 } })).wait('error')
  t.same([utf8.event.body, utf8.event.bodyTruncated], ['€', true])
  const utf16 = await record(open(t, server.url('/utf16'), { errorBody: { maxBytes: 5 } })).wait('error')
  t.same([utf16.event.body, utf16.event.bodyTruncated], ['ab', true])
  const whole = await record(open(t, server.url('/utf8'), { errorBody: { maxBytes: 9 } })).wait('error')
  t.same([whole.event.body, whole.event.bodyTruncated], ['€€€', false], 'a body of exactly maxBytes is whole')
})

t.test('an empty body, a 204 and a HEAD: body is \'\'', async (t) => {
  const server = await serve(t, (req, res) => {
    if (req.url === '/204') return res.writeHead(204).end()
    res.writeHead(400, { 'content-type': 'text/plain', 'content-length': req.method === 'HEAD' ? '12' : '0' })
    res.end()
  })
  const cases = [['/empty', {}], ['/204', {}], ['/head', { method: 'HEAD' }], ['/empty', { fetch: globalThis.fetch }]]
  for (const [path, init] of cases) {
    const { event } = await record(open(t, server.url(path), init)).wait('error')
    const status = path === '/204' ? 204 : 400
    t.same([event.status, event.body, event.bodyTruncated], [status, '', false], `${path} ${JSON.stringify(init)}`)
  }
})

t.test('a 200 with another Content-Type: its HTML body', async (t) => {
  const { event, es } = await firstError(t, TRANSPORTS[0], (req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
    res.end('<!doctype html><title>Sign in</title>')
  })
  t.same([event.code, event.status, es.readyState], ['ERR_EVENTSOURCE_BAD_CONTENT_TYPE', 200, EventSource.CLOSED])
  t.same([event.body, event.bodyTruncated], ['<!doctype html><title>Sign in</title>', false])
})

t.test('errorBody: false reads nothing: the error comes with the head', async (t) => {
  const closed = deferred()
  const { event } = await firstError(t, TRANSPORTS[0], (req, res) => {
    res.writeHead(400, { 'content-type': 'application/json' })
    endless(res).then(closed.resolve)
  }, { errorBody: false })
  t.same([event.code, event.body, event.bodyTruncated], ['ERR_EVENTSOURCE_BAD_STATUS', undefined, undefined])
  t.equal(await bounded(closed.promise, 'the server to see the response go'), false, 'aborted at once')
})

t.test('close() while the body is read: no event, the response aborted, no timer left', async (t) => {
  const dispatcher = countingDispatcher(t)
  const closed = deferred()
  const server = await serve(t, (req, res) => {
    res.writeHead(400, { 'content-type': 'text/plain' })
    res.write('partial')
    once(res, 'close').then(() => closed.resolve(res.writableFinished))
  })
  const es = open(t, server.url(), { dispatcher, errorBody: { timeout: 60_000 } })
  const rec = record(es, ['open', 'message', 'error', 'end'])
  const timers = deferred()
  // Called once the source has taken the first bytes of the body: it is reading it.
  dispatcher.onChunk = () => {
    dispatcher.onChunk = null
    const before = process.getActiveResourcesInfo().filter((type) => type === 'Timeout').length
    es.close()
    timers.resolve([before, process.getActiveResourcesInfo().filter((type) => type === 'Timeout').length])
  }
  const [before, after] = await bounded(timers.promise, 'the body to be read')
  t.equal(after, before - 1, 'close() cleared the timer of the read')
  t.equal(await bounded(closed.promise, 'the server to see the response go'), false, 'aborted')
  await reconnectionCycle(t, 50)
  t.same(rec.types, [], 'no event')
  t.equal(es.readyState, EventSource.CLOSED)
})

t.test('for await throws the error, with the body', async (t) => {
  const server = await serve(t, (req, res) => {
    res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer' })
    res.end('{"error":{"message":"expired token"}}')
  })
  const es = open(t, server.url(), { closeOnEnd: true })
  let thrown = null
  try {
    for await (const event of es) t.fail(`no event: ${event.data}`)
  } catch (err) {
    thrown = err
  }
  t.same([thrown?.code, thrown?.status, thrown?.bodyTruncated], ['ERR_EVENTSOURCE_BAD_STATUS', 401, false])
  t.equal(JSON.parse(thrown.body).error.message, 'expired token')
  t.equal(thrown.headers['content-type'], 'application/json')
})

t.test('the body is read even when a full `for await` queue paused the attempt', async (t) => {
  const dispatcher = countingDispatcher(t)
  const more = deferred()
  const server = await serve(t, (req, res, index) => {
    if (index === 0) return sse(res, 'data: 1\n\ndata: 2\n\ndata: 3\n\n')
    res.writeHead(400, { 'content-type': 'text/plain' })
    res.write('no')
    more.promise.then(() => res.end('pe'))
  })
  const init = { dispatcher, highWaterMark: 1, reconnectionTime: 0, errorBody: { timeout: 60_000 } }
  const es = open(t, server.url(), init)
  const rec = record(es)
  const iterator = es[Symbol.asyncIterator]()
  t.equal((await iterator.next()).value.data, '1')
  // Events 2 and 3 wait in the queue, over its high-water mark: the next attempt starts paused, and its
  // body comes all the same. Drained while the body is read, the queue resumes a reader that reads anyway.
  const drained = []
  dispatcher.onChunk = () => {
    if (dispatcher.calls.length < 2) return
    dispatcher.onChunk = null
    drained.push(iterator.next(), iterator.next())
    more.resolve()
  }
  await rec.wait('error')
  const { event } = await rec.wait('error', 2)
  t.same([event.status, event.body, event.bodyTruncated], [400, 'nope', false])
  t.same((await Promise.all(drained)).map(({ value }) => value.data), ['2', '3'])
})

for (const transport of [TRANSPORTS[0], TRANSPORTS[3]]) {
  t.test(`${transport.name}: a connection lost before the body ended: what came, cut`, async (t) => {
    const { event } = await firstError(t, transport, (req, res) => {
      res.writeHead(500, { 'content-type': 'text/plain' })
      res.write('par', () => req.socket.destroy())
    }, { errorBody: { timeout: 60_000 } })
    t.same([event.code, event.body, event.bodyTruncated], ['ERR_EVENTSOURCE_BAD_STATUS', 'par', true])
  })
}

t.test('a fetch whose response cannot be read: the error, with no body', async (t) => {
  const server = await serve(t, (req, res) => res.writeHead(400, { 'content-type': 'text/plain' }).end('unread'))
  // A wrapper that took the body's reader: reading it throws, which fails the connection.
  const fetch = async (input, init) => {
    const response = await globalThis.fetch(input, init)
    response.body.getReader()
    return response
  }
  const { event } = await record(open(t, server.url(), { fetch })).wait('error')
  t.same([event.code, event.status, event.body, event.bodyTruncated], ['ERR_EVENTSOURCE_BAD_STATUS', 400, '', true])
})

t.test('a retried status: the error event, the policy\'s cause and the next request\'s previous have it', async (t) => {
  const server = await serve(t, (req, res, index) => {
    if (index > 0) return sse(res, 'data: ok\n\n', { end: false })
    res.writeHead(503, { 'content-type': 'text/plain', 'retry-after': '0' })
    res.end('busy, try again')
  })
  const causes = []
  const previous = []
  const es = open(t, server.url(), {
    reconnect: { policy: (cause) => { causes.push(cause.body); return 0 } },
    request: (context) => { previous.push(context.previous?.body) }
  })
  const rec = record(es)
  const { event } = await rec.wait('error')
  await rec.wait('message')
  t.same([event.willReconnect, event.body, event.bodyTruncated], [true, 'busy, try again', false])
  t.same(causes, ['busy, try again'])
  t.same(previous, [undefined, 'busy, try again'])

  // With the declarative policy, giving up: the error says why, with the last response's body.
  const tired = await serve(t, (req, res) => res.writeHead(503, { 'content-type': 'text/plain' }).end('still busy'))
  const gaveUp = open(t, tired.url(), { reconnect: { delay: 0, retryOnStatus: [503], maxRetries: 1 } })
  const last = (await record(gaveUp).wait('error', 2)).event
  t.same([last.code, last.body, last.bodyTruncated], ['ERR_EVENTSOURCE_RETRIES_EXHAUSTED', 'still busy', false])
})

t.test('sources given other bounds keep their own; equal bounds share one resolved init', async (t) => {
  const server = await serve(t, (req, res) => res.writeHead(400, { 'content-type': 'text/plain' }).end('abcdefgh'))
  const inits = [
    { errorBody: { maxBytes: 4 } },
    { errorBody: { maxBytes: 4 } },
    { errorBody: { maxBytes: 5 } },
    { errorBody: { maxBytes: 5, timeout: 999 } },
    { errorBody: false },
    {}
  ]
  const sources = inits.map((init) => open(t, server.url(), init))
  const events = await Promise.all(sources.map((es) => record(es).wait('error')))
  t.same(events.map(({ event }) => event.body), ['abcd', 'abcd', 'abcde', 'abcde', undefined, 'abcdefgh'])
})

t.test('errorBody is validated like the other members', async (t) => {
  throwsError(t, () => new EventSource('http://127.0.0.1/', { errorBody: 'yes' }), {
    type: TypeError, code: 'ERR_INVALID_ARG_TYPE', message: /^The "init.errorBody" property must be of type boolean/
  })
  throwsError(t, () => new EventSource('http://127.0.0.1/', { errorBody: { maxBytes: -1 } }), {
    type: RangeError, code: 'ERR_OUT_OF_RANGE', message: /^The value of "init.errorBody.maxBytes" is out of range/
  })
  throwsError(t, () => new EventSource('http://127.0.0.1/', { errorBody: { timeout: 1.5 } }), {
    type: RangeError, code: 'ERR_OUT_OF_RANGE', message: /^The value of "init.errorBody.timeout" is out of range/
  })
  throwsError(t, () => new EventSource('http://127.0.0.1/', { errorBody: { maxBytes: '1k' } }), {
    type: TypeError, code: 'ERR_INVALID_ARG_TYPE', message: /^The "init.errorBody.maxBytes" property must be of type/
  })
  for (const errorBody of [true, {}, undefined, { maxBytes: 0, timeout: 0 }]) {
    new EventSource('http://127.0.0.1/', { errorBody }).close()
  }
  t.pass('true, {}, undefined and zero bounds are taken')
})
