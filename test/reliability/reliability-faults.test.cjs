'use strict'

// Faults a server or the network can throw at an EventSource, each on a real loopback server: a reset
// or a clean close in the middle of an event, line or UTF-8 character; silence; bursts of 5xx; a
// redirect loop; a host name that does not resolve; an untrusted certificate; a one-byte drip. Each
// case ends in the state the standard (or the documented extension policy) prescribes, with exactly
// the events it prescribes: a partial event is never dispatched, and a reconnection resumes from the
// last complete event (Last-Event-ID).
// https://html.spec.whatwg.org/multipage/server-sent-events.html#sse-processing-model

const t = require('tap')
const { Agent } = require('undici')
const { EventSource } = require('../../')
const {
  bounded, deferred, serve, sse, rawServer, record, open, loopbackLookup, tlsFixture, reconnectionCycle
} = require('../helpers/index.cjs')

const { CONNECTING, OPEN, CLOSED } = EventSource

/** Bytes from strings (UTF-8) and arrays of raw byte values, so invalid or cut UTF-8 can be written. */
const bytes = (...parts) => Buffer.concat(parts.map((p) => Buffer.from(p)))

function agent (t, options) {
  const dispatcher = new Agent(options)
  t.teardown(() => dispatcher.close())
  return dispatcher
}

t.test('a reset in the middle of an event: the partial event is dropped, Last-Event-ID is the last complete one', async (t) => {
  // Each cut is written in the same chunk as a complete event `id: 1`, so by the time the client
  // dispatches that event, the partial bytes that follow are in its parser. Only then is the socket
  // reset (RST) or destroyed (FIN in the middle of a chunked body).
  const cuts = [
    { name: 'mid-UTF-8 character of a data line', partial: bytes('id: 2\ndata: caf', [0xc3]) },
    { name: 'mid 4-byte UTF-8 character of an id line', partial: bytes('data: x\nid: 2', [0xf0, 0x9f, 0x98]) },
    { name: 'after the id and data lines, before the blank line', partial: bytes('id: 2\ndata: whole line\n') },
    { name: 'between the CR and LF of a data line', partial: bytes('id: 2\r\ndata: x\r') },
    { name: 'after an event field with no value', partial: bytes('id: 2\nevent: later\ndata\n') },
    { name: 'in the middle of a BOM-less field name', partial: bytes('id: 2\nda') }
  ]
  for (const kill of ['reset', 'destroy']) {
    for (const cut of cuts) {
      t.test(`${kill}, ${cut.name}`, async (t) => {
        const delivered = deferred()
        const srv = await serve(t, (req, res, i) => {
          sse(res)
          if (i === 0) {
            res.write(Buffer.concat([bytes('id: 1\ndata: complete\n\n'), cut.partial]))
            delivered.promise.then(() => kill === 'reset' ? req.socket.resetAndDestroy() : req.socket.destroy())
          } else {
            res.write('id: 3\ndata: after é\n\n')
          }
        })
        const es = open(t, srv.url('/'), { reconnectionTime: 1 })
        const rec = record(es, ['open', 'message', 'later', 'error'])
        await rec.wait('message')
        delivered.resolve()
        await rec.wait('message', 2)
        t.same(rec.types, ['open', 'message', 'error', 'open', 'message'], 'no partial event, one error')
        t.same(rec.data(), ['complete', 'after é'])
        t.same(rec.of('message').map((e) => e.lastEventId), ['1', '3'])
        const error = rec.of('error')[0]
        t.equal(error.readyState, CONNECTING, 'reconnecting')
        t.equal(error.code, 'ERR_EVENTSOURCE_NETWORK')
        t.ok(error.event.cause instanceof Error, 'the network error is the cause')
        if (kill === 'reset') t.equal(error.event.cause.code, 'ECONNRESET')
        t.equal(error.event.willReconnect, true)
        t.equal(srv.requests[0].headers['last-event-id'], undefined)
        t.equal(srv.requests[1].headers['last-event-id'], '1', 'resumes after the last complete event')
        t.equal(es.readyState, OPEN)
      })
    }
  }
})

