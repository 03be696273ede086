'use strict'

// init.incompleteEvent: 'dispatch': an event the stream ended without its closing blank line is dispatched, on a
// source whose stream ends where its producer stopped (closeOnEnd, or fromReadableStream()). The standard discards
// it, and so does the default; a cut connection or an errored stream never dispatches it; a source that reconnects
// refuses the option, as the rest of that event may come again.

const t = require('tap')
const { EventSource } = require('../../')
const { SSE_HEADERS, serve, open, record, onceBounded, readableStreamOf } = require('../helpers/index.cjs')

const { CLOSED } = EventSource
const encoder = new TextEncoder()

t.test('closeOnEnd: the last event, without its blank line, is dispatched before end', async (t) => {
  // As an LLM API that stops after its last token: the final `data:` line has its line end, not the blank line.
  const server = await serve(t, (req, res) => res.writeHead(200, SSE_HEADERS).end('data: one\n\nid: 9\ndata: last\n'))
  const es = open(t, server.url(), { method: 'POST', body: 'x', closeOnEnd: true, incompleteEvent: 'dispatch' })
  const rec = record(es, ['open', 'message', 'error', 'end'])
  await onceBounded(es, 'end')
  t.same(rec.events.map((e) => [e.type, e.data, e.lastEventId]), [
    ['open', undefined, undefined], ['message', 'one', ''], ['message', 'last', '9'], ['end', undefined, undefined]
  ])
  t.equal(es.lastEventId, '9')
  t.equal(es.readyState, CLOSED)
})

t.test('an unterminated last line is read as a line', async (t) => {
  for (const [body, expected] of [
    ['data: a\n\ndata: b', ['a', 'b']],
    ['data: a\n\nevent: x\ndata: b\r', ['a', 'b']],
    ['data: a\n\ndata', ['a', '']],
    ['data: a\n\n: just a comment', ['a']],
    ['data: a\n\nevent: only a type\n', ['a']],
    ['', []]
  ]) {
    const source = EventSource.fromReadableStream(readableStreamOf([body]), { closeOnEnd: true, incompleteEvent: 'dispatch' })
    const data = []
    source.onmessage = (event) => data.push(event.data)
    source.addEventListener('x', (event) => data.push(event.data))
    await onceBounded(source, 'end')
    t.same(data, expected, JSON.stringify(body))
  }
})

t.test('the default discards it, as the standard does', async (t) => {
  const server = await serve(t, (req, res) => res.writeHead(200, SSE_HEADERS).end('data: one\n\ndata: last\n'))
  const es = open(t, server.url(), { closeOnEnd: true })
  const rec = record(es, ['message', 'end'])
  await onceBounded(es, 'end')
  t.same(rec.events.map((e) => e.data ?? e.type), ['one', 'end'])
})

t.test('a cut connection does not dispatch it: the answer is not complete', async (t) => {
  const server = await serve(t, (req, res) => {
    res.writeHead(200, SSE_HEADERS).write('data: one\n\ndata: partial')
    setImmediate(() => req.socket.destroy())
  })
  const es = open(t, server.url(), { closeOnEnd: true, incompleteEvent: 'dispatch', reconnect: { maxRetries: 0 } })
  const rec = record(es, ['message', 'error', 'end'])
  await onceBounded(es, 'error')
  t.same(rec.events.map((e) => e.data ?? e.type), ['one', 'error'])
})

t.test('fromReadableStream(): dispatched before the error of the stream\'s end; not on a stream error', async (t) => {
  const source = EventSource.fromReadableStream(readableStreamOf(['data: a\n\ndata: b']), { incompleteEvent: 'dispatch' })
  const rec = record(source, ['message', 'error'])
  const [error] = await onceBounded(source, 'error')
  t.same(rec.events.map((e) => e.data ?? e.type), ['a', 'b', 'error'])
  t.equal(error.code, 'ERR_EVENTSOURCE_STREAM_ENDED')

  // The chunk is read, then the stream errors (error() in start() would drop what was enqueued).
  const failing = EventSource.fromReadableStream(new ReadableStream({
    start (controller) { controller.enqueue(encoder.encode('data: a\n\ndata: b')) },
    pull (controller) { controller.error(new Error('cut')) }
  }), { incompleteEvent: 'dispatch' })
  const failed = record(failing, ['message', 'error'])
  await onceBounded(failing, 'error')
  t.same(failed.events.map((e) => e.data ?? e.type), ['a', 'error'])
})

t.test('with onBatch, the last event comes in a batch of its own, before end', async (t) => {
  const batches = []
  const source = EventSource.fromReadableStream(readableStreamOf(['data: a\n\ndata: b']), {
    closeOnEnd: true, incompleteEvent: 'dispatch', onBatch: (messages) => batches.push(messages.map((m) => m.data))
  })
  await onceBounded(source, 'end')
  t.same(batches, [['a'], ['b']])
})

t.test('a last event over maxEventSize fails the source as it arrives, as any event does', async (t) => {
  const source = EventSource.fromReadableStream(readableStreamOf(['data: a\n\ndata: ' + 'x'.repeat(64)]), {
    closeOnEnd: true, incompleteEvent: 'dispatch', maxEventSize: 32
  })
  const rec = record(source, ['message', 'error', 'end'])
  const [error] = await onceBounded(source, 'error')
  t.equal(error.code, 'ERR_EVENTSOURCE_EVENT_TOO_LARGE')
  t.same(rec.types, ['message', 'error'])
})

t.test('a source that reconnects refuses it; other values are refused', async (t) => {
  t.throws(() => new EventSource('http://127.0.0.1:1/', { incompleteEvent: 'dispatch' }),
    { name: 'TypeError', code: 'ERR_INVALID_ARG_VALUE', message: /closeOnEnd/ })
  t.throws(() => new EventSource('http://127.0.0.1:1/', { closeOnEnd: true, incompleteEvent: 'yes' }),
    { code: 'ERR_INVALID_ARG_VALUE' })
  const es = new EventSource('http://127.0.0.1:1/', { incompleteEvent: 'discard' })
  es.close()
})
