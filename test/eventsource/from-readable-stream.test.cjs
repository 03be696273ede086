'use strict'

// EventSource.fromReadableStream(stream), whatwg/html PR #12272 (a proposal, open): the standard's parsing and
// dispatch over a stream the application opened, with the lastEventId and reconnectionTime getters, reset() and
// the URL about:event-stream; no request, no reconnection.
//
// The PR's web-platform tests (web-platform-tests PR #58550, eventsource/eventsource-from-readable-stream.any.js)
// need nothing but a ReadableStream, so each of them has its assertion here, under the same name, on Node (and in
// test/runtime/suite.mjs on Bun, Deno and Chromium): construction and initial state, a locked stream, open,
// messages (multi-line, several, a custom type, comments), origin "null", a chunk split, id and retry, close(), the
// end of the stream and its error, no reconnection, CR/LF/CRLF, the BOM, and the TransformStream pattern. Their
// fetch() tests need the WPT server (message.py): the same shape runs here on a real fetch of a local server.
// Beyond them: what close() does to the stream, bad chunks, the extensions that apply to a stream.

const t = require('tap')
const { once } = require('node:events')
const { EventSource } = require('../../')
const { SSE_HEADERS, serve, record, onceBounded, bounded, reconnectionCycle } = require('../helpers/index.cjs')

const { CONNECTING, OPEN, CLOSED } = EventSource
const encoder = new TextEncoder()

// A stream of the chunks given (strings are UTF-8 encoded), then done. `cancelled` resolves with the reason of a
// cancel().
function streamOf (chunks, { close = true } = {}) {
  let cancelled
  const whenCancelled = new Promise((resolve) => { cancelled = resolve })
  const stream = new ReadableStream({
    start (controller) {
      for (const chunk of chunks) controller.enqueue(typeof chunk === 'string' ? encoder.encode(chunk) : chunk)
      if (close) controller.close()
    },
    cancel (reason) { cancelled(reason) }
  })
  return { stream, whenCancelled }
}

// A source from `chunks`, closed when the test ends.
function fromChunks (t, chunks, init) {
  const source = EventSource.fromReadableStream(streamOf(chunks).stream, init)
  t.teardown(() => source.close())
  return source
}

// Every message's data until the source fails or ends.
async function messagesUntilClosed (source) {
  const data = []
  source.addEventListener('message', (event) => data.push(event.data))
  await Promise.race([once(source, 'error'), once(source, 'end')])
  return data
}

t.test('construction and initial state', async (t) => {
  const source = fromChunks(t, [])
  t.ok(source instanceof EventSource, 'fromReadableStream() returns an EventSource instance')
  t.equal(source.readyState, CONNECTING, 'readyState is CONNECTING immediately after construction')
  t.equal(source.url, 'about:event-stream', 'url returns about:event-stream')
  t.equal(source.withCredentials, false, 'withCredentials returns false')
  t.equal(source.lastEventId, '', 'lastEventId initially returns the empty string')
  t.ok(source.reconnectionTime > 0, 'reconnectionTime initially returns a positive value')
})

t.test('throws TypeError if the stream is locked', async (t) => {
  const { stream } = streamOf([])
  stream.getReader()
  t.throws(() => EventSource.fromReadableStream(stream), TypeError)
})