t.test('a reset right after the CR of the blank line: that CR completes the event', async (t) => {
  // CR alone is a line end, so `data: two\r\r` has its blank line; the LF that would follow never comes.
  const delivered = deferred()
  const srv = await serve(t, (req, res, i) => {
    sse(res)
    if (i === 0) {
      res.write('id: 1\r\ndata: one\r\n\r\nid: 2\r\ndata: two\r\n\r')
      delivered.promise.then(() => req.socket.resetAndDestroy())
    } else {
      res.write('id: 3\ndata: three\n\n')
    }
  })
  const rec = record(open(t, srv.url('/'), { reconnectionTime: 1 }))
  await rec.wait('message', 2)
  delivered.resolve()
  await rec.wait('message', 3)
  t.same(rec.types, ['open', 'message', 'message', 'error', 'open', 'message'])
  t.same(rec.data(), ['one', 'two', 'three'])
  t.equal(srv.requests[1].headers['last-event-id'], '2')
})

t.test('a clean close in the middle of a line', async (t) => {
  t.test('the chunked response ends: the unterminated line and its event are dropped', async (t) => {
    const srv = await serve(t, (req, res, i) => {
      if (i === 0) {
        sse(res, 'id: 1\ndata: one\n\nid: 2\ndata: tw')
      } else {
        sse(res)
        res.write('id: 3\ndata: three\n\n')
      }
    })
    const rec = record(open(t, srv.url('/'), { reconnectionTime: 1 }))
    await rec.wait('message', 2)
    t.same(rec.types, ['open', 'message', 'error', 'open', 'message'])
    t.same(rec.data(), ['one', 'three'])
    const error = rec.of('error')[0]
    t.equal(error.code, 'ERR_EVENTSOURCE_STREAM_ENDED')
    t.equal(error.readyState, CONNECTING)
    t.equal(srv.requests[1].headers['last-event-id'], '1')
  })

  t.test('a close-delimited body ends with FIN mid-line (raw net server)', async (t) => {
    // HTTP/1.1 without Content-Length or chunking: the body is whatever comes before the FIN.
    const srv = await rawServer(t, (head, i, socket) => {
      socket.write('HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n')
      if (i === 0) socket.end('id: 1\ndata: one\n\nid: 2\ndata: t')
      else socket.write('id: 3\ndata: three\n\n')
    })
    const rec = record(open(t, srv.url('/'), { reconnectionTime: 1 }))
    await rec.wait('message', 2)
    t.same(rec.types, ['open', 'message', 'error', 'open', 'message'])
    t.same(rec.data(), ['one', 'three'])
    t.equal(rec.of('error')[0].code, 'ERR_EVENTSOURCE_STREAM_ENDED')
    t.match(srv.heads[1], /\r\nlast-event-id: 1\r\n/i)
    t.equal(srv.connections, 2, 'a new connection for the reconnection')
  })
})

t.test('a server that goes silent', async (t) => {
  t.test('after an event: idleTimeout drops the connection and reconnects', async (t) => {
    const firstClosed = deferred()
    const srv = await serve(t, (req, res, i) => {
      sse(res)
      if (i === 0) {
        req.socket.once('close', firstClosed.resolve)
        res.write('id: 1\ndata: one\n\n')
        // ...and then nothing, with the socket open.
      } else {
        res.write('id: 2\ndata: two\n\n')
      }
    })
    const es = open(t, srv.url('/'), { idleTimeout: 300, reconnectionTime: 1 })
    const rec = record(es)
    await rec.wait('message', 2)
    t.equal(es.readyState, OPEN)
    t.same(rec.types, ['open', 'message', 'error', 'open', 'message'])
    const error = rec.of('error')[0]
    t.equal(error.code, 'ERR_EVENTSOURCE_IDLE_TIMEOUT')
    t.equal(error.readyState, CONNECTING)
    t.equal(error.event.willReconnect, true)
    t.equal(srv.requests[1].headers['last-event-id'], '1')
    await bounded(firstClosed.promise, 'the client to close the silent connection')
    t.pass('the silent connection was closed by the client')
  })

  t.test('before the response head: connectTimeout reconnects', async (t) => {
    const srv = await serve(t, (req, res, i) => {
      if (i === 0) return // never answers
      sse(res)
      res.write('data: late but fine\n\n')
    })
    const rec = record(open(t, srv.url('/'), { connectTimeout: 500, reconnectionTime: 1 }))
    await rec.wait('message')
    t.same(rec.types, ['error', 'open', 'message'])
    t.equal(rec.events[0].code, 'ERR_EVENTSOURCE_CONNECT_TIMEOUT')
    t.equal(rec.events[0].readyState, CONNECTING)
  })
})

