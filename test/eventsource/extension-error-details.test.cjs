'use strict'

// EventSourceErrorEvent: the `error` events say why they fired (message, code, cause), what the
// response was (status, statusText, headers) and what comes next (willReconnect, reconnectDelay).

const t = require('tap')
const { EventSource, EventSourceErrorEvent } = require('../../')
const { SSE_HEADERS, serve, open, record, closedPort } = require('../helpers/index.cjs')

t.test('EventSourceErrorEvent is an Event with its own fields', async (t) => {
  const event = new EventSourceErrorEvent('error', {
    message: 'm',
    code: 'ERR_X',
    cause: new Error('c'),
    status: 503,
    statusText: 'Busy',
    headers: { 'retry-after': '5' },
    willReconnect: true,
    reconnectDelay: 5000,
    cancelable: true
  })
  t.ok(event instanceof Event)
  t.equal(event.type, 'error')
  t.equal(event.cancelable, true, 'EventInit members are honoured')
  t.same([event.message, event.code, event.cause.message, event.status, event.statusText, event.willReconnect, event.reconnectDelay],
    ['m', 'ERR_X', 'c', 503, 'Busy', true, 5000])
  t.ok(event.headers instanceof Headers)
  t.equal(event.headers.get('Retry-After'), '5')

  const bare = new EventSourceErrorEvent('error')
  t.same([bare.message, bare.code, bare.cause, bare.status, bare.statusText, bare.headers, bare.willReconnect, bare.reconnectDelay],
    [undefined, undefined, undefined, undefined, undefined, undefined, false, undefined])
  t.equal(new EventSourceErrorEvent('error', { headers: new Headers([['a', '1']]) }).headers.get('a'), '1')
})

/** The first error event of an EventSource on a server answering with `handler`, and its readyState. */
async function firstError (t, handler, init = { reconnectionTime: 0 }) {
  const server = await serve(t, handler)
  const es = open(t, server.url(), init)
  let onerror = null
  es.onerror = (event) => { onerror ??= event }
  const rec = record(es)
  const { event } = await rec.wait('error')
  t.equal(onerror, event, 'onerror receives the same event')
  t.ok(event instanceof EventSourceErrorEvent && event instanceof Event, 'an EventSourceErrorEvent, an Event')
  t.equal(event.isTrusted, false)
  return { event, readyState: rec.events.find((e) => e.type === 'error').readyState, server, es }
}

t.test('401 with WWW-Authenticate: CLOSED, and the challenge is visible', async (t) => {
  const { event, readyState, server } = await firstError(t, (req, res) => {
    res.writeHead(401, { 'www-authenticate': 'Bearer realm="events", error="invalid_token"', 'content-type': 'application/json' })
    res.end('{"error":"invalid_token"}')
  })
  t.equal(readyState, EventSource.CLOSED)
  t.equal(event.code, 'ERR_EVENTSOURCE_BAD_STATUS')
  t.equal(event.message, 'The server answered 401 Unauthorized: an event stream needs status 200')
  t.equal(event.status, 401)
  t.equal(event.statusText, 'Unauthorized')
  t.ok(event.headers instanceof Headers)
  t.equal(event.headers.get('www-authenticate'), 'Bearer realm="events", error="invalid_token"')
  t.equal(event.headers.get('content-type'), 'application/json')
  t.equal(event.willReconnect, false)
  t.equal(event.reconnectDelay, undefined)
  // No underlying error: the cause is the error that failed the connection, with the same details.
  t.ok(event.cause instanceof Error)
  t.equal(event.cause.code, 'ERR_EVENTSOURCE_BAD_STATUS')
  t.equal(event.cause.status, 401)
  t.equal(event.cause.url, server.url())
  t.equal(String(event.cause), `Error [ERR_EVENTSOURCE_BAD_STATUS]: ${event.message}`)
})

t.test('500 with its own reason phrase', async (t) => {
  const { event, readyState } = await firstError(t, (req, res) => {
    res.statusMessage = 'Database On Fire'
    res.writeHead(500, { 'x-request-id': 'r-1' }).end()
  })
  t.equal(readyState, EventSource.CLOSED)
  t.equal(event.status, 500)
  t.equal(event.statusText, 'Database On Fire')
  t.equal(event.message, 'The server answered 500 Database On Fire: an event stream needs status 200')
  t.equal(event.headers.get('x-request-id'), 'r-1')
  t.equal(event.willReconnect, false)
})