t.test('anything but a ReadableStream is a TypeError, with what to do about a Node stream', async (t) => {
  const { Readable } = require('node:stream')
  for (const value of [undefined, null, 'data: x\n\n', new Uint8Array(1), Readable.from([])]) {
    t.throws(() => EventSource.fromReadableStream(value), { name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE' })
  }
  t.throws(() => EventSource.fromReadableStream(Readable.from([])), /Readable\.toWeb\(\)/)
})

t.test('fires open event', async (t) => {
  const source = fromChunks(t, ['data: hello\n\n'])
  const [event] = await onceBounded(source, 'open')
  t.equal(event.type, 'open')
  t.equal(source.readyState, OPEN)
})

t.test('receiving messages', async (t) => {
  const cases = [
    ['receives a message event', ['data: hello\n\n'], ['hello']],
    ['handles multi-line data fields', ['data: hello\ndata: world\n\n'], ['hello\nworld']],
    ['receives multiple message events', ['data: first\n\ndata: second\n\n'], ['first', 'second']],
    ['ignores comments', [': this is a comment\ndata: hello\n\n'], ['hello']],
    ['handles data split across chunks', ['da', 'ta: hel', 'lo\n\n'], ['hello']],
    ['handles CR, LF, and CRLF line endings', ['data: cr\r\rdata: lf\n\ndata: crlf\r\n\r\n'], ['cr', 'lf', 'crlf']],
    ['strips leading UTF-8 BOM', [new Uint8Array([0xef, 0xbb, 0xbf, ...encoder.encode('data: hello\n\n')])], ['hello']]
  ]
  for (const [name, chunks, expected] of cases) {
    t.same(await messagesUntilClosed(fromChunks(t, chunks)), expected, name)
  }
})

t.test('handles custom event types', async (t) => {
  const source = fromChunks(t, ['event: custom\ndata: hello\n\n'])
  const [event] = await onceBounded(source, 'custom')
  t.equal(event.data, 'hello')
})

t.test('message event origin is \'null\' (opaque origin)', async (t) => {
  const [event] = await onceBounded(fromChunks(t, ['data: hello\n\n']), 'message')
  t.equal(event.origin, 'null')
})

t.test('id field updates lastEventId', async (t) => {
  const source = fromChunks(t, ['id: 42\ndata: hello\n\n'])
  const [event] = await onceBounded(source, 'message')
  t.equal(event.lastEventId, '42')
  t.equal(source.lastEventId, '42')
})

t.test('retry field updates reconnectionTime; a value that is not digits is ignored', async (t) => {
  const source = fromChunks(t, ['retry: 5000\ndata: hello\n\n'])
  await onceBounded(source, 'message')
  t.equal(source.reconnectionTime, 5000, 'retry field updates reconnectionTime')

  const bogus = fromChunks(t, ['retry: bogus\ndata: hello\n\n'])
  const initial = bogus.reconnectionTime
  await onceBounded(bogus, 'message')
  t.equal(bogus.reconnectionTime, initial, 'retry field with non-digit value is ignored')
})

t.test('close() sets readyState to CLOSED, at once, and cancels the stream', async (t) => {
  const { stream, whenCancelled } = streamOf(['data: hello\n\n'], { close: false })
  const source = EventSource.fromReadableStream(stream)
  const rec = record(source, ['open', 'message', 'error'])
  source.close()
  t.equal(source.readyState, CLOSED, 'close() sets readyState to CLOSED')
  await whenCancelled
  t.equal(stream.locked, true, 'still locked: the stream is the source\'s, even closed')
  t.same(rec.types, [], 'nothing is dispatched after close()')
})

t.test('close() while reading cancels the stream, which the producer sees', async (t) => {
  const { stream, whenCancelled } = streamOf(['data: hello\n\n'], { close: false })
  const source = EventSource.fromReadableStream(stream)
  await onceBounded(source, 'message')
  source.close()
  t.equal(await whenCancelled, undefined, 'the underlying source\'s cancel() runs')
})

t.test('stream done fires error after dispatching complete events, and readyState is CLOSED', async (t) => {
  const source = fromChunks(t, ['data: hello\n\ndata: never dispatched'])
  const rec = record(source, ['open', 'message', 'error'])
  const [error] = await onceBounded(source, 'error')
  t.same(rec.types, ['open', 'message', 'error'], 'message should be received before error')
  t.equal(source.readyState, CLOSED)
  t.equal(error.code, 'ERR_EVENTSOURCE_STREAM_ENDED')
  t.equal(error.willReconnect, false)
})

t.test('empty stream fires error and transitions to CLOSED', async (t) => {
  const source = fromChunks(t, [])
  await onceBounded(source, 'error')
  t.equal(source.readyState, CLOSED)
})

t.test('stream error fires error event and transitions to CLOSED, with the stream\'s error as the cause', async (t) => {
  const reason = new Error('stream error')
  const source = EventSource.fromReadableStream(new ReadableStream({ start (controller) { controller.error(reason) } }))
  const [error] = await onceBounded(source, 'error')
  t.equal(source.readyState, CLOSED)
  t.equal(error.code, 'ERR_EVENTSOURCE_NETWORK')
  t.equal(error.cause, reason)
  t.equal(error.willReconnect, false)
})

t.test('a chunk that is not bytes fails the source and cancels the stream', async (t) => {
  let cancelled = null
  const stream = new ReadableStream({
    start (controller) { controller.enqueue('data: a string\n\n') },
    cancel (reason) { cancelled = reason ?? 'cancelled' }
  })
  const source = EventSource.fromReadableStream(stream)
  const [error] = await onceBounded(source, 'error')
  t.equal(error.code, 'ERR_INVALID_ARG_TYPE')
  t.equal(source.readyState, CLOSED)
  t.not(cancelled, null, 'the stream was cancelled')
})

t.test('no reconnection is attempted after stream done', async (t) => {
  // reconnectionTime 0: a reconnection would come within the reconnection cycle below.
  const source = fromChunks(t, ['data: hello\n\n'], { reconnectionTime: 0 })
  const rec = record(source, ['open', 'message', 'error'])
  await onceBounded(source, 'error')
  await reconnectionCycle(t, 0)
  t.same(rec.types, ['open', 'message', 'error'], 'should only get one error event')
  t.equal(source.readyState, CLOSED)
})

t.test('TransformStream pattern allows multiple streams to be piped through', async (t) => {
  const ts = new TransformStream()
  const source = EventSource.fromReadableStream(ts.readable)
  const data = messagesUntilClosed(source)
  await streamOf(['data: first\n\n']).stream.pipeTo(ts.writable, { preventClose: true })
  await streamOf(['data: second\n\n']).stream.pipeTo(ts.writable, { preventClose: false })
  t.same(await data, ['first', 'second'])
})

t.test('lastEventId and reconnectionTime persist across reconnections via TransformStream', async (t) => {
  const ts = new TransformStream()
  const source = EventSource.fromReadableStream(ts.readable)
  t.teardown(() => source.close())
  const rec = record(source, ['message'])
  await streamOf(['id: 42\nretry: 3000\ndata: first\n\n']).stream.pipeTo(ts.writable, { preventClose: true })
  // As the PR's test reads them: once the first stream is piped, before the next.
  t.equal(source.lastEventId, '42')
  t.equal(source.reconnectionTime, 3000)
  const after = new Promise((resolve) => source.addEventListener('message', (event) => {
    if (event.data === 'after-reconnect') resolve(event)
  }))
  await streamOf(['data: after-reconnect\n\n']).stream.pipeTo(ts.writable, { preventClose: true })
  const event = await bounded(after, 'the second stream\'s message')
  t.same(rec.events.map((e) => e.data), ['first', 'after-reconnect'])
  t.equal(event.lastEventId, '42', 'the next stream\'s events carry it on')
  t.equal(source.lastEventId, '42')
  t.equal(source.reconnectionTime, 3000)
})

t.test('reset() discards a partial event, so the next stream starts clean; the last event ID stays', async (t) => {
  const ts = new TransformStream()
  const source = EventSource.fromReadableStream(ts.readable)
  t.teardown(() => source.close())
  const writer = ts.writable.getWriter()
  const first = onceBounded(source, 'message')
  // A stream cut in the middle of an event and a line, as a dropped connection leaves it.
  await writer.write(encoder.encode('id: 7\ndata: one\n\nevent: half\ndata: cut in'))
  await first
  source.reset()
  const [[event]] = await Promise.all([onceBounded(source, 'message'), writer.write(encoder.encode('data: two\n\n'))])
  t.equal(event.type, 'message', 'the half event\'s type is gone')
  t.equal(event.data, 'two', 'and so is its data and the partial line')
  t.equal(event.lastEventId, '7')
  t.equal(source.lastEventId, '7')
})

t.test('reset() drops a BOM that starts the next stream again', async (t) => {
  const ts = new TransformStream()
  const source = EventSource.fromReadableStream(ts.readable)
  t.teardown(() => source.close())
  const writer = ts.writable.getWriter()
  const first = onceBounded(source, 'message')
  await writer.write(encoder.encode('\ufeffdata: one\n\n'))
  await first
  source.reset()
  const [[event]] = await Promise.all([onceBounded(source, 'message'), writer.write(encoder.encode('\ufeffdata: two\n\n'))])
  t.equal(event.data, 'two')
})

t.test('the lastEventId and reconnectionTime getters and reset() on a network source', async (t) => {
  const server = await serve(t, (req, res) => res.writeHead(200, SSE_HEADERS).end('retry: 1234\nid: a1\ndata: x\n\n'))
  const source = new EventSource(server.url(), { lastEventId: 'seed' })
  t.teardown(() => source.close())
  t.equal(source.lastEventId, 'seed', 'init.lastEventId, before any event')
  t.equal(source.reconnectionTime, 3000, 'the default, as Chromium\'s')
  await onceBounded(source, 'message')
  t.equal(source.lastEventId, 'a1')
  t.equal(source.reconnectionTime, 1234)
  source.reset()
  t.equal(source.lastEventId, 'a1', 'reset() keeps it')
  t.equal(source.reconnectionTime, 1234)
  for (const name of ['lastEventId', 'reconnectionTime']) {
    const { get } = Object.getOwnPropertyDescriptor(EventSource.prototype, name)
    t.throws(() => get.call({}), TypeError, `${name} checks its receiver`)
  }
  t.throws(() => EventSource.prototype.reset.call({}), TypeError, 'reset() checks its receiver')
})

t.test('a fetch of the application\'s own: a POST whose body is the stream', async (t) => {
  const server = await serve(t, (req, res) => {
    let body = ''
    req.on('data', (chunk) => { body += chunk })
    req.on('end', () => res.writeHead(200, SSE_HEADERS).end(`data: you sent ${body}\n\nevent: done\ndata: ok\n\n`))
  })
  const response = await fetch(server.url(), { method: 'POST', body: 'hello', headers: { authorization: 'Bearer x' } })
  const source = EventSource.fromReadableStream(response.body)
  const rec = record(source, ['open', 'message', 'done', 'error'])
  await onceBounded(source, 'error')
  t.same(rec.events.map((e) => [e.type, e.data]), [['open', undefined], ['message', 'you sent hello'], ['done', 'ok'],
    ['error', undefined]])
  t.equal(server.requests.length, 1, 'the application\'s one request; none of the source\'s')
  t.equal(server.requests[0].headers.authorization, 'Bearer x')
})

t.test('for await over a stream source ends with the error of the stream\'s end', async (t) => {
  const source = fromChunks(t, ['data: a\n\n', 'data: b\n\n'])
  const got = []
  await t.rejects((async () => { for await (const event of source) got.push(event.data) })(),
    { code: 'ERR_EVENTSOURCE_STREAM_ENDED' })
  t.same(got, ['a', 'b'])
})

t.test('init: the extensions that apply to a stream', async (t) => {
  t.test('closeOnEnd: the end of the stream is an end event, not an error', async (t) => {
    const source = fromChunks(t, ['data: a\n\n'], { closeOnEnd: true })
    const rec = record(source, ['open', 'message', 'error', 'end'])
    await onceBounded(source, 'end')
    t.same(rec.types, ['open', 'message', 'end'])
    t.equal(source.readyState, CLOSED)
  })

  t.test('signal: aborting it closes the source and cancels the stream', async (t) => {
    const controller = new AbortController()
    const { stream, whenCancelled } = streamOf(['data: a\n\n'], { close: false })
    const source = EventSource.fromReadableStream(stream, { signal: controller.signal })
    await onceBounded(source, 'message')
    controller.abort()
    t.equal(source.readyState, CLOSED)
    await whenCancelled
  })

  t.test('maxEventSize: an event over it fails the source', async (t) => {
    const source = fromChunks(t, ['data: ' + 'x'.repeat(100) + '\n\n'], { maxEventSize: 50 })
    const [error] = await onceBounded(source, 'error')
    t.equal(error.code, 'ERR_EVENTSOURCE_EVENT_TOO_LARGE')
  })

  t.test('lastEventId and reconnectionTime seed the getters', async (t) => {
    const source = fromChunks(t, [], { lastEventId: 'from-before', reconnectionTime: 10 })
    t.equal(source.lastEventId, 'from-before')
    t.equal(source.reconnectionTime, 10)
  })

  t.test('a member that says how to request a stream is refused, not ignored', async (t) => {
    const given = {
      withCredentials: false,
      reconnect: {},
      method: 'POST',
      headers: {},
      body: 'x',
      idleTimeout: 1,
      connectTimeout: 1,
      http2: true,
      errorBody: false,
      idempotent: true
    }
    for (const [name, value] of Object.entries(given)) {
      const { stream } = streamOf([])
      t.throws(() => EventSource.fromReadableStream(stream, { [name]: value }),
        { name: 'TypeError', code: 'ERR_INVALID_ARG_VALUE', message: new RegExp(`init\\.${name}`) }, name)
      t.equal(stream.locked, false, `${name}: the stream is left as it was`)
    }
  })
})

t.test('diagnostics: a stream source publishes its open and messages, and no connect (it sends no request)', async (t) => {
  const dc = require('node:diagnostics_channel')
  const published = []
  const subscriptions = ['connect', 'open', 'message', 'close'].map((name) => {
    const subscriber = (message) => published.push([name, message])
    dc.subscribe(`whatwg-eventsource:${name}`, subscriber)
    return () => dc.unsubscribe(`whatwg-eventsource:${name}`, subscriber)
  })
  t.teardown(() => { for (const unsubscribe of subscriptions) unsubscribe() })
  const before = performance.now()
  const source = fromChunks(t, ['data: a\n\n'], { closeOnEnd: true })
  await onceBounded(source, 'end')
  const elapsed = performance.now() - before
  const mine = published.filter(([, message]) => message.source === source)
  t.same(mine.map(([name]) => name), ['open', 'message', 'close'])
  const [, open] = mine[0]
  t.same([open.url, open.status, open.attempt], ['about:event-stream', 200, 1])
  t.ok(open.ms >= 0 && open.ms <= elapsed, `timed from the attempt's start (${open.ms} of ${elapsed} ms)`)
})

t.test('for await with highWaterMark: the stream is read no faster than the loop takes its events', async (t) => {
  let pulled = 0
  const total = 50
  // highWaterMark 0: the stream's pull() runs only when the source reads.
  const stream = new ReadableStream({
    pull (controller) {
      if (pulled === total) return controller.close()
      controller.enqueue(encoder.encode(`data: ${pulled++}\n\n`))
    }
  }, { highWaterMark: 0 })
  const source = EventSource.fromReadableStream(stream, { highWaterMark: 1, closeOnEnd: true })
  const got = []
  let ahead = 0
  for await (const event of source) {
    got.push(Number(event.data))
    ahead = Math.max(ahead, pulled - got.length)
    // A macrotask per event: the stream would run far ahead of the loop without backpressure.
    await new Promise((resolve) => setImmediate(resolve))
  }
  t.same(got, Array.from({ length: total }, (_, i) => i))
  t.ok(ahead <= 3, `at most a few chunks read ahead of the loop (${ahead})`)
})

t.test('chunks of another realm\'s Uint8Array are bytes too (a jsdom test\'s fetch, a vm context)', async (t) => {
  const vm = require('node:vm')
  const foreign = vm.runInNewContext('new Uint8Array([100, 97, 116, 97, 58, 32, 120, 10, 10])')
  t.notOk(foreign instanceof Uint8Array, 'another realm\'s')
  const source = fromChunks(t, [foreign])
  const [event] = await onceBounded(source, 'message')
  t.equal(event.data, 'x')
})
