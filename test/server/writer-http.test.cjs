'use strict'

// EventStreamWriter on a node:http response (lib/server/writer.js, lib/server/node-sinks.js): the head at
// once, the request's Last-Event-ID, the events of one tick in one write, what send() refuses, the client's
// pace (send()'s answer and `ready`), the bound on what a client leaves unread, and how the stream ends,
// whoever ends it. Raw sockets where the bytes or their framing matter (test/helpers/raw-client.cjs), this
// package's EventSource where a client's view does. Heartbeats: writer-heartbeat.test.cjs; gzip:
// writer-compress.test.cjs.

const t = require('tap')
const { once } = require('node:events')
const { EventStreamWriter } = require('../../lib/entries/server.js')
const { writerServer, rawGet, parseAll, record, bounded, macrotask } = require('../helpers/index.cjs')

const { OPEN, CONNECTING } = require('../..').EventSource

// Heartbeats off, so that the bytes on the wire are the test's own.
const QUIET = { heartbeat: 0 }
const KiB = 1024

const hasHead = (r) => r.head !== null
// The events a raw response's body holds, as the parser reads them: [type, data, lastEventId].
const eventsOf = (response) => parseAll([response.body]).filter(([kind]) => kind === 'event').map(([, ...e]) => e)

t.test('the head goes out at once, before any event: 200, text/event-stream, no-cache, X-Accel-Buffering: no', async (t) => {
  const srv = await writerServer(t, (req, res) => new EventStreamWriter(res, QUIET))
  const client = await rawGet(t, srv.port)
  await client.until(hasHead, 'the head')
  t.equal(client.head.status, 200)
  t.same(client.header('content-type'), ['text/event-stream'])
  t.same(client.header('cache-control'), ['no-cache'])
  t.same(client.header('x-accel-buffering'), ['no'])
  t.same(client.chunks, [], 'no byte of body: the head did not wait for an event')
  // Node's own framing of an HTTP/1.1 body, which is the server's to choose.
  t.same(client.header('transfer-encoding'), ['chunked'])
})

t.test('a client\'s open fires with no event sent; the first event follows', async (t) => {
  const srv = await writerServer(t, (req, res) => new EventStreamWriter(res, QUIET))
  const rec = record(srv.eventSource('/'))
  await rec.wait('open')
  const writer = await srv.writer(0)
  t.same(rec.types, ['open'])
  writer.send({ data: 'first' })
  await rec.wait('message')
  t.same(rec.events.map((e) => [e.type, e.data, e.readyState]), [['open', undefined, OPEN], ['message', 'first', OPEN]])
})

t.test('no Connection or Transfer-Encoding of ours: Node chooses them for each client', async (t) => {
  const srv = await writerServer(t, (req, res) => new EventStreamWriter(res, QUIET))
  // HTTP/1.0 has no chunked framing: Node ends such a body by closing the connection, unless a header said
  // otherwise.
  const old = await rawGet(t, srv.port, { version: '1.0' })
  const writer = await srv.writer(0)
  await old.until(hasHead, 'the head')
  t.same(old.header('transfer-encoding'), [], 'not chunked for HTTP/1.0')
  t.same(old.header('connection'), ['close'])
  writer.send({ data: 'x' })
  writer.close()
  await old.closed()
  t.equal(old.text, 'data: x\n\n', 'the body as written, ended by the end of the connection')

  const closing = await rawGet(t, srv.port, { headers: { Connection: 'close' } })
  await closing.until(hasHead, 'the head')
  t.same(closing.header('connection'), ['close'], 'the client\'s Connection: close honoured')
  t.same(closing.header('transfer-encoding'), ['chunked'])
})

t.test('options.headers are merged into the head, as a record, a Headers, a Map or pairs', async (t) => {
  const forms = [
    { 'X-Trace': 'abc', 'Cache-Control': 'no-store' },
    new Headers({ 'X-Trace': 'abc', 'Cache-Control': 'no-store' }),
    new Map([['X-Trace', 'abc'], ['Cache-Control', 'no-store']]),
    [['X-Trace', 'abc'], ['Cache-Control', 'no-store']]
  ]
  const srv = await writerServer(t, (req, res, i) => new EventStreamWriter(res, { ...QUIET, headers: forms[i] }))
  for (const [i, form] of forms.entries()) {
    const client = await rawGet(t, srv.port)
    await client.until(hasHead, 'the head')
    const what = Array.isArray(form) ? 'pairs' : form.constructor.name
    t.equal(client.head.status, 200, what)
    t.same(client.header('x-trace'), ['abc'], `${what}: a header of the user's`)
    t.same(client.header('cache-control'), ['no-store'], `${what}: the user's value wins`)
    t.same(client.header('content-type'), ['text/event-stream'], `${what}: the event stream's stay`)
    t.equal(srv.errors[i], undefined)
  }
})

