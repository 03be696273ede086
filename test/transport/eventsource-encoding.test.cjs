'use strict'

// Content-Encoding: gzip, deflate (zlib-wrapped and raw), br, in any combination, decoded as fetch
// decodes them; a body that cannot be decoded is a network error (the connection is reestablished).
// https://fetch.spec.whatwg.org/#http-network-fetch (content codings)

const t = require('tap')
const zlib = require('node:zlib')
const { EventSource } = require('../../')
const { Agent } = require('undici')
const { serve, sse, record, open, tlsFixture, deferred, onceBounded, runChild } = require('../helpers/index.cjs')

const { CONNECTING, CLOSED } = EventSource
// zstd where Node's zlib has it (22.15, 23.8 and later), as lib/transport/codings.js says.
const ZSTD = typeof process.versions.zstd === 'string'
const NO_ZSTD = !ZSTD && `zstd needs Node 22.15 or later (this is ${process.version})`
const BODY = 'id: 1\ndata: first é\n\nevent: two\ndata: second\n\n'

const encoders = {
  gzip: zlib.gzipSync,
  'x-gzip': zlib.gzipSync,
  deflate: zlib.deflateSync,
  br: zlib.brotliCompressSync,
  zstd: (b) => zlib.zstdCompressSync(b),
  identity: (b) => b
}

// Applies the codings in the order they are listed, as a server would.
function encode (codings, text) {
  let body = Buffer.from(text)
  for (const coding of codings) body = encoders[coding.trim().toLowerCase()](body)
  return body
}

// Serves `body` with a Content-Encoding and checks the two events of BODY arrive decoded.
async function expectDecoded (t, contentEncoding, body) {
  const srv = await serve(t, (req, res) => {
    sse(res, undefined, { headers: { 'content-encoding': contentEncoding } })
    res.write(body)
  })
  const rec = record(srv.eventSource('/'), ['open', 'message', 'two', 'error'])
  await rec.first(['two', 'error'])
  t.same(rec.events.map((e) => `${e.type}:${e.data}`), ['open:undefined', 'message:first é', 'two:second'],
    `Content-Encoding: ${contentEncoding}`)
  t.equal(rec.events[1].lastEventId, '1')
}

// One compressed stream, flushed after each event: the second event is only compressed once the first
// has been dispatched, so a decoder that waited for more input (or the end) would never deliver the first.
async function expectStreamed (t, coding, createCompressor, flushKind) {
  const second = deferred()
  const srv = await serve(t, (req, res) => {
    sse(res, undefined, { headers: { 'content-encoding': coding } })
    const compressor = createCompressor()
    compressor.on('data', (chunk) => res.write(chunk))
    compressor.write('data: first\n\n')
    compressor.flush(flushKind)
    second.promise.then(() => {
      compressor.write('data: second\n\n')
      compressor.flush(flushKind)
    })
  })
  const rec = record(srv.eventSource('/'))
  t.equal((await rec.wait('message')).data, 'first')
  second.resolve()
  t.equal((await rec.wait('message', 2)).data, 'second')
}

t.test('the request advertises the codings it decodes, br over https: only, hop by hop, as fetch does', async (t) => {
  const { key, cert } = tlsFixture()
  const secure = await serve(t, (req, res) => sse(res, 'data: x\n\n', { end: false }), { tls: { key, cert } })
  const plain = await serve(t, (req, res) => req.url === '/up'
    ? res.writeHead(302, { location: secure.url('/') }).end()
    : sse(res, 'data: x\n\n', { end: false }))
  const dispatcher = new Agent({ connect: { ca: cert } })
  t.teardown(() => dispatcher.close())
  await record(open(t, plain.url('/'), { dispatcher })).wait('message')
  t.equal(plain.requests[0].headers['accept-encoding'], 'gzip, deflate', 'http:')
  await record(open(t, plain.url('/up'), { dispatcher })).wait('message')
  t.equal(plain.requests[1].headers['accept-encoding'], 'gzip, deflate', 'the http: hop of an attempt')
  t.equal(secure.requests[0].headers['accept-encoding'], ZSTD ? 'br, gzip, deflate, zstd' : 'br, gzip, deflate',
    'its https: hop (zstd where zlib has it)')
  await record(open(t, secure.url('/'), { dispatcher, headers: { 'accept-encoding': 'gzip' } })).wait('message')
  t.equal(secure.requests[1].headers['accept-encoding'], 'gzip', 'a user\'s own value stays')
})

