'use strict'

// `for await (const event of source)`: every MessageEvent in stream order, across reconnections; the
// loop ends on close(), throws when the connection fails, and leaving it closes the source.

const t = require('tap')
const { EventSource } = require('../../')
const { MessageIterator, eventCost, PIN_SPAN } = require('../../lib/eventsource/message-iterator')
const { SSE_HEADERS, serve, open, record, reconnectionCycle, onceBounded } = require('../helpers/index.cjs')

t.test('yields the MessageEvents of every type, in order, across a reconnection', async (t) => {
  const server = await serve(t, (req, res, i) => {
    res.writeHead(200, SSE_HEADERS)
    if (i === 0) res.end('data: one\n\nevent: update\nid: 7\ndata: two\n\n: comment\nevent: ping\ndata:\n\n')
    else res.write('event: message\ndata: three\n\nevent: end\ndata: four\n\n')
  })
  const es = open(t, server.url(), { reconnectionTime: 0 })
  const rec = record(es)
  const got = []
  for await (const event of es) {
    t.ok(event instanceof MessageEvent, `${event.type} is a MessageEvent`)
    got.push([event.type, event.data, event.lastEventId, event.origin])
    if (event.type === 'end') break
  }
  t.same(got, [
    ['message', 'one', '', server.origin],
    ['update', 'two', '7', server.origin],
    ['ping', '', '7', server.origin],
    ['message', 'three', '7', server.origin],
    ['end', 'four', '7', server.origin]
  ])
  t.equal(es.readyState, EventSource.CLOSED, 'break closed the source')
  t.same(rec.types, ['open', 'message', 'error', 'open', 'message'], 'listeners saw their events too')
})

t.test('break closes the source and its connection, without an error event', async (t) => {
  const server = await serve(t, (req, res) => res.writeHead(200, SSE_HEADERS).write('data: a\n\ndata: b\n\n'))
  const es = open(t, server.url(), { reconnectionTime: 0 })
  const rec = record(es)
  for await (const event of es) { // eslint-disable-line no-unreachable-loop -- the break is what is tested
    t.equal(event.data, 'a')
    break
  }
  t.equal(es.readyState, EventSource.CLOSED)
  const socket = server.requests[0].socket
  if (!socket.destroyed) await onceBounded(socket, 'close')
  await reconnectionCycle(t, 5)
  t.notOk(rec.types.includes('error'))
  t.equal(server.requests.length, 1)
})

t.test('a throw in the loop body closes the source and propagates', async (t) => {
  const server = await serve(t, (req, res) => res.writeHead(200, SSE_HEADERS).write('data: a\n\n'))
  const es = open(t, server.url())
  // eslint-disable-next-line no-unreachable-loop -- the throw is what is tested
  await t.rejects((async () => { for await (const event of es) throw new Error(`stop at ${event.data}`) })(), { message: 'stop at a' })
  t.equal(es.readyState, EventSource.CLOSED)
})

t.test('close() ends the iteration; what was queued is delivered first', async (t) => {
  const server = await serve(t, (req, res) => res.writeHead(200, SSE_HEADERS).write('data: 1\n\ndata: 2\n\ndata: 3\n\n'))
  const es = open(t, server.url())
  const rec = record(es)
  const iterator = es[Symbol.asyncIterator]()
  t.equal(iterator[Symbol.asyncIterator](), iterator, 'an async iterable iterator')
  await rec.wait('message', 3)
  es.close()
  const got = []
  for await (const event of iterator) got.push(event.data)
  t.same(got, ['1', '2', '3'])
  t.same(await iterator.next(), { value: undefined, done: true }, 'and stays done')
})

t.test('close() while the loop waits ends it normally', async (t) => {
  const server = await serve(t, (req, res) => res.writeHead(200, SSE_HEADERS).write('data: only\n\n'))
  const es = open(t, server.url())
  const got = []
  for await (const event of es) {
    got.push(event.data)
    // The loop then waits for the next event; close() from elsewhere ends it.
    setImmediate(() => es.close())
  }
  t.same(got, ['only'])
})

t.test('a failed connection rejects the iteration with its error', async (t) => {
  const server = await serve(t, (req, res) => res.writeHead(404).end())
  const es = open(t, server.url())
  await t.rejects((async () => { for await (const event of es) t.fail(event.data) })(),
    { code: 'ERR_EVENTSOURCE_BAD_STATUS', status: 404, message: 'The server answered 404 Not Found: an event stream needs status 200' })
  t.equal(es.readyState, EventSource.CLOSED)
})