t.test('the headers that frame the body, and bad options, are refused before anything is written', async (t) => {
  const cases = [
    [{ headers: { Connection: 'keep-alive' } }, TypeError, 'ERR_INVALID_ARG_VALUE', /options\.headers\.connection/],
    [{ headers: { 'Transfer-Encoding': 'chunked' } }, TypeError, 'ERR_INVALID_ARG_VALUE', /transfer-encoding/],
    [{ headers: [['keep-alive', 'timeout=5']] }, TypeError, 'ERR_INVALID_ARG_VALUE', /keep-alive/],
    [{ headers: { upgrade: 'h2c' } }, TypeError, 'ERR_INVALID_ARG_VALUE', /upgrade/],
    [{ headers: { 'Proxy-Connection': 'x' } }, TypeError, 'ERR_INVALID_ARG_VALUE', /proxy-connection/],
    [{ headers: { 'content-length': '10' } }, TypeError, 'ERR_INVALID_ARG_VALUE', /content-length/],
    [{ headers: 'x-a: 1' }, TypeError, 'ERR_INVALID_ARG_TYPE', /options\.headers/],
    // A value that would end its field, on every target alike (node:http2 would send it).
    [{ headers: { 'x-a': 'one\r\nx-injected: two' } }, TypeError, 'ERR_INVALID_ARG_VALUE', /options\.headers\.x-a/],
    [{ headers: { 'x-a': 'nul\0' } }, TypeError, 'ERR_INVALID_ARG_VALUE', /CR, LF or NUL/],
    // Node's own check of a head, made before anything is sent.
    [{ headers: { 'bad name': 'x' } }, TypeError, 'ERR_INVALID_HTTP_TOKEN', /bad name/],
    ['fast', TypeError, 'ERR_INVALID_ARG_TYPE', /"options"/],
    [{ heartbeat: -1 }, RangeError, 'ERR_OUT_OF_RANGE', /options\.heartbeat/],
    [{ heartbeat: '15s' }, TypeError, 'ERR_INVALID_ARG_TYPE', /options\.heartbeat/],
    [{ maxBufferedBytes: 1.5 }, RangeError, 'ERR_OUT_OF_RANGE', /options\.maxBufferedBytes/],
    [{ compress: 'gzip' }, TypeError, 'ERR_INVALID_ARG_TYPE', /options\.compress/],
    [{ lastEventId: 42 }, TypeError, 'ERR_INVALID_ARG_TYPE', /options\.lastEventId/],
    [{ retry: -1 }, RangeError, 'ERR_OUT_OF_RANGE', /options\.retry/],
    [{ retry: 1.5 }, RangeError, 'ERR_OUT_OF_RANGE', /options\.retry/],
    [{ retry: '3000' }, TypeError, 'ERR_INVALID_ARG_TYPE', /options\.retry/]
  ]
  const srv = await writerServer(t, (req, res, i) => new EventStreamWriter(res, cases[i][0]))
  for (const [i, [options, type, code, message]] of cases.entries()) {
    const client = await rawGet(t, srv.port)
    await client.until((r) => r.ended || (r.head !== null && r.head.status !== 200), 'the answer')
    const what = JSON.stringify(options)
    t.equal(client.head.status, 500, `${what}: nothing written, the handler could still answer`)
    t.ok(srv.errors[i] instanceof type, `${what}: a ${type.name}`)
    t.equal(srv.errors[i].code, code, what)
    t.match(srv.errors[i].message, message, what)
  }
  // Infinity is a bound too: none.
  const writer = new EventStreamWriter(null, { maxBufferedBytes: Infinity, heartbeat: 0 })
  t.equal(writer.lastEventId, '')
  writer.close()
})

t.test('lastEventId: the request\'s Last-Event-ID, \'\' without one, null when over 1024 characters', async (t) => {
  const sent = [undefined, '41', 'x'.repeat(1024), 'x'.repeat(1025), '']
  const srv = await writerServer(t, (req, res) => new EventStreamWriter(res, QUIET))
  for (const [i, id] of sent.entries()) {
    const client = await rawGet(t, srv.port, { headers: id === undefined ? {} : { 'Last-Event-ID': id } })
    const writer = await srv.writer(i)
    const expected = id === undefined ? '' : id.length > 1024 ? null : id
    t.equal(writer.lastEventId, expected, `sent ${id === undefined ? 'none' : `${id.length} characters`}`)
    await client.until(hasHead, 'the head')
    t.same(client.chunks, [], 'nothing of it echoed')
  }
})

