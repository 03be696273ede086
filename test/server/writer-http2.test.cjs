'use strict'

// EventStreamWriter on node:http2 (lib/server/node-sinks.js): a compatibility response (Http2ServerResponse,
// through http2.createSecureServer's request handler) and a stream of the core API (server.on('stream'), its
// Last-Event-ID given as options.lastEventId). HTTP/2 forbids connection-specific headers, and node:http2 throws
// on one: a head sent at all says there were none, and the test checks the names too. Then this package's
// EventSource over HTTP/2 (init.http2) as the client.

const t = require('tap')
const http2 = require('node:http2')
const { EventStreamWriter } = require('../../lib/entries/server.js')
const { writerServer, listen, tlsFixture, record, open, bounded, macrotask, onceBounded, TIMEOUT } = require('../helpers/index.cjs')

const { key, cert } = tlsFixture()
const tls = { key, cert }
const KiB = 1024
const CONNECTION_SPECIFIC = ['connection', 'transfer-encoding', 'keep-alive', 'upgrade', 'proxy-connection']

// A request on a new HTTP/2 session to `origin`: its response headers, its body as text as it arrives, and a
// bounded wait on that text. The session is closed at teardown.
async function h2get (t, origin, headers = {}) {
  const session = http2.connect(origin, { ca: cert })
  session.on('error', () => {})
  t.teardown(() => session.destroy())
  const stream = session.request({ ':path': '/', ...headers })
  stream.on('error', () => {})
  const [responseHeaders] = await onceBounded(stream, 'response')
  const body = { session, stream, headers: responseHeaders, text: '', ended: false }
  const waiters = []
  const check = () => {
    for (let i = waiters.length - 1; i >= 0; i--) if (waiters[i].predicate(body)) waiters.splice(i, 1)[0].resolve()
  }
  stream.setEncoding('utf8')
  stream.on('data', (text) => { body.text += text; check() })
  stream.on('end', () => { body.ended = true; check() })
  stream.on('close', () => { body.closed = true; check() })
  body.until = (predicate, what) => bounded(new Promise((resolve) => {
    waiters.push({ predicate, resolve })
    check()
  }), () => `${what}; received so far: ${JSON.stringify(body.text.slice(-200))}`, TIMEOUT)
  return body
}

// The core API: a secure HTTP/2 server whose streams are handed to `onStream(stream, headers, index)`.
async function coreServer (t, onStream) {
  const server = http2.createSecureServer(tls)
  const writers = []
  const streams = []
  const arrived = []
  server.on('stream', (stream, headers) => {
    stream.on('error', () => {})
    streams.push(stream)
    const index = writers.length
    writers.push(null)
    writers[index] = onStream(stream, headers, index)
    arrived[index]?.()
  })
  server.on('session', (session) => session.on('error', () => {}))
  const { port } = await listen(t, server)
  return {
    origin: `https://127.0.0.1:${port}`,
    streams,
    writers,
    writer: (index) => writers[index] != null
      ? Promise.resolve(writers[index])
      : bounded(new Promise((resolve) => { arrived[index] = () => resolve(writers[index]) }), `stream #${index}`)
  }
}

function checkHead (t, headers) {
  t.equal(headers[':status'], 200)
  t.equal(headers['content-type'], 'text/event-stream')
  t.equal(headers['cache-control'], 'no-cache')
  t.equal(headers['x-accel-buffering'], 'no')
  t.same(CONNECTION_SPECIFIC.filter((name) => name in headers), [], 'no connection-specific header')
}

t.test('compatibility API: the head at once, the request\'s Last-Event-ID, events, close()', async (t) => {
  const srv = await writerServer(t, (req, res) => new EventStreamWriter(res, { heartbeat: 0, headers: { 'x-trace': 'abc' } }), { tls, http2: {} })
  const id = 'é-7'
  // As a client sends it: its UTF-8 bytes, which node:http2 hands over one character per byte.
  const client = await h2get(t, srv.origin, { 'last-event-id': Buffer.from(id).toString('latin1') })
  const writer = await srv.writer(0)
  t.equal(srv.requests[0].httpVersion, '2.0')
  checkHead(t, client.headers)
  t.equal(client.headers['x-trace'], 'abc')
  t.equal(client.text, '', 'the head came with no event')
  t.equal(writer.lastEventId, id)
  writer.send({ id: '8', data: 'one' })
  writer.send({ data: 'two' })
  await client.until((c) => c.text.includes('two'), 'the events')
  writer.send({ data: 'three' })
  writer.close()
  await client.until((c) => c.ended, 'the end of the stream')
  t.equal(client.text, 'id: 8\ndata: one\n\ndata: two\n\ndata: three\n\n')
  await bounded(writer.closed, 'closed')
})