t.test('single codings', async (t) => {
  for (const coding of ['gzip', 'x-gzip', 'deflate', 'br', 'GZIP', 'Br', ' gzip ']) {
    await expectDecoded(t, coding, encode([coding], BODY))
  }
})

t.test('zstd, alone and with the others', { skip: NO_ZSTD }, async (t) => {
  for (const codings of [['zstd'], ['gzip', 'zstd'], ['zstd', 'br'], ['zstd', 'zstd']]) {
    await expectDecoded(t, codings.join(', '), encode(codings, BODY))
  }
})

t.test('zstd events are delivered as their compressed bytes arrive', { skip: NO_ZSTD }, async (t) => {
  await expectStreamed(t, 'zstd', () => zlib.createZstdCompress(), zlib.constants.ZSTD_e_flush)
})

t.test('a zstd frame that asks for a window over 8 MiB is not decoded: a decoding error', { skip: NO_ZSTD }, async (t) => {
  // RFC 9659: the zstd content coding's window is at most 8 MiB; zstd's own default would take 128 MiB.
  const frame = (windowLog) => new Promise((resolve) => {
    const chunks = []
    // Streamed, so that the frame declares its window rather than its content size.
    const zstd = zlib.createZstdCompress({ params: { [zlib.constants.ZSTD_c_windowLog]: windowLog } })
    zstd.on('data', (chunk) => chunks.push(chunk))
    zstd.on('end', () => resolve(Buffer.concat(chunks)))
    zstd.end(BODY)
  })
  await expectDecoded(t, 'zstd', await frame(23))
  const body = await frame(24)
  const srv = await serve(t, (req, res) => {
    sse(res, undefined, { headers: { 'content-encoding': 'zstd' } })
    res.end(body)
  })
  const es = srv.eventSource('/', { reconnectionTime: 60_000 })
  const error = await record(es).wait('error')
  t.same([error.event.code, error.readyState], ['ERR_EVENTSOURCE_DECODING', CONNECTING])
  t.match(error.event.cause.code, /^ZSTD_error_frameParameter_windowTooLarge$/)
  es.close()
})

t.test('raw deflate (no zlib header) is decoded too, as browsers do', async (t) => {
  await expectDecoded(t, 'deflate', zlib.deflateRawSync(Buffer.from(BODY)))
})

t.test('several codings are undone in reverse order', async (t) => {
  for (const codings of [['deflate', 'gzip'], ['gzip', 'br'], ['br', 'deflate'], ['gzip', 'gzip'], ['identity', 'gzip']]) {
    await expectDecoded(t, codings.join(', '), encode(codings, BODY))
  }
  // An inner raw deflate is always read as zlib: only the outermost coding's first byte can be seen.
  await expectDecoded(t, 'deflate, gzip', zlib.gzipSync(zlib.deflateSync(Buffer.from(BODY))))
})

t.test('bodies left as they are', async (t) => {
  // No coding, identity only, empty values; and an unknown coding, which fetch also leaves alone (zstd
  // where zlib cannot decode it).
  for (const value of ['identity', '', ' , ', 'identity, identity', 'compress', ...(ZSTD ? [] : ['zstd']), 'gzip, foo']) {
    await expectDecoded(t, value, Buffer.from(BODY))
  }
})

t.test('events are delivered as their compressed bytes arrive', async (t) => {
  await expectStreamed(t, 'gzip', () => zlib.createGzip(), zlib.constants.Z_SYNC_FLUSH)
})

t.test('brotli streams are delivered as they arrive', async (t) => {
  const next = deferred()
  const srv = await serve(t, (req, res) => {
    sse(res, undefined, { headers: { 'content-encoding': 'br' } })
    const br = zlib.createBrotliCompress()
    br.pipe(res)
    br.write('data: one\n\n')
    br.flush()
    next.promise.then(() => {
      br.write('data: two\n\n')
      br.flush()
    })
  })
  const rec = record(srv.eventSource('/'))
  t.equal((await rec.wait('message')).data, 'one')
  next.resolve()
  t.equal((await rec.wait('message', 2)).data, 'two')
})

