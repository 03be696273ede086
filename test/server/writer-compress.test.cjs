'use strict'

// options.compress on node:http (lib/server/node-sinks.js): gzip when the request's Accept-Encoding allows it
// (RFC 9110 12.5.3), each write flushed so that a client decodes each tick's events as they arrive, not at the
// end of the stream; none when the request refuses gzip or says nothing; the client's pace followed through the
// compressor, and a client too slow cut.

const t = require('tap')
const http = require('node:http')
const zlib = require('node:zlib')
const { once } = require('node:events')
const { EventStreamWriter } = require('../../lib/entries/server.js')
const { serve, writerServer, rawGet, prng, bounded, deferred, macrotask, onceBounded, TIMEOUT } = require('../helpers/index.cjs')

const KiB = 1024

// GET with these headers through node:http's client; resolves with the response and the text its body decodes
// to so far (through gunzip when it is gzip), and a bounded wait for that text.
async function get (t, port, headers) {
  const req = http.get({ host: '127.0.0.1', port, path: '/', headers })
  t.teardown(() => req.destroy())
  const [res] = await onceBounded(req, 'response')
  const decoded = res.headers['content-encoding'] === 'gzip' ? res.pipe(zlib.createGunzip()) : res
  const body = { res, decoded, text: '', ended: false }
  const waiters = []
  const check = () => {
    for (let i = waiters.length - 1; i >= 0; i--) {
      if (waiters[i].predicate(body.text)) waiters.splice(i, 1)[0].resolve()
    }
  }
  decoded.setEncoding('utf8')
  decoded.on('data', (text) => { body.text += text; check() })
  decoded.on('end', () => { body.ended = true; check() })
  body.until = (predicate, what) => bounded(new Promise((resolve) => {
    waiters.push({ predicate, resolve })
    check()
  }), () => `${what}; decoded so far: ${JSON.stringify(body.text)}`, TIMEOUT)
  return body
}

t.test('gzip when the request accepts it: each tick\'s events decoded as they arrive', async (t) => {
  const srv = await writerServer(t, (req, res) => new EventStreamWriter(res, { heartbeat: 0, compress: true }))
  const client = await get(t, srv.port, { 'accept-encoding': 'gzip, deflate, br' })
  const writer = await srv.writer(0)
  t.equal(client.res.headers['content-encoding'], 'gzip')
  t.equal(client.res.headers.vary, 'accept-encoding')
  t.equal(client.res.headers['content-type'], 'text/event-stream')
  writer.send({ id: '1', data: 'one' })
  await client.until((text) => text === 'id: 1\ndata: one\n\n', 'the first event, while the stream goes on')
  writer.send({ id: '2', data: 'two' })
  writer.send({ id: '3', data: 'three\nlines' })
  await client.until((text) => text.endsWith('data: lines\n\n'), 'the second tick\'s events')
  t.equal(client.ended, false, 'all of it before the end of the stream')
  writer.close()
  await client.until(() => client.ended, 'the end, gzip\'s trailer checked by gunzip')
  t.equal(client.text, 'id: 1\ndata: one\n\nid: 2\ndata: two\n\nid: 3\ndata: three\ndata: lines\n\n')
  await bounded(writer.closed, 'closed')
})

t.test('Accept-Encoding: which requests get gzip', async (t) => {
  const cases = [
    ['gzip', true],
    ['GZIP;q=0.5', true],
    ['x-gzip', true],
    ['deflate, gzip ; q=1.0', true],
    ['gzip;q=0', false],
    ['gzip; q=0.000, deflate', false],
    ['deflate, br', false],
    [undefined, false]
  ]
  const srv = await writerServer(t, (req, res) => new EventStreamWriter(res, { heartbeat: 0, compress: true }))
  for (const [i, [accept, gzip]] of cases.entries()) {
    const client = await get(t, srv.port, accept === undefined ? {} : { 'accept-encoding': accept })
    const writer = await srv.writer(i)
    t.equal(client.res.headers['content-encoding'], gzip ? 'gzip' : undefined, `Accept-Encoding: ${accept}`)
    writer.send({ data: 'x' })
    writer.close()
    await client.until(() => client.ended, 'the end')
    t.equal(client.text, 'data: x\n\n', `${accept}: the body decodes`)
  }
  // compress: false (the default) whatever the request accepts.
  const plain = await writerServer(t, (req, res) => new EventStreamWriter(res, { heartbeat: 0 }))
  const client = await get(t, plain.port, { 'accept-encoding': 'gzip' })
  t.equal(client.res.headers['content-encoding'], undefined, 'no gzip unless asked for')
})