t.test('compatibility API: the client cancels its stream, the writer closes; the session goes on', async (t) => {
  const srv = await writerServer(t, (req, res) => new EventStreamWriter(res, { heartbeat: 0 }), { tls, http2: {} })
  const client = await h2get(t, srv.origin)
  const writer = await srv.writer(0)
  client.stream.close(http2.constants.NGHTTP2_CANCEL)
  await bounded(writer.closed, 'closed')
  t.match(writer.signal.reason.message, /the client left/)
  // Another stream on the same session.
  const again = client.session.request({ ':path': '/' })
  const [headers] = await onceBounded(again, 'response')
  t.equal(headers[':status'], 200)
  const second = await srv.writer(1)
  t.equal(srv.sessions.length, 1, 'one session for both')
  second.close()
})

t.test('compatibility API: backpressure through flow control; a client too slow is cut, its session kept', async (t) => {
  const srv = await writerServer(t, (req, res, i) => new EventStreamWriter(res, {
    heartbeat: 0, maxBufferedBytes: i === 0 ? Infinity : 256 * KiB
  }), { tls, http2: {} })
  const client = await h2get(t, srv.origin)
  client.stream.pause()
  const writer = await srv.writer(0)
  const data = 'x'.repeat(16 * KiB)
  let sent = 0
  while (writer.send({ id: `${++sent}`, data })) {
    if (sent > 4096) throw new Error('send() never said to wait')
    await macrotask()
  }
  const ready = writer.ready
  client.stream.resume()
  await bounded(ready, 'ready once the client reads')
  await client.until((c) => c.text.includes(`id: ${sent}\n`), 'every event')
  t.equal(client.text.match(/^id: /gm).length, sent, `${sent} events, then send() said to wait`)

  // The second stream never reads: cut with RST_STREAM, the session and the first stream left alone.
  const slow = client.session.request({ ':path': '/' })
  slow.on('error', () => {})
  slow.pause()
  await onceBounded(slow, 'response')
  const cut = await srv.writer(1)
  sent = 0
  while (!cut.signal.aborted && sent < 4096) {
    cut.send({ data })
    sent++
    await macrotask()
  }
  t.equal(cut.signal.reason?.code, 'ERR_EVENTSOURCE_CLIENT_TOO_SLOW', `cut after ${sent} events of 16 KiB`)
  const stream = srv.requests[1].stream
  t.ok(stream.destroyed, 'the server\'s stream destroyed, what it held with it')
  // A paused stream reports its reset once it reads what it had.
  slow.resume()
  if (!slow.closed) await onceBounded(slow, 'close')
  t.equal(slow.rstCode, http2.constants.NGHTTP2_CANCEL, 'reset with CANCEL')
  t.equal(writer.signal.aborted, false, 'the other stream is open')
  writer.send({ data: 'still here' })
  await client.until((c) => c.text.includes('still here'), 'an event on the other stream')
  t.equal(client.session.closed, false)
})

t.test('compatibility API: gzip when accepted', async (t) => {
  const srv = await writerServer(t, (req, res) => new EventStreamWriter(res, { heartbeat: 0, compress: true }), { tls, http2: {} })
  const client = await h2get(t, srv.origin, { 'accept-encoding': 'gzip' })
  t.equal(client.headers['content-encoding'], 'gzip')
  checkHead(t, client.headers)
  ;(await srv.writer(0)).close()
})

t.test('core API: a ServerHttp2Stream, its Last-Event-ID from options', async (t) => {
  const srv = await coreServer(t, (stream, headers) => new EventStreamWriter(stream, {
    heartbeat: 0, lastEventId: headers['last-event-id'], compress: true
  }))
  const client = await h2get(t, srv.origin, { 'last-event-id': '41', 'accept-encoding': 'gzip' })
  const writer = await srv.writer(0)
  checkHead(t, client.headers)
  t.equal(client.headers['content-encoding'], undefined, 'compress does not apply: the request is not on the stream')
  t.equal(writer.lastEventId, '41')
  t.equal(client.text, '', 'the head came with no event')
  writer.send([{ id: '42', data: 'one' }, { data: 'two' }])
  await client.until((c) => c.text.includes('two'), 'the events')
  writer.close()
  await client.until((c) => c.ended, 'the end of the stream')
  t.equal(client.text, 'id: 42\ndata: one\n\ndata: two\n\n')
  await bounded(writer.closed, 'closed')
  t.throws(() => writer.response(), { name: 'TypeError' })
  t.throws(() => writer.readable, { name: 'TypeError' })
})