t.test('events before a failure are delivered, then the rejection, then done', async (t) => {
  const server = await serve(t, (req, res) => res.writeHead(200, SSE_HEADERS).end(`data: small\n\ndata: ${'x'.repeat(64)}\n\n`))
  const es = open(t, server.url(), { maxEventSize: 32 })
  const iterator = es[Symbol.asyncIterator]()
  t.equal((await iterator.next()).value.data, 'small')
  await t.rejects(iterator.next(), { code: 'ERR_EVENTSOURCE_EVENT_TOO_LARGE' })
  t.same(await iterator.next(), { value: undefined, done: true }, 'the error is reported once')
})

t.test('a network error does not end the iteration: the source reconnects', async (t) => {
  const server = await serve(t, (req, res, i) => {
    res.writeHead(200, SSE_HEADERS)
    if (i === 0) res.write('data: before\n\n', () => res.socket.destroy())
    else res.write('data: after\n\n')
  })
  const es = open(t, server.url(), { reconnectionTime: 0 })
  const got = []
  for await (const event of es) {
    got.push(event.data)
    if (got.length === 2) break
  }
  t.same(got, ['before', 'after'])
})

t.test('two iterations each get every event; ending one closes the source', async (t) => {
  const server = await serve(t, (req, res) => res.writeHead(200, SSE_HEADERS).write('data: 1\n\ndata: 2\n\n'))
  const es = open(t, server.url())
  const a = es[Symbol.asyncIterator]()
  const b = es[Symbol.asyncIterator]()
  t.same([(await a.next()).value.data, (await b.next()).value.data, (await a.next()).value.data, (await b.next()).value.data], ['1', '1', '2', '2'])
  const pendingB = b.next()
  t.same(await a.return(), { value: undefined, done: true })
  t.equal(es.readyState, EventSource.CLOSED)
  t.same(await pendingB, { value: undefined, done: true }, 'the other iteration ends')
})

t.test('throw() closes the source and rejects with its argument', async (t) => {
  const server = await serve(t, (req, res) => res.writeHead(200, SSE_HEADERS).write('data: 1\n\n'))
  const es = open(t, server.url())
  const iterator = es[Symbol.asyncIterator]()
  await iterator.next()
  const reason = new Error('consumer gave up')
  await t.rejects(iterator.throw(reason), reason)
  t.equal(es.readyState, EventSource.CLOSED)
  t.same(await iterator.next(), { value: undefined, done: true })
  t.same(await iterator.return(), { value: undefined, done: true }, 'return() after the end')
})

t.test('an iteration started on a closed source ends at once', async (t) => {
  const es = new EventSource('http://127.0.0.1:1/')
  es.close()
  const got = []
  for await (const event of es) got.push(event)
  t.same(got, [])
})

t.test('return() while a next() is pending settles that next()', async (t) => {
  const server = await serve(t, (req, res) => res.writeHead(200, SSE_HEADERS).flushHeaders())
  const es = open(t, server.url())
  await record(es).wait('open')
  const iterator = es[Symbol.asyncIterator]()
  let settled = null
  iterator.next().then((result) => { settled = result })
  await iterator.return()
  await new Promise((resolve) => setImmediate(resolve))
  t.equal(es.readyState, EventSource.CLOSED)
  t.same(settled, { value: undefined, done: true })
})

t.test('a long queue is consumed in order (the queue compacts as it drains)', async (t) => {
  const n = 3000
  let body = ''
  for (let i = 0; i < n; i++) body += `data: ${i}\n\n`
  const server = await serve(t, (req, res) => res.writeHead(200, SSE_HEADERS).write(body))
  const es = open(t, server.url(), { highWaterMark: 5000 })
  const rec = record(es)
  const iterator = es[Symbol.asyncIterator]()
  await rec.wait('message', n)
  let expected = 0
  for await (const event of iterator) {
    if (event.data !== String(expected)) t.fail(`event ${expected}: got ${event.data}`)
    if (++expected === n) break
  }
  t.equal(expected, n, 'all of them, in order')
})

// What a MessageIterator asks of its source, recorded.
function recordingSource () {
  const calls = []
  const source = {
    pause: () => calls.push('pause'),
    resume: () => calls.push('resume'),
    close: () => calls.push('close'),
    remove: () => calls.push('remove')
  }
  return { calls, source }
}