t.test('a wrong Content-Type', async (t) => {
  const { event, readyState } = await firstError(t, (req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<p>hi'))
  t.equal(readyState, EventSource.CLOSED)
  t.equal(event.code, 'ERR_EVENTSOURCE_BAD_CONTENT_TYPE')
  t.equal(event.message, 'The server answered with Content-Type "text/html; charset=utf-8": an event stream needs text/event-stream')
  t.equal(event.status, 200)
  t.equal(event.statusText, 'OK')
  t.equal(event.headers.get('content-type'), 'text/html; charset=utf-8')
  t.equal(event.willReconnect, false)

  const none = await firstError(t, (req, res) => res.writeHead(200).end())
  t.equal(none.event.message, 'The server answered with Content-Type "": an event stream needs text/event-stream')
})

t.test('a refused connection: a network error, retried, with the socket error as cause', async (t) => {
  const port = await closedPort()
  const es = open(t, `http://127.0.0.1:${port}/path`, { reconnectionTime: 7 })
  const rec = record(es)
  const { event } = await rec.wait('error')
  t.equal(rec.events[0].readyState, EventSource.CONNECTING)
  t.equal(event.code, 'ERR_EVENTSOURCE_NETWORK')
  t.equal(event.message, `The connection to http://127.0.0.1:${port} failed: connect ECONNREFUSED 127.0.0.1:${port}`)
  t.equal(event.willReconnect, true)
  t.equal(event.reconnectDelay, 7)
  t.equal(event.status, undefined)
  t.equal(event.statusText, undefined)
  t.equal(event.headers, undefined)
  // The cause is Node's own socket error, as net.connect reports it.
  t.ok(event.cause instanceof Error)
  t.equal(event.cause.code, 'ECONNREFUSED')
  t.equal(event.cause.syscall, 'connect')
  t.equal(event.cause.address, '127.0.0.1')
  t.equal(event.cause.port, port)
  await rec.wait('error', 2)
  t.equal(rec.of('error')[1].code, 'ERR_EVENTSOURCE_NETWORK', 'and again')
})

t.test('a connection dropped mid-stream: undici\'s socket error as cause', async (t) => {
  const server = await serve(t, (req, res, i) => {
    res.writeHead(200, SSE_HEADERS)
    if (i === 0) res.write('data: x\n\n', () => res.socket.destroy())
  })
  const es = open(t, server.url(), { reconnectionTime: 3 })
  const rec = record(es)
  const { event } = await rec.wait('error')
  t.same(rec.types.slice(0, 3), ['open', 'message', 'error'])
  t.equal(rec.events[2].readyState, EventSource.CONNECTING)
  t.equal(event.code, 'ERR_EVENTSOURCE_NETWORK')
  t.match(event.message, `The connection to ${server.origin} failed: `)
  t.equal(event.cause.code, 'UND_ERR_SOCKET', 'undici\'s SocketError')
  t.equal(event.willReconnect, true)
  t.equal(event.reconnectDelay, 3)
})

t.test('the server ending the stream', async (t) => {
  const { event, readyState } = await firstError(t, (req, res) => res.writeHead(200, SSE_HEADERS).end('data: x\n\n'), { reconnectionTime: 4 })
  t.equal(readyState, EventSource.CONNECTING)
  t.equal(event.code, 'ERR_EVENTSOURCE_STREAM_ENDED')
  t.equal(event.message, 'The server ended the event stream')
  t.equal(event.cause.code, 'ERR_EVENTSOURCE_STREAM_ENDED', 'nothing underneath: the error itself')
  t.equal(event.status, undefined)
  t.equal(event.willReconnect, true)
  t.equal(event.reconnectDelay, 4)
})

t.test('an event over maxEventSize: the parser\'s RangeError', async (t) => {
  const { event, readyState } = await firstError(t, (req, res) => res.writeHead(200, SSE_HEADERS).end(`data: ${'x'.repeat(100)}\n\n`),
    { maxEventSize: 16 })
  t.equal(readyState, EventSource.CLOSED)
  t.equal(event.code, 'ERR_EVENTSOURCE_EVENT_TOO_LARGE')
  t.equal(event.message, 'An event exceeded the maximum event size of 16 bytes (maxEventSize)')
  t.ok(event.cause instanceof RangeError)
  t.equal(event.cause.code, 'ERR_EVENTSOURCE_EVENT_TOO_LARGE')
  t.equal(event.willReconnect, false)
})

t.test('a non-http URL scheme', async (t) => {
  const es = open(t, 'ftp://127.0.0.1/x', {})
  const rec = record(es)
  const { event } = await rec.wait('error')
  t.equal(rec.events[0].readyState, EventSource.CLOSED)
  t.equal(event.code, 'ERR_EVENTSOURCE_UNSUPPORTED_SCHEME')
  t.equal(event.cause.url, 'ftp://127.0.0.1/x')
})