t.test('the end of a compressed body reestablishes the connection', async (t) => {
  const srv = await serve(t, (req, res, i) => {
    sse(res, undefined, { headers: { 'content-encoding': 'gzip' } })
    res.end(zlib.gzipSync(`data: ${i}\n\n`))
  })
  const rec = record(srv.eventSource('/'))
  await rec.wait('message', 2)
  t.same(rec.types.slice(0, 5), ['open', 'message', 'error', 'open', 'message'])
  t.equal(rec.events[2].readyState, CONNECTING)
  t.equal(rec.events[2].event.code, 'ERR_EVENTSOURCE_STREAM_ENDED')
})

t.test('an empty compressed body ends the stream', async (t) => {
  const srv = await serve(t, (req, res, i) => {
    sse(res, undefined, { headers: { 'content-encoding': i === 0 ? 'gzip' : 'identity' } })
    if (i === 0) res.end()
    else res.write('data: after\n\n')
  })
  const rec = record(srv.eventSource('/'))
  await rec.wait('message')
  t.same(rec.types, ['open', 'error', 'open', 'message'])
  t.equal(rec.events[1].readyState, CONNECTING)
})

t.test('a corrupt body is a network error: the connection is reestablished', async (t) => {
  const corrupt = {
    'gzip with a bad header': [Buffer.from('this is not gzip at all\n\n'), 'gzip'],
    'gzip with a bad checksum': [(() => {
      const b = zlib.gzipSync('data: x\n\n')
      b[b.length - 6] ^= 0xff
      return b
    })(), 'gzip'],
    'deflate garbage': [Buffer.from([0x78, 0x9c, 0xff, 0xff, 0xff, 0xff, 0x00]), 'deflate'],
    'brotli garbage': [Buffer.from('\xff\xff\xff\xff not brotli', 'latin1'), 'br'],
    ...(ZSTD ? { 'zstd garbage': [Buffer.from('\x28\xb5\x2f\xfd not a zstd frame', 'latin1'), 'zstd'] } : {}),
    'the inner coding corrupt': [zlib.gzipSync(Buffer.from('not deflate data at all')), 'deflate, gzip']
  }
  for (const [name, [body, coding]] of Object.entries(corrupt)) {
    const srv = await serve(t, (req, res, i) => {
      if (i === 0) {
        sse(res, undefined, { headers: { 'content-encoding': coding } })
        res.end(body)
      } else {
        sse(res, 'data: recovered\n\n', { end: false })
      }
    })
    const es = srv.eventSource('/')
    const rec = record(es)
    await rec.first(['message'])
    t.same(rec.types, ['open', 'error', 'open', 'message'], `${name}: open, error, reconnection`)
    t.equal(rec.events[1].readyState, CONNECTING, `${name}: reestablished, not failed`)
    t.equal(rec.events[1].event.code, 'ERR_EVENTSOURCE_DECODING', `${name}: error code`)
    t.type(rec.events[1].event.cause, Error, `${name}: the zlib error is the cause`)
    t.equal(rec.data()[0], 'recovered')
    es.close()
  }
})

t.test('events decoded before the corruption are delivered', async (t) => {
  // A gzip stream flushed after one event, then garbage where the rest of the stream should be. The
  // garbage is sent once the event has been dispatched: Node's zlib drops the output of a write that
  // fails, so an event sharing a network chunk with the corruption would be lost.
  const sent = deferred()
  const srv = await serve(t, (req, res, i) => {
    sse(res, undefined, { headers: { 'content-encoding': 'gzip' } })
    if (i > 0) return
    const gzip = zlib.createGzip()
    gzip.on('data', (chunk) => res.write(chunk))
    gzip.write('data: intact\n\n')
    gzip.flush(zlib.constants.Z_SYNC_FLUSH)
    sent.promise.then(() => res.end(Buffer.alloc(16, 0xff)))
  })
  const rec = record(srv.eventSource('/'))
  t.equal((await rec.wait('message')).data, 'intact')
  sent.resolve()
  const error = await rec.wait('error')
  t.same(rec.types, ['open', 'message', 'error'])
  t.equal(error.event.code, 'ERR_EVENTSOURCE_DECODING')
  t.equal(error.readyState, CONNECTING)
})