t.test('MessageIterator: the queue is bounded in bytes too, and resumes below half of both bounds', async (t) => {
  const { calls, source } = recordingSource()
  const iterator = new MessageIterator(source, 100, 1000)
  iterator.push('a', 600)
  t.equal(iterator.bytes, 600)
  t.equal(iterator.full, false)
  iterator.push('b', 600)
  t.equal(iterator.full, true, '1200 bytes of 1000, 2 events of 100')
  t.same(await iterator.next(), { value: 'a', done: false })
  t.equal(iterator.bytes, 600)
  t.same(calls, [], 'not resumed above half the bytes')
  t.same(await iterator.next(), { value: 'b', done: false })
  t.equal(iterator.bytes, 0)
  t.same(calls, ['resume'])
  await iterator.return()
  t.equal(iterator.bytes, 0)
})

t.test('MessageIterator: events are copied once the queue spans PIN_SPAN chunks', async (t) => {
  const source = { pause () {}, resume () {}, close () {}, remove () {} }
  const iterator = new MessageIterator(source, 100)
  t.equal(PIN_SPAN, 16)
  t.equal(iterator.keepsChunksBefore(100), false, 'an empty queue keeps nothing')
  iterator.push('a', 0, 1)
  iterator.push('b', 0, 5)
  t.equal(iterator.keepsChunksBefore(16), false)
  t.equal(iterator.keepsChunksBefore(17), true, 'chunk 17 is 16 after the oldest queued, 1')
  t.same(await iterator.next(), { value: 'a', done: false })
  t.equal(iterator.keepsChunksBefore(17), false, 'the oldest queued is now of chunk 5')
  t.same(await iterator.next(), { value: 'b', done: false })
  const pending = iterator.next()
  t.equal(iterator.keepsChunksBefore(100), false, 'a waiting next() takes the next event as it is')
  iterator.push('c', 0, 100)
  t.same(await pending, { value: 'c', done: false })
})

t.test('events queued over many network chunks arrive intact', async (t) => {
  // One short event per 64 KiB chunk, the rest a comment: the queue spans more than PIN_SPAN chunks
  // and its later events get strings of their own.
  const count = 40
  const chunk = (i) => {
    const bytes = Buffer.alloc(64 * 1024, 0x70)
    bytes.write(`\nid: id-${String(i).padStart(12, '0')}\ndata: data-${String(i).padStart(12, '0')}\n\n:`)
    return bytes
  }
  const server = await serve(t, (req, res) => {
    res.writeHead(200, SSE_HEADERS)
    for (let i = 0; i < count; i++) res.write(chunk(i))
  })
  const es = open(t, server.url())
  const rec = record(es)
  const iterator = es[Symbol.asyncIterator]()
  // Nothing is read until every event has been dispatched, and queued.
  await rec.wait('message', count)
  const seen = []
  for (let i = 0; i < count; i++) {
    const { value } = await iterator.next()
    seen.push(`${value.type} ${value.data} ${value.lastEventId}`)
  }
  t.same(seen, Array.from({ length: count }, (_, i) => {
    const n = String(i).padStart(12, '0')
    return `message data-${n} id-${n}`
  }))
  await iterator.return()
})

t.test('eventCost: two bytes per UTF-16 unit of data, type and last event ID, plus 512', async (t) => {
  t.equal(eventCost(new MessageEvent('type', { data: 'data\u20ac', lastEventId: 'id' })), 512 + 2 * (5 + 4 + 2))
})

t.test('MessageIterator: push after the end and a second finish are ignored', async (t) => {
  const { calls, source } = recordingSource()
  const iterator = new MessageIterator(source, 2)
  iterator.push('a')
  t.equal(iterator.size, 1)
  t.equal(iterator.full, false)
  iterator.push('b')
  t.equal(iterator.full, true)
  const failure = new Error('failed')
  iterator.finish(failure)
  iterator.finish(null)
  iterator.push('c')
  t.same(await iterator.next(), { value: 'a', done: false })
  t.same(await iterator.next(), { value: 'b', done: false })
  await t.rejects(iterator.next(), failure, 'the first finish wins')
  t.same(await iterator.next(), { value: undefined, done: true })
  t.same(calls, ['resume', 'resume'], 'resume asked for as the queue drained; no close, no remove')
})