t.test('the client leaves: the compressor goes with the response', async (t) => {
  const srv = await writerServer(t, (req, res) => new EventStreamWriter(res, { heartbeat: 0, compress: true }))
  const client = await get(t, srv.port, { 'accept-encoding': 'gzip' })
  const writer = await srv.writer(0)
  writer.send({ data: 'hello' })
  await client.until((text) => text.includes('hello'), 'the event')
  client.res.destroy()
  await bounded(writer.closed, 'closed')
  t.equal(writer.signal.reason.code, 'ERR_EVENTSOURCE_WRITER_CLOSED')
  t.equal(writer.send({ data: 'more' }), false)
})

t.test('a client gone before the writer was made: closed at once, no compressor made', async (t) => {
  const made = deferred()
  const srv = await serve(t, (req, res) => {
    // A handler that awaited something first, while its client left.
    res.once('close', () => {
      const writer = new EventStreamWriter(res, { heartbeat: 1000, compress: true })
      made.resolve({ writer, piped: res.listenerCount('unpipe') })
    })
  })
  const req = http.get({ host: '127.0.0.1', port: srv.port, path: '/', headers: { 'accept-encoding': 'gzip' } })
  req.on('error', () => {})
  await srv.request(0)
  req.destroy()
  const { writer, piped } = await bounded(made.promise, 'the writer')
  t.ok(writer.signal.aborted, 'closed at once')
  t.match(writer.signal.reason.message, /the client left/)
  t.equal(piped, 0, 'no gzip stream piped into the response')
  t.equal(writer.send({ data: 'x' }), false)
  writer.close()
  await bounded(writer.closed, 'closed')
})

// Events a compressor cannot shrink much: random letters.
function noise (rng, bytes) {
  let text = ''
  while (text.length < bytes) text += rng.next().toString(36).slice(2)
  return text.slice(0, bytes)
}

t.test('through gzip, send() says when to wait and ready when the client has read', async (t) => {
  const srv = await writerServer(t, (req, res) => new EventStreamWriter(res, { heartbeat: 0, compress: true, maxBufferedBytes: Infinity }))
  const client = await rawGet(t, srv.port, { headers: { 'Accept-Encoding': 'gzip' }, read: false })
  const writer = await srv.writer(0)
  const rng = prng(7)
  let sent = 0
  while (writer.send({ id: `${++sent}`, data: noise(rng, 64 * KiB) })) {
    if (sent > 1000) throw new Error('send() never said to wait')
    await macrotask()
  }
  const ready = writer.ready
  client.socket.resume()
  await bounded(ready, 'ready once the client reads')
  writer.send({ id: 'last', data: 'last' })
  writer.close()
  await client.until((r) => r.ended, 'the end')
  const ids = zlib.gunzipSync(client.body).toString().match(/^id: .*$/gm)
  t.same(ids, [...Array.from({ length: sent }, (_, i) => `id: ${i + 1}`), 'id: last'], `${sent} events, once each, in order`)
})

t.test('through gzip, a client past maxBufferedBytes is cut', async (t) => {
  const MAX = 256 * KiB
  const srv = await writerServer(t, (req, res) => new EventStreamWriter(res, { heartbeat: 0, compress: true, maxBufferedBytes: MAX }))
  const client = await rawGet(t, srv.port, { headers: { 'Accept-Encoding': 'gzip' }, read: false })
  const writer = await srv.writer(0)
  const closed = once(srv.requests[0].socket, 'close')
  const rng = prng(8)
  let sent = 0
  while (!writer.signal.aborted && sent < 2048) {
    writer.send({ data: noise(rng, 16 * KiB) })
    sent++
    await macrotask()
  }
  t.equal(writer.signal.reason?.code, 'ERR_EVENTSOURCE_CLIENT_TOO_SLOW', `cut after ${sent} events of 16 KiB`)
  await bounded(closed, 'the server to close the connection')
  client.socket.resume()
  await client.closed()
  t.equal(client.ended, false, 'cut, not ended')
  // What did arrive is whole events, decodable up to the cut.
  const text = zlib.gunzipSync(client.body, { finishFlush: zlib.constants.Z_SYNC_FLUSH }).toString()
  t.ok(text.startsWith('data: '), `${text.length} characters decoded`)
})
