'use strict'

// What the response must look like: status 200 and a Content-Type whose essence is
// text/event-stream announce the connection; anything else fails it (readyState CLOSED, one error
// event, no reconnection). Non-http(s) URLs fail without a request.
// https://html.spec.whatwg.org/multipage/server-sent-events.html#sse-processing-model

const t = require('tap')
const { EventSource, EventSourceErrorEvent } = require('../../')
const { serve, sse, record, reconnectionCycle } = require('../helpers/index.cjs')

const { CONNECTING, OPEN, CLOSED } = EventSource

// Serves `respond(res)` to an EventSource and waits for its first open or error.
async function firstOutcome (t, respond) {
  const srv = await serve(t, (req, res) => respond(res))
  const es = srv.eventSource('/stream')
  const rec = record(es)
  return { srv, es, rec, first: await rec.first(['open', 'error']) }
}

// Serves `respond(res)` and expects the connection to fail.
async function expectFail (t, respond) {
  const { srv, es, rec, first } = await firstOutcome(t, respond)
  t.equal(first.type, 'error', 'the connection is not announced')
  t.equal(first.readyState, CLOSED, 'readyState is CLOSED when error is dispatched')
  await reconnectionCycle(t)
  t.equal(rec.count('error'), 1, 'exactly one error event')
  t.equal(rec.count('message'), 0, 'no message from the body')
  t.equal(srv.requests.length, 1, 'no further request')
  t.equal(es.readyState, CLOSED)
}

// Serves `respond(res)` and expects the connection to be announced and the body's event delivered.
async function expectOpen (t, respond) {
  const { rec, first } = await firstOutcome(t, respond)
  t.equal(first.type, 'open', 'the connection is announced')
  if (first.type !== 'open') return
  t.equal(first.readyState, OPEN, 'readyState is OPEN when open is dispatched')
  const message = await rec.wait('message')
  t.equal(message.data, 'ok')
  t.equal(message.readyState, OPEN)
}

t.test('status 200 with text/event-stream opens the connection', async (t) => {
  const srv = await serve(t, (req, res) => sse(res, 'data: ok\n\n', { end: false }))
  const es = srv.eventSource('/')
  t.equal(es.readyState, CONNECTING)
  const rec = record(es)
  await rec.wait('message')
  t.same(rec.types, ['open', 'message'])
  t.equal(rec.events[0].readyState, OPEN)
  t.equal(es.readyState, OPEN)
  const open = rec.events[0].event
  t.equal(open.constructor, Event, 'open is a plain Event')
  t.equal(open.bubbles, false)
  t.equal(open.cancelable, false)
  t.equal(open.target, es)
})

t.test('accepted Content-Type values', async (t) => {
  const types = ['text/event-stream; charset=utf-8', 'text/event-stream;charset="utf-8"', 'TEXT/EVENT-STREAM',
    'Text/Event-Stream; Foo=Bar', 'text/event-stream ; q=1', 'text/event-stream;']
  for (const type of types) {
    t.test(JSON.stringify(type), (t) => expectOpen(t, (res) => {
      res.writeHead(200, { 'content-type': type })
      res.write('data: ok\n\n')
    }))
  }
  t.test('two Content-Type header lines, the last one an event stream', (t) => expectOpen(t, (res) => {
    res.setHeader('content-type', ['text/html', 'text/event-stream'])
    res.writeHead(200)
    res.write('data: ok\n\n')
  }))
  t.test('a quoted comma in a parameter', (t) => expectOpen(t, (res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream; x="a,b"' })
    res.write('data: ok\n\n')
  }))
})

t.test('rejected Content-Type values fail the connection', async (t) => {
  const types = ['text/plain', 'text/event-streams', 'text/event-stream-x', 'text/html; x=text/event-stream',
    'event-stream', 'application/json', '']
  for (const type of types) {
    t.test(JSON.stringify(type), (t) => expectFail(t, (res) => {
      res.writeHead(200, { 'content-type': type })
      res.end('data: ok\n\n')
    }))
  }
  t.test('no Content-Type at all', (t) => expectFail(t, (res) => {
    res.writeHead(200)
    res.end('data: ok\n\n')
  }))
  t.test('two Content-Type header lines, the last one not an event stream', (t) => expectFail(t, (res) => {
    res.setHeader('content-type', ['text/event-stream', 'text/plain'])
    res.writeHead(200)
    res.end('data: ok\n\n')
  }))
})

t.test('any status other than 200 fails the connection', async (t) => {
  for (const status of [201, 202, 203, 204, 206, 299, 304, 400, 401, 403, 404, 410, 429, 500, 502, 503]) {
    t.test(`status ${status}`, (t) => expectFail(t, (res) => {
      // An event-stream type and body do not make up for the status.
      res.writeHead(status, { 'content-type': 'text/event-stream' })
      res.end(status === 204 || status === 304 ? undefined : 'data: ok\n\n')
    }))
  }
  for (const status of [301, 302, 303, 307, 308]) {
    t.test(`status ${status} without Location`, (t) => expectFail(t, (res) => {
      res.writeHead(status, { 'content-type': 'text/event-stream' })
      res.end('data: ok\n\n')
    }))
  }
  t.test('status 404 with an empty reason phrase', (t) => expectFail(t, (res) => {
    res.writeHead(404, '', { 'content-type': 'text/plain' })
    res.end()
  }))
})

