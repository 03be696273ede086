'use strict'

// https: a TLS failure is a network error whose cause carries the TLS code; a dispatcher that trusts
// the certificate (init.dispatcher) connects to the same server.

const t = require('tap')
const { Agent } = require('undici')
const { EventSource } = require('../../')
const { SSE_HEADERS, serve, open, record, tlsFixture } = require('../helpers/index.cjs')

// Self-signed, for 127.0.0.1 and localhost; see test/fixtures/tls/README.md.
const { key, cert } = tlsFixture()

function handler (req, res) {
  res.writeHead(200, SSE_HEADERS).write('id: 1\ndata: secure\n\n')
}

t.test('a self-signed certificate: a network error with the TLS code, retried', async (t) => {
  const server = await serve(t, handler, { tls: { key, cert } })
  t.match(server.origin, /^https:/)
  const es = open(t, server.url('/events'), { reconnectionTime: 5 })
  const rec = record(es)
  const { event } = await rec.wait('error')
  t.equal(rec.events[0].readyState, EventSource.CONNECTING)
  t.equal(event.code, 'ERR_EVENTSOURCE_NETWORK')
  // Node 24 appends a hint about --use-system-ca to the TLS message.
  t.ok(event.message.startsWith(`The connection to ${server.origin} failed: self-signed certificate`), event.message)
  t.equal(event.willReconnect, true, 'a TLS failure is a network error: the standard reconnects')
  t.equal(event.reconnectDelay, 5)
  t.equal(event.status, undefined)
  t.ok(event.cause instanceof Error)
  t.equal(event.cause.code, 'DEPTH_ZERO_SELF_SIGNED_CERT')
  t.equal(server.requests.length, 0, 'no request got through')
  await rec.wait('error', 2)
  t.equal(rec.of('error')[1].event.cause.code, 'DEPTH_ZERO_SELF_SIGNED_CERT', 'and again on the retry')
})

t.test('the same server through a dispatcher that trusts the certificate', async (t) => {
  const server = await serve(t, handler, { tls: { key, cert } })
  const dispatcher = new Agent({ connect: { ca: cert } })
  t.teardown(() => dispatcher.close())
  const es = open(t, server.url('/events'), { dispatcher })
  const rec = record(es)
  const { event: message } = await rec.wait('message')
  t.same(rec.types, ['open', 'message'])
  t.equal(message.data, 'secure')
  t.equal(message.origin, server.origin)
  t.equal(server.requests[0].socket.encrypted, true, 'over TLS')
})

t.test('the certificate does not name the host: ERR_TLS_CERT_ALTNAME_INVALID', async (t) => {
  const server = await serve(t, handler, { tls: { key, cert } })
  // Trusted, but asked for by another name: the TLS layer checks it against the certificate's names.
  const dispatcher = new Agent({ connect: { ca: cert, servername: 'example.com' } })
  t.teardown(() => dispatcher.close())
  const es = open(t, server.url('/'), { dispatcher, reconnectionTime: 60000 })
  const { event } = await record(es).wait('error')
  t.equal(event.code, 'ERR_EVENTSOURCE_NETWORK')
  t.equal(event.cause.code, 'ERR_TLS_CERT_ALTNAME_INVALID')
})