t.test('lastEventId: a non-ASCII id comes back as the client sent it, UTF-8', async (t) => {
  const srv = await writerServer(t, (req, res) => new EventStreamWriter(res, QUIET))
  // A client sends the id's UTF-8 bytes; Node hands a header over as latin1.
  const id = 'é-1 中文 😀'
  await rawGet(t, srv.port, { headers: { 'Last-Event-ID': Buffer.from(id).toString('latin1') } })
  t.equal((await srv.writer(0)).lastEventId, id)
  // Bytes that are not UTF-8 decode as a client's parser decodes them: U+FFFD each.
  await rawGet(t, srv.port, { headers: { 'Last-Event-ID': 'a\xff\xfe' } })
  t.equal((await srv.writer(1)).lastEventId, 'a\ufffd\ufffd')
})

t.test('options.lastEventId wins over the header', async (t) => {
  const srv = await writerServer(t, (req, res) => new EventStreamWriter(res, { ...QUIET, lastEventId: 'given' }))
  await rawGet(t, srv.port, { headers: { 'Last-Event-ID': 'header' } })
  t.equal((await srv.writer(0)).lastEventId, 'given')
})

t.test('the events of one tick go out in one write: one HTTP/1.1 chunk', async (t) => {
  const srv = await writerServer(t, (req, res) => new EventStreamWriter(res, QUIET))
  const client = await rawGet(t, srv.port)
  const writer = await srv.writer(0)
  await client.until(hasHead, 'the head')
  t.equal(writer.send({ data: 'one' }), true)
  t.equal(writer.send({ event: 'two', data: 'b' }), true)
  t.equal(writer.send([{ id: '3', data: 'c' }, { data: 'd\ne' }]), true)
  t.equal(writer.comment('note'), true)
  await client.until((r) => r.chunks.length >= 1, 'the first write')
  // Sent once the first write arrived: a later tick, a write of its own.
  writer.send({ data: 'next tick' })
  await client.until((r) => r.text.includes('next tick'), 'the second write')
  t.same(client.chunks.map(String), [
    'data: one\n\nevent: two\ndata: b\n\nid: 3\ndata: c\n\ndata: d\ndata: e\n\n: note\n\n',
    'data: next tick\n\n'
  ])
})

t.test('send() takes an event or any iterable of them; comment(); the retry option goes first', async (t) => {
  const srv = await writerServer(t, (req, res) => new EventStreamWriter(res, { ...QUIET, retry: 2500 }))
  const client = await rawGet(t, srv.port)
  const writer = await srv.writer(0)
  writer.send(new Set([{ data: 'from a set' }]))
  writer.send((function * () { yield { data: 'from' }; yield { data: 'a generator' } })())
  writer.send([])
  writer.comment()
  writer.comment('two\nlines')
  writer.send({ id: '', data: '' })
  writer.close()
  await client.until((r) => r.ended, 'the end of the body')
  t.equal(client.text, 'retry: 2500\n\n' +
    'data: from a set\n\ndata: from\n\ndata: a generator\n\n: \n\n: two\n: lines\n\nid: \ndata: \n\n')
  t.same(parseAll([client.body]), [
    ['retry', 2500],
    ['event', 'message', 'from a set', ''],
    ['event', 'message', 'from', ''],
    ['event', 'message', 'a generator', ''],
    ['comment', ''],
    ['comment', 'two'],
    ['comment', 'lines'],
    ['event', 'message', '', '']
  ])
})

t.test('a bad event throws at send(), with its code, and nothing of it is written', async (t) => {
  const srv = await writerServer(t, (req, res) => new EventStreamWriter(res, QUIET))
  const client = await rawGet(t, srv.port)
  const writer = await srv.writer(0)
  const bad = [
    [{ id: '1\n\ndata: injected' }, TypeError, 'ERR_INVALID_ARG_VALUE', /event\.id/],
    [{ event: 'x\revil', data: 'y' }, TypeError, 'ERR_INVALID_ARG_VALUE', /event\.event/],
    [{ id: 'a\0b', data: 'y' }, TypeError, 'ERR_INVALID_ARG_VALUE', /NUL/],
    [{ retry: -1 }, RangeError, 'ERR_OUT_OF_RANGE', /event\.retry/],
    [{ data: 5 }, TypeError, 'ERR_INVALID_ARG_TYPE', /event\.data/],
    [{}, TypeError, 'ERR_INVALID_ARG_VALUE', /has none of/],
    ['data: x', TypeError, 'ERR_INVALID_ARG_TYPE', /event/],
    [null, TypeError, 'ERR_INVALID_ARG_TYPE', /event/],
    // One bad event in a batch: none of the batch is written.
    [[{ data: 'good' }, { id: '\n' }], TypeError, 'ERR_INVALID_ARG_VALUE', /events\[1\]\.id/]
  ]
  for (const [event, type, code, message] of bad) {
    t.throws(() => writer.send(event), { name: type.name, code, message }, JSON.stringify(event))
  }
  t.throws(() => writer.comment(7), { code: 'ERR_INVALID_ARG_TYPE' })
  writer.send({ data: 'after' })
  writer.close()
  await client.until((r) => r.ended, 'the end of the body')
  t.equal(client.text, 'data: after\n\n', 'only the good event')
})