t.test('core API: without lastEventId, \'\'; the client leaves; backpressure; a client too slow is cut', async (t) => {
  const srv = await coreServer(t, (stream, headers, i) => new EventStreamWriter(stream, {
    heartbeat: 0, maxBufferedBytes: i === 0 ? Infinity : 128 * KiB
  }))
  const client = await h2get(t, srv.origin, { 'last-event-id': 'not looked at' })
  client.stream.pause()
  const writer = await srv.writer(0)
  t.equal(writer.lastEventId, '', 'the stream does not have the request\'s headers')
  const data = 'y'.repeat(16 * KiB)
  let sent = 0
  while (writer.send({ data })) {
    if (++sent > 4096) throw new Error('send() never said to wait')
    await macrotask()
  }
  const ready = writer.ready
  client.stream.resume()
  await bounded(ready, 'ready once the client reads')
  client.stream.close(http2.constants.NGHTTP2_CANCEL)
  await bounded(writer.closed, 'closed once the client left')
  t.match(writer.signal.reason.message, /the client left/)

  const slow = await h2get(t, srv.origin)
  slow.stream.pause()
  const cut = await srv.writer(1)
  sent = 0
  while (!cut.signal.aborted && sent < 4096) {
    cut.send({ data })
    sent++
    await macrotask()
  }
  t.equal(cut.signal.reason?.code, 'ERR_EVENTSOURCE_CLIENT_TOO_SLOW', `cut after ${sent} events`)
  t.ok(srv.streams[1].destroyed, 'the server\'s stream destroyed, what it held with it')
  slow.stream.resume()
  await slow.until((c) => c.closed, 'the stream to be reset')
  t.equal(slow.stream.rstCode, http2.constants.NGHTTP2_CANCEL, 'reset with CANCEL')
})

t.test('core API: a head refused throws before anything is sent, and the stream can still be answered', async (t) => {
  // A value with a line end (node:http2 would send it; the writer refuses it), a name that is not a token
  // (respond() refuses it).
  const bad = [{ 'x-a': 'one\r\nx-injected: two' }, { 'bad name': 'x' }]
  const errors = []
  const streams = []
  const srv = await coreServer(t, (stream, headers, i) => {
    streams.push(stream)
    try {
      return new EventStreamWriter(stream, { heartbeat: 0, headers: bad[i] })
    } catch (err) {
      errors.push(err)
      stream.respond({ ':status': 500 })
      stream.end()
      return err
    }
  })
  for (const [i, headers] of bad.entries()) {
    const client = await h2get(t, srv.origin)
    t.equal(client.headers[':status'], 500, JSON.stringify(headers))
    // The stream's close runs its listeners: none of a writer that was never made (one threw, uncaught, before).
    if (!streams[i].closed) await onceBounded(streams[i], 'close')
    await client.until((c) => c.closed, 'the stream to close')
  }
  t.same(errors.map((err) => [err.name, err.code]), [['TypeError', 'ERR_INVALID_ARG_VALUE'], ['TypeError', 'ERR_INVALID_HTTP_TOKEN']])
})

t.test('this package\'s EventSource over HTTP/2 receives the events and resumes with Last-Event-ID', async (t) => {
  const srv = await writerServer(t, (req, res) => new EventStreamWriter(res, { heartbeat: 0, retry: 10 }), { tls, http2: {} })
  const es = open(t, srv.url('/events'), { http2: { connect: { ca: cert } } })
  const rec = record(es)
  await rec.wait('open')
  const first = await srv.writer(0)
  t.equal(srv.requests[0].httpVersion, '2.0')
  first.send([{ id: 'a-1', data: 'one' }, { event: 'tick', id: 'a-2', data: 'two' }, { data: 'multi\nline' }])
  await rec.wait('message', 2)
  first.close()
  await rec.wait('open', 2)
  const second = await srv.writer(1)
  t.equal(second.lastEventId, 'a-2', 'the reconnection sent the last id')
  second.send({ id: 'é-3', data: 'three' })
  await rec.wait('message', 3)
  second.close()
  await rec.wait('open', 3)
  t.equal((await srv.writer(2)).lastEventId, 'é-3', 'a non-ASCII id comes back whole')
  es.close()
  t.same(rec.of('message').map((e) => [e.data, e.lastEventId]), [['one', 'a-1'], ['multi\nline', 'a-2'], ['three', 'é-3']])
  t.same(srv.requests.map((req) => req.httpVersion), ['2.0', '2.0', '2.0'])
})
