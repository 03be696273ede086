'use strict'

// init.closeOnEnd: for LLM-style requests (POST, one response), the end of a 200 event stream is the
// end of the answer. The source closes without reconnecting and fires `end` instead of `error`, and
// `for await` ends normally; a reset, an idle timeout or a bad status are still failures.

const t = require('tap')
const { EventSource } = require('../../')
const { SSE_HEADERS, serve, open, record, reconnectionCycle, onceBounded } = require('../helpers/index.cjs')

const { CLOSED } = EventSource

t.test('the end of the response closes the source with an end event, and no error', async (t) => {
  const server = await serve(t, (req, res) => res.writeHead(200, SSE_HEADERS).end('data: one\n\ndata: two\n\n'))
  const es = open(t, server.url(), { method: 'POST', body: '{"prompt":"hi"}', closeOnEnd: true, reconnectionTime: 0 })
  const rec = record(es, ['open', 'message', 'error', 'end'])
  const [end] = await onceBounded(es, 'end')
  t.notOk(end instanceof MessageEvent, 'a plain Event, not a server-sent message')
  t.equal(end.type, 'end')
  t.equal(es.readyState, CLOSED, 'CLOSED when end fires')
  t.same(rec.types, ['open', 'message', 'message', 'end'])
  t.same(rec.events.map((e) => e.readyState), [1, 1, 1, CLOSED])
  // A reconnection would have come after 0 ms; one full reconnection cycle elsewhere shows none did.
  await reconnectionCycle(t, 0)
  t.equal(server.requests.length, 1, 'no reconnection')
})

t.test('for await ends normally at the end of the stream', async (t) => {
  const server = await serve(t, (req, res) => res.writeHead(200, SSE_HEADERS).end('data: a\n\nevent: delta\ndata: b\n\n'))
  const es = open(t, server.url(), { method: 'POST', body: 'x', closeOnEnd: true })
  const got = []
  for await (const event of es) got.push([event.type, event.data])
  t.same(got, [['message', 'a'], ['delta', 'b']])
  t.equal(es.readyState, CLOSED)
})

t.test('await once(source, "open") then once(source, "end") for a response that ended in the same chunk', async (t) => {
  const server = await serve(t, (req, res) => res.writeHead(200, SSE_HEADERS).end('data: a\n\n'))
  const es = open(t, server.url(), { closeOnEnd: true })
  await onceBounded(es, 'open')
  const [message] = await onceBounded(es, 'message')
  t.equal(message.data, 'a')
  await onceBounded(es, 'end')
  t.equal(es.readyState, CLOSED)
})

t.test('a reset is still a failure: error with its code, and for await throws once retries are spent', async (t) => {
  const server = await serve(t, (req, res) => {
    res.writeHead(200, SSE_HEADERS).write('data: partial\n\n')
    // The answer is cut off: the connection is reset.
    setImmediate(() => req.socket.destroy())
  })
  // A POST that may be sent again, so that the reconnection policy decides (without idempotent: true it fails on
  // the reset itself: test/eventsource/extension-idempotent.test.cjs).
  const es = open(t, server.url(), {
    method: 'POST', body: 'x', closeOnEnd: true, idempotent: true, reconnect: { maxRetries: 0 }
  })
  const rec = record(es, ['open', 'message', 'error', 'end'])
  const got = []
  await t.rejects((async () => { for await (const event of es) got.push(event.data) })(), { code: 'ERR_EVENTSOURCE_RETRIES_EXHAUSTED' })
  t.same(got, ['partial'])
  const { event: error } = rec.of('error')[0]
  t.equal(error.code, 'ERR_EVENTSOURCE_RETRIES_EXHAUSTED')
  t.equal(error.cause.code, 'ERR_EVENTSOURCE_NETWORK', 'why: the network error')
  t.same(rec.of('end'), [], 'no end event')
})

t.test('a reset with the default policy reconnects, resumes, and then ends normally', async (t) => {
  const server = await serve(t, (req, res, i) => {
    res.writeHead(200, SSE_HEADERS)
    if (i === 0) {
      res.write('id: 1\ndata: first\n\n')
      setImmediate(() => req.socket.destroy())
    } else {
      res.end(`data: resumed after ${req.headers['last-event-id']}\n\n`)
    }
  })
  const es = open(t, server.url(), { closeOnEnd: true, reconnectionTime: 0 })
  const rec = record(es, ['open', 'message', 'error', 'end'])
  const got = []
  for await (const event of es) got.push(event.data)
  t.same(got, ['first', 'resumed after 1'])
  t.same(rec.types, ['open', 'message', 'error', 'open', 'message', 'end'])
  t.equal(rec.of('error')[0].code, 'ERR_EVENTSOURCE_NETWORK')
})

t.test('an idle timeout and a bad status are still failures', async (t) => {
  const server = await serve(t, (req, res) => {
    if (req.url === '/idle') res.writeHead(200, SSE_HEADERS).write(':\n\n')
    else res.writeHead(500).end()
  })
  const idle = open(t, server.url('/idle'), { closeOnEnd: true, idleTimeout: 50, reconnect: { maxRetries: 0 } })
  await t.rejects((async () => { for await (const event of idle) t.fail(`unexpected ${event.type}`) })(),
    { code: 'ERR_EVENTSOURCE_RETRIES_EXHAUSTED', cause: { code: 'ERR_EVENTSOURCE_IDLE_TIMEOUT' } })
  const bad = open(t, server.url('/bad'), { closeOnEnd: true })
  await t.rejects((async () => { for await (const event of bad) t.fail(`unexpected ${event.type}`) })(), { code: 'ERR_EVENTSOURCE_BAD_STATUS', status: 500 })
})

t.test('without closeOnEnd, the end of the stream re-establishes the connection, as the standard says', async (t) => {
  const server = await serve(t, (req, res) => res.writeHead(200, SSE_HEADERS).end('data: a\n\n'))
  const es = open(t, server.url(), { reconnectionTime: 0 })
  const rec = record(es, ['open', 'message', 'error', 'end'])
  await server.request(1)
  t.same(rec.of('end'), [])
  t.equal(rec.of('error')[0].code, 'ERR_EVENTSOURCE_STREAM_ENDED')
  t.equal(rec.of('error')[0].event.willReconnect, true)
})