// Sends 64 KiB events to a client that does not read, a tick each, until send() says to wait.
async function fill (writer, limit = 1024) {
  const data = 'x'.repeat(64 * KiB)
  for (let n = 1; n <= limit; n++) {
    if (!writer.send({ id: `${n}`, data })) return n
    await macrotask()
  }
  throw new Error(`send() still returned true after ${limit} events of 64 KiB`)
}

t.test('send() returns false while the client does not read; ready resolves once it reads', async (t) => {
  const srv = await writerServer(t, (req, res) => new EventStreamWriter(res, { ...QUIET, maxBufferedBytes: Infinity }))
  const client = await rawGet(t, srv.port, { read: false })
  const writer = await srv.writer(0)
  t.equal(await writer.ready, undefined, 'ready at once while the client keeps up')
  const sent = await fill(writer)
  t.ok(sent > 1, `send() returned false after ${sent} events`)
  t.equal(writer.comment('still full'), false, 'and goes on returning false')
  let ready = false
  const waiting = writer.ready.then(() => { ready = true })
  t.equal(writer.ready, writer.ready, 'one promise while waiting')
  await macrotask()
  t.equal(ready, false, 'ready waits while the client reads nothing')
  client.socket.resume()
  await bounded(waiting, 'ready once the client reads')
  t.equal(writer.send({ id: 'last', data: 'last' }), true, 'send() returns true again')
  await client.until((r) => r.text.endsWith('data: last\n\n'), 'every event')
  const ids = eventsOf(client).map(([, , id]) => id)
  t.same(ids, [...Array.from({ length: sent }, (_, i) => `${i + 1}`), 'last'], 'every event, once, in order')
})

t.test('maxBufferedBytes: a client that never reads is disconnected with ERR_EVENTSOURCE_CLIENT_TOO_SLOW', async (t) => {
  const MAX = 256 * KiB
  const responses = []
  const srv = await writerServer(t, (req, res) => {
    responses.push(res)
    return new EventStreamWriter(res, { ...QUIET, maxBufferedBytes: MAX })
  })
  const client = await rawGet(t, srv.port, { read: false })
  const writer = await srv.writer(0)
  const socket = srv.requests[0].socket
  const closed = once(socket, 'close')
  // A producer that ignores send()'s answer: only the bound stops it. 4,096 events of 16 KiB (64 MiB) are far
  // past what the kernel's buffers take.
  const data = 'x'.repeat(16 * KiB)
  let sent = 0
  let buffered = 0
  while (!writer.signal.aborted && sent < 4096) {
    writer.send({ data })
    sent++
    await macrotask()
    buffered = Math.max(buffered, responses[0].writableLength)
  }
  t.ok(writer.signal.aborted, `disconnected after ${sent} events of 16 KiB`)
  t.equal(writer.signal.reason.code, 'ERR_EVENTSOURCE_CLIENT_TOO_SLOW')
  t.ok(writer.signal.reason instanceof Error)
  t.match(writer.signal.reason.message, /did not read/)
  // maxBufferedBytes counts from the write that filled Node's buffer (its high-water mark and an event at most).
  const bound = MAX + responses[0].writableHighWaterMark + 2 * data.length
  t.ok(buffered <= bound, `at most ${buffered} bytes held for it, with maxBufferedBytes ${MAX} (bound ${bound})`)
  await bounded(closed, 'the server to close the connection')
  t.equal(writer.send({ data }), false, 'nothing more sent')
  await t.rejects(writer.ready, { code: 'ERR_EVENTSOURCE_CLIENT_TOO_SLOW' })
  // What the client had not read is gone with the connection; it reads what its kernel had, then the end.
  client.socket.resume()
  await client.closed()
  t.equal(client.ended, false, 'no end of the body: the connection was cut')
})