t.test('close() while decoding stops everything', async (t) => {
  t.test('inside onmessage, with more events in the same decoded chunk', async (t) => {
    const srv = await serve(t, (req, res) => {
      sse(res, undefined, { headers: { 'content-encoding': 'gzip' } })
      res.write(zlib.gzipSync('data: 1\n\ndata: 2\n\ndata: 3\n\n'))
    })
    const es = srv.eventSource('/')
    const rec = record(es)
    es.onmessage = () => es.close()
    await rec.wait('message')
    await onceBounded(srv.requests[0].socket, 'close')
    t.same(rec.types, ['open', 'message'])
    t.equal(es.readyState, CLOSED)
  })

  t.test('inside onopen, before any compressed byte arrived', async (t) => {
    const srv = await serve(t, (req, res) => {
      sse(res, undefined, { headers: { 'content-encoding': 'br' } })
    })
    const es = srv.eventSource('/')
    const rec = record(es)
    es.onopen = () => es.close()
    await rec.wait('open')
    await onceBounded(srv.requests[0].socket, 'close')
    t.same(rec.types, ['open'])
  })
})

t.test('at most 5 codings are decoded: a longer chain fails the connection', async (t) => {
  await expectDecoded(t, 'gzip, br, deflate, gzip, br', encode(['gzip', 'br', 'deflate', 'gzip', 'br'], BODY))
  if (ZSTD) await expectDecoded(t, 'zstd, gzip, zstd, br, zstd', encode(['zstd', 'gzip', 'zstd', 'br', 'zstd'], BODY))
  // identity is no decoder and does not count.
  await expectDecoded(t, 'identity, gzip, identity, gzip, gzip, gzip, gzip', encode(['gzip', 'gzip', 'gzip', 'gzip', 'gzip'], BODY))
  for (const count of [6, 5000]) {
    const codings = Array(count).fill('br')
    // Only the first six layers are applied: the header alone is what must be refused, before any
    // decoder is made for it (5,000 of them took about 118 MiB).
    const body = encode(codings.slice(0, 6), BODY)
    const srv = await serve(t, (req, res) => {
      // Without spaces, 5,000 of them fit in undici's 16 KiB limit on a response head.
      sse(res, undefined, { headers: { 'content-encoding': codings.join(',') } })
      res.end(body)
    })
    const es = srv.eventSource('/')
    const rec = record(es, ['open', 'message', 'two', 'error'])
    const error = await rec.wait('error')
    t.same(rec.types, ['error'], `${count} codings: no open, no event, one error`)
    t.equal(error.readyState, CLOSED, `${count} codings: failed, not reestablished`)
    t.equal(es.readyState, CLOSED)
    t.equal(error.event.code, 'ERR_EVENTSOURCE_TOO_MANY_CODINGS')
    t.equal(error.event.message, `The response lists ${count} content codings; at most 5 are decoded`)
    t.equal(error.event.status, 200)
    t.equal(srv.requests.length, 1, `${count} codings: no second request`)
  }
})

// Cold start: node:zlib is loaded with the first encoded body, not with the library (lib/transport/content-decoding.js).
t.test('node:zlib is loaded by the first encoded bytes, not before', async (t) => {
  const code = `
    const has = () => process.moduleLoadList.includes('NativeModule zlib')
    const { ContentDecoder } = require('./lib/transport/content-decoding')
    const decoder = new ContentDecoder(['gzip'], { onData () {}, onEnd () {}, onError () {}, onDrain () {} })
    const before = has()
    decoder.write(Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3]))
    const after = has()
    decoder.destroy()
    console.log(JSON.stringify({ before, after }))`
  const cwd = require('node:path').join(__dirname, '..', '..')
  const { code: status, report, stderr } = await runChild(t, ['-e', code], { cwd, isolate: true }).exited()
  t.equal(status, 0, stderr)
  t.same(report, { before: false, after: true })
})