t.test('bursts of 503', async (t) => {
  t.test('retryOnStatus [503]: every 503 reconnects, and the stream resumes', async (t) => {
    // Two bursts of three 503s, separated by a stream that delivers `id: 1` and ends.
    const plan = ['503', '503', '503', 'one', '503', '503', '503', 'two']
    const srv = await serve(t, (req, res, i) => {
      const step = plan[Math.min(i, plan.length - 1)]
      if (step === '503') {
        res.writeHead(503, { 'content-type': 'text/plain' }).end('busy')
      } else if (step === 'one') {
        sse(res, 'id: 1\ndata: one\n\n')
      } else {
        sse(res)
        res.write('id: 2\ndata: two\n\n')
      }
    })
    const es = open(t, srv.url('/'), { reconnect: { retryOnStatus: [503], delay: 5 } })
    const rec = record(es)
    await rec.wait('message', 2)
    t.same(rec.types, ['error', 'error', 'error', 'open', 'message', 'error',
      'error', 'error', 'error', 'open', 'message'])
    const errors = rec.of('error')
    t.same(errors.map((e) => e.event.status), [503, 503, 503, undefined, 503, 503, 503])
    t.same(errors.map((e) => e.code), ['ERR_EVENTSOURCE_BAD_STATUS', 'ERR_EVENTSOURCE_BAD_STATUS',
      'ERR_EVENTSOURCE_BAD_STATUS', 'ERR_EVENTSOURCE_STREAM_ENDED', 'ERR_EVENTSOURCE_BAD_STATUS',
      'ERR_EVENTSOURCE_BAD_STATUS', 'ERR_EVENTSOURCE_BAD_STATUS'])
    t.ok(errors.every((e) => e.readyState === CONNECTING && e.event.willReconnect), 'every one reconnects')
    t.ok(errors.every((e) => e.event.reconnectDelay === 5), 'after the policy delay')
    t.same(rec.data(), ['one', 'two'])
    t.same(srv.requests.map((r) => r.headers['last-event-id']),
      [undefined, undefined, undefined, undefined, '1', '1', '1', '1'], 'the ID survives the burst')
    t.equal(es.readyState, OPEN)
  })

  t.test('without the policy: the first 503 fails the connection for good', async (t) => {
    const srv = await serve(t, (req, res) => res.writeHead(503, { 'retry-after': '0' }).end('busy'))
    const es = open(t, srv.url('/'), { reconnectionTime: 5 })
    const rec = record(es)
    await rec.wait('error')
    await reconnectionCycle(t, 50)
    t.same(rec.types, ['error'], 'one error and nothing after')
    t.equal(rec.events[0].readyState, CLOSED)
    t.equal(rec.events[0].code, 'ERR_EVENTSOURCE_BAD_STATUS')
    t.equal(rec.events[0].event.status, 503)
    t.equal(rec.events[0].event.willReconnect, false)
    t.equal(es.readyState, CLOSED)
    t.equal(srv.requests.length, 1, 'no second request')
  })
})

t.test('a redirect loop fails with ERR_EVENTSOURCE_TOO_MANY_REDIRECTS', async (t) => {
  const srv = await serve(t, (req, res) => {
    res.writeHead(302, { location: req.url === '/a' ? '/b' : '/a' }).end()
  })
  const es = open(t, srv.url('/a'), { reconnectionTime: 5 })
  const rec = record(es)
  await rec.wait('error')
  await reconnectionCycle(t, 50)
  t.same(rec.types, ['error'], 'one error, no open')
  t.equal(rec.events[0].code, 'ERR_EVENTSOURCE_TOO_MANY_REDIRECTS')
  t.equal(rec.events[0].readyState, CLOSED)
  t.equal(es.readyState, CLOSED)
  t.equal(srv.requests.length, 21, 'the first request and the 20 redirects fetch follows; then no retry')
})