t.test('closed and signal: the client leaves', async (t) => {
  const srv = await writerServer(t, (req, res) => new EventStreamWriter(res, QUIET))
  const es = srv.eventSource('/')
  const rec = record(es)
  await rec.wait('open')
  const writer = await srv.writer(0)
  const { signal } = writer
  t.equal(signal.aborted, false)
  let resolved = false
  const closed = writer.closed.then(() => { resolved = true })
  await macrotask()
  t.equal(resolved, false, 'closed waits while the stream is open')
  es.close()
  await bounded(closed, 'closed')
  t.ok(signal.aborted)
  t.equal(signal.reason.code, 'ERR_EVENTSOURCE_WRITER_CLOSED')
  t.match(signal.reason.message, /the client left/)
  t.equal(writer.send({ data: 'x' }), false, 'send() writes nothing once closed')
  await t.rejects(writer.ready, { code: 'ERR_EVENTSOURCE_WRITER_CLOSED' })
  writer.close()
  t.equal(writer.signal, signal, 'one signal')
})

t.test('closed and signal: close() writes what was sent, ends the body, and the client reconnects', async (t) => {
  const srv = await writerServer(t, (req, res) => new EventStreamWriter(res, QUIET))
  const rec = record(srv.eventSource('/'))
  await rec.wait('open')
  const writer = await srv.writer(0)
  writer.send({ id: '1', data: 'last words' })
  writer.close()
  writer.close()
  // Asked for after the close: made closed.
  t.ok(writer.signal.aborted)
  t.match(writer.signal.reason.message, /closed by the server/)
  await bounded(writer.closed, 'closed')
  await rec.wait('open', 2)
  t.same(rec.events.map((e) => [e.type, e.readyState]),
    [['open', OPEN], ['message', OPEN], ['error', CONNECTING], ['open', OPEN]])
  t.equal(rec.of('message')[0].data, 'last words')
  t.equal((await srv.writer(1)).lastEventId, '1', 'the reconnection resumes from the last id')
})

t.test('closed and signal: the server destroys the socket', async (t) => {
  const srv = await writerServer(t, (req, res) => new EventStreamWriter(res, QUIET))
  const client = await rawGet(t, srv.port)
  const writer = await srv.writer(0)
  await client.until(hasHead, 'the head')
  srv.requests[0].socket.destroy()
  await bounded(writer.closed, 'closed')
  t.equal(writer.signal.reason.code, 'ERR_EVENTSOURCE_WRITER_CLOSED')
  await client.closed()
})

t.test('ready rejects once closed, also while it waits for the client to read', async (t) => {
  const srv = await writerServer(t, (req, res) => new EventStreamWriter(res, { ...QUIET, maxBufferedBytes: Infinity }))
  // The server closes it.
  await rawGet(t, srv.port, { read: false })
  const first = await srv.writer(0)
  await fill(first)
  const waiting = first.ready
  first.close()
  await t.rejects(waiting, { code: 'ERR_EVENTSOURCE_WRITER_CLOSED', message: /closed by the server/ })
  // The client leaves.
  const client = await rawGet(t, srv.port, { read: false })
  const second = await srv.writer(1)
  await fill(second)
  const alsoWaiting = second.ready
  client.socket.destroy()
  await t.rejects(alsoWaiting, { code: 'ERR_EVENTSOURCE_WRITER_CLOSED', message: /the client left/ })
})

t.test('a writer for a Node response has no WHATWG body', async (t) => {
  const srv = await writerServer(t, (req, res) => new EventStreamWriter(res, QUIET))
  await rawGet(t, srv.port)
  const writer = await srv.writer(0)
  t.throws(() => writer.readable, { name: 'TypeError', message: /WHATWG Request/ })
  t.throws(() => writer.response(), { name: 'TypeError', message: /WHATWG Request/ })
  t.equal(Object.prototype.toString.call(writer), '[object EventStreamWriter]')
  writer.close()
})

t.test('one writer per response: a second is refused before it writes anything', async (t) => {
  const srv = await writerServer(t, (req, res) => {
    const first = new EventStreamWriter(res, QUIET)
    t.throws(() => new EventStreamWriter(res, QUIET),
      { code: 'ERR_INVALID_ARG_VALUE', message: /has sent its head already: one writer per response/ })
    return first
  })
  const client = await rawGet(t, srv.port)
  const writer = await srv.writer(0)
  writer.send({ data: 'one' })
  await client.until((r) => r.text.includes('data: one\n\n'), 'the first writer\'s event')
  t.equal(client.text, 'data: one\n\n', 'the first writer alone wrote')
})