t.test('non-http(s) URLs fail at once, without a request', async (t) => {
  for (const url of ['ftp://127.0.0.1/feed', 'data:text/event-stream,data:%20x%0A%0A', 'file:///etc/hosts',
    'ws://127.0.0.1:1/', 'about:blank', 'blob:http://127.0.0.1/uuid', 'javascript:void(0)']) {
    const es = new EventSource(url, { reconnectionTime: 0 })
    t.teardown(() => es.close())
    const rec = record(es)
    t.equal(es.readyState, CONNECTING, `${url}: CONNECTING until the fetch fails`)
    await rec.wait('error')
    t.equal(rec.events[0].readyState, CLOSED, `${url}: failed, not reestablished`)
    await reconnectionCycle(t, 0)
    t.same(rec.types, ['error'], `${url}: one error, nothing else`)
  }
})

t.test('readyState is CONNECTING while the request is in flight', async (t) => {
  let seen
  let es = null
  const srv = await serve(t, (req, res) => {
    seen = es.readyState
    sse(res, 'data: ok\n\n', { end: false })
  })
  es = srv.eventSource('/')
  const rec = record(es)
  await rec.wait('message')
  t.equal(seen, CONNECTING)
})

t.test('the connection is announced before any body byte arrives', async (t) => {
  let sendBody
  const srv = await serve(t, (req, res) => {
    sse(res)
    sendBody = () => res.write('data: later\n\n')
  })
  const rec = record(srv.eventSource('/'))
  await rec.wait('open')
  t.same(rec.types, ['open'], 'open on the response head alone')
  sendBody()
  t.equal((await rec.wait('message')).data, 'later')
})

t.test('error events are Events (EventSourceErrorEvent) that say why', async (t) => {
  const srv = await serve(t, (req, res) => sse(res, ''))
  const es = srv.eventSource('/')
  const rec = record(es)
  const { event } = await rec.wait('error')
  t.ok(event instanceof Event, 'an Event, as browser code expects')
  t.ok(event instanceof EventSourceErrorEvent)
  t.notOk(event instanceof MessageEvent)
  t.equal(event.type, 'error')
  t.equal(event.bubbles, false)
  t.equal(event.cancelable, false)
  t.equal(event.target, es)
  t.equal(event.code, 'ERR_EVENTSOURCE_STREAM_ENDED')
  t.equal(event.willReconnect, true)
  t.equal(event.reconnectDelay, 10)
  t.equal(event.status, undefined, 'no status: the response was fine, its body ended')
})

t.test('the error event of a failed connection carries the response', async (t) => {
  const srv = await serve(t, (req, res, i) => {
    if (i === 0) res.writeHead(404, 'Gone Fishing', { 'x-why': 'testing', 'content-type': 'text/plain' }).end('no')
    else res.writeHead(200, { 'content-type': 'text/html' }).end()
  })
  let rec = record(srv.eventSource('/a'))
  let { event } = await rec.wait('error')
  t.equal(event.code, 'ERR_EVENTSOURCE_BAD_STATUS')
  t.equal(event.status, 404)
  t.equal(event.statusText, 'Gone Fishing')
  t.ok(event.headers instanceof Headers)
  t.equal(event.headers.get('x-why'), 'testing')
  t.match(event.message, /404 Gone Fishing/)
  t.equal(event.willReconnect, false)
  t.equal(event.reconnectDelay, undefined)
  t.type(event.cause, Error)

  rec = record(srv.eventSource('/b'));
  ({ event } = await rec.wait('error'))
  t.equal(event.code, 'ERR_EVENTSOURCE_BAD_CONTENT_TYPE')
  t.equal(event.status, 200)
  t.match(event.message, /text\/html/)
  t.equal(event.willReconnect, false)

  rec = record(srv.eventSource('ftp://127.0.0.1/'));
  ({ event } = await rec.wait('error'))
  t.equal(event.code, 'ERR_EVENTSOURCE_UNSUPPORTED_SCHEME')
  t.equal(event.status, undefined)
  t.equal(event.headers, undefined)
})

t.test('the error event of a network error carries its cause', async (t) => {
  const srv = await serve(t, (req) => req.socket.destroy())
  const rec = record(srv.eventSource('/'))
  const { event } = await rec.wait('error')
  t.equal(event.code, 'ERR_EVENTSOURCE_NETWORK')
  t.equal(event.willReconnect, true)
  t.type(event.cause, Error)
  t.match(event.message, srv.origin)
  t.equal(rec.events[0].readyState, CONNECTING)
})