t.test('a host name that does not resolve: the error carries ENOTFOUND, and it reconnects', async (t) => {
  const srv = await serve(t, (req, res) => sse(res, 'data: resolved\n\n', { end: false }))
  const dns = loopbackLookup([])
  const es = open(t, `http://nowhere.invalid:${srv.port}/`, {
    dispatcher: agent(t, { connect: { lookup: dns.lookup } }),
    reconnectionTime: 5
  })
  const rec = record(es)
  await rec.wait('error', 3)
  // The name starts resolving (to 127.0.0.1): the next reconnection gets through.
  dns.resolvable.add('nowhere.invalid')
  await rec.wait('message')
  const errors = rec.of('error').slice(0, 3)
  t.same(errors.map((e) => e.code), Array(3).fill('ERR_EVENTSOURCE_NETWORK'))
  t.same(errors.map((e) => e.event.cause?.code), Array(3).fill('ENOTFOUND'), 'the cause is the lookup error')
  t.same(errors.map((e) => e.event.cause?.hostname), Array(3).fill('nowhere.invalid'))
  t.ok(errors.every((e) => e.readyState === CONNECTING && e.event.willReconnect), 'each one reconnects')
  t.same(rec.types.slice(-2), ['open', 'message'])
  t.equal(rec.of('message')[0].origin, `http://nowhere.invalid:${srv.port}`)
  t.ok(dns.calls.length >= 4 && dns.calls.every((name) => name === 'nowhere.invalid'), 'only that name was looked up')
  t.equal(srv.requests.length, 1)
  t.equal(srv.requests[0].headers.host, `nowhere.invalid:${srv.port}`)
})

t.test('TLS', async (t) => {
  const tls = tlsFixture()

  t.test('an untrusted certificate is a network error: it reconnects, with the TLS error as cause', async (t) => {
    const srv = await serve(t, (req, res) => sse(res), { tls })
    const handshakeErrors = []
    srv.server.on('tlsClientError', (err) => handshakeErrors.push(err))
    const es = open(t, srv.url('/'), { dispatcher: agent(t), reconnectionTime: 5 })
    const rec = record(es)
    await rec.wait('error', 2)
    es.close()
    const errors = rec.of('error')
    t.same(rec.types.slice(0, 2), ['error', 'error'], 'no open')
    t.same(errors.slice(0, 2).map((e) => e.code), ['ERR_EVENTSOURCE_NETWORK', 'ERR_EVENTSOURCE_NETWORK'])
    for (const e of errors.slice(0, 2)) {
      t.ok(['DEPTH_ZERO_SELF_SIGNED_CERT', 'SELF_SIGNED_CERT_IN_CHAIN', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE']
        .includes(e.event.cause?.code), `cause code ${e.event.cause?.code}`)
      t.equal(e.readyState, CONNECTING)
    }
    t.equal(srv.requests.length, 0, 'no HTTP request got through')
  })

  t.test('the same server trusted through Agent({ connect: { ca } }) works', async (t) => {
    const srv = await serve(t, (req, res) => sse(res, 'id: s1\ndata: secure\n\n', { end: false }), { tls })
    const es = open(t, srv.url('/'), { dispatcher: agent(t, { connect: { ca: tls.cert } }), reconnectionTime: 5 })
    const rec = record(es)
    await rec.wait('message')
    t.same(rec.types, ['open', 'message'])
    t.equal(rec.events[1].data, 'secure')
    t.equal(rec.events[1].origin, `https://127.0.0.1:${srv.port}`)
    t.equal(es.readyState, OPEN)
  })
})

t.test('a server that drips one byte every few milliseconds: every event arrives intact', async (t) => {
  // A BOM, CRLF, lone CR, multi-byte characters of 2, 3 and 4 bytes, a comment, a retry and a named
  // event: each byte is its own chunk of the chunked body, so every boundary falls between chunks.
  const stream = bytes([0xef, 0xbb, 0xbf],
    'id: 1\r\ndata: héllo € 𝄞\r\n\r\n',
    ': keep-alive\n',
    'retry: 1\nevent: custom\ndata: first\ndata: second\r\r',
    'id: 3\ndata:  leading space\n\n',
    'data: 😀 end\n\n')
  let writes = 0
  const srv = await serve(t, (req, res, i) => {
    sse(res)
    if (i > 0) return
    let pos = 0
    const drip = () => {
      if (res.destroyed || pos === stream.length) return
      res.write(stream.subarray(pos, ++pos))
      writes++
      setTimeout(drip, 2)
    }
    drip()
  })
  const es = open(t, srv.url('/'), { reconnectionTime: 5 })
  const rec = record(es, ['open', 'message', 'custom', 'error'])
  await rec.wait('message', 3, 30_000)
  t.equal(writes, stream.length, 'one write per byte')
  t.same(rec.types, ['open', 'message', 'custom', 'message', 'message'])
  t.same(rec.events.slice(1).map((e) => [e.type, e.data, e.lastEventId]), [
    ['message', 'héllo € 𝄞', '1'],
    ['custom', 'first\nsecond', '1'],
    ['message', ' leading space', '3'],
    ['message', '😀 end', '3']
  ])
  t.equal(es.readyState, OPEN)
})
