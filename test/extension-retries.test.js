'use strict'

// Giving up (reconnect.maxRetries) and retrying chosen statuses (reconnect.retryOnStatus), with the
// server's Retry-After in both of its forms.

const t = require('tap')
const { EventSource, EventSourceErrorEvent } = require('../')
const { SSE, serve, open, record, closedPort, elapse } = require('./helpers/extension-server')

t.test('maxRetries: N reconnections without an open, then CLOSED and one final error', async (t) => {
  const server = await serve(t, (req, res) => res.writeHead(503, { 'retry-after': 'soon', 'x-why': 'maintenance' }).end())
  const es = open(t, server.url(), { reconnect: { delay: 1, maxRetries: 2, retryOnStatus: [503] } })
  const rec = record(es)
  await rec.until((log) => log.some((e) => e.readyState === EventSource.CLOSED))
  // Nothing is scheduled any more: a reconnection due after 1 ms would have come by now.
  await elapse(t, 20)
  t.same(rec.log.map((e) => [e.type, e.readyState, e.event.willReconnect]), [
    ['error', EventSource.CONNECTING, true],
    ['error', EventSource.CONNECTING, true],
    ['error', EventSource.CLOSED, false]
  ])
  t.equal(server.requests.length, 3, 'the first request and 2 retries')
  const final = rec.of('error')[2]
  t.ok(final instanceof EventSourceErrorEvent)
  t.equal(final.code, 'ERR_EVENTSOURCE_RETRIES_EXHAUSTED')
  t.equal(final.message, 'Gave up after 3 failed attempts in a row: The server answered 503 Service Unavailable: an event stream needs status 200')
  t.equal(final.reconnectDelay, undefined)
  t.equal(final.status, 503, 'the last response is described')
  t.equal(final.statusText, 'Service Unavailable')
  t.equal(final.headers.get('x-why'), 'maintenance')
  t.equal(final.cause.code, 'ERR_EVENTSOURCE_BAD_STATUS', 'cause: the last failure')
  t.equal(final.cause.status, 503)
  t.equal(es.readyState, EventSource.CLOSED)
})

t.test('maxRetries 0: the first failure is final; the cause keeps its own cause', async (t) => {
  const port = await closedPort()
  const es = open(t, `http://127.0.0.1:${port}/`, { reconnect: { delay: 0, maxRetries: 0 } })
  const rec = record(es)
  const error = await rec.nth('error')
  t.equal(rec.log[0].readyState, EventSource.CLOSED)
  t.equal(error.code, 'ERR_EVENTSOURCE_RETRIES_EXHAUSTED')
  t.equal(error.message, `Gave up after 1 failed attempt in a row: The connection to http://127.0.0.1:${port} failed: connect ECONNREFUSED 127.0.0.1:${port}`)
  t.equal(error.willReconnect, false)
  t.equal(error.status, undefined)
  t.equal(error.headers, undefined)
  t.equal(error.cause.code, 'ERR_EVENTSOURCE_NETWORK')
  t.equal(error.cause.cause.code, 'ECONNREFUSED')
})

t.test('maxRetries: an open resets the count', async (t) => {
  // With maxRetries 2: fail, fail, open (reset) and end, fail, fail -> the 3rd failure in a row gives up.
  const plan = ['503', '503', 'open', '503', '503', '503']
  const server = await serve(t, (req, res, i) => {
    if (plan[i] === 'open') res.writeHead(200, SSE).end('data: x\n\n')
    else res.writeHead(503).end()
  })
  const es = open(t, server.url(), { reconnect: { delay: 0, maxRetries: 2, retryOnStatus: [503] } })
  const rec = record(es)
  await rec.until((log) => log.some((e) => e.readyState === EventSource.CLOSED))
  t.same(rec.log.map((e) => e.type === 'error' ? `error:${e.event.willReconnect}` : e.type),
    ['error:true', 'error:true', 'open', 'message', 'error:true', 'error:true', 'error:false'])
  t.equal(server.requests.length, 5)
  const final = rec.of('error').at(-1)
  t.equal(final.code, 'ERR_EVENTSOURCE_RETRIES_EXHAUSTED')
  t.match(final.message, /^Gave up after 3 failed attempts in a row: /)
})

t.test('maxRetries counts an ended stream as a failure once it has not reopened', async (t) => {
  // Every response opens and ends at once: the count never passes 1.
  const server = await serve(t, (req, res) => res.writeHead(200, SSE).end('data: x\n\n'))
  const es = open(t, server.url(), { reconnect: { delay: 0, maxRetries: 1 } })
  const rec = record(es)
  await rec.nth('open', 5)
  t.ok(rec.of('error').every((e) => e.willReconnect), 'still reconnecting after 5 opens')
})

t.test('maxRetries counts failed headers functions as failed attempts', async (t) => {
  let calls = 0
  const es = open(t, 'http://127.0.0.1:1/', {
    reconnect: { delay: 0, maxRetries: 1 },
    headers: () => { calls++; throw new Error('no token') }
  })
  const rec = record(es)
  await rec.until((log) => log.some((e) => e.readyState === EventSource.CLOSED))
  t.equal(calls, 2)
  const final = rec.of('error').at(-1)
  t.equal(final.code, 'ERR_EVENTSOURCE_RETRIES_EXHAUSTED')
  t.equal(final.message, 'Gave up after 2 failed attempts in a row: init.headers() failed: no token')
  t.equal(final.cause.code, 'ERR_EVENTSOURCE_REQUEST_INIT')
})

t.test('the iteration rejects when the retries are exhausted', async (t) => {
  const server = await serve(t, (req, res) => res.writeHead(502).end())
  const es = open(t, server.url(), { reconnect: { delay: 0, maxRetries: 1, retryOnStatus: [502] } })
  await t.rejects(async () => { for await (const event of es) t.fail(`unexpected ${event.type}`) },
    { code: 'ERR_EVENTSOURCE_RETRIES_EXHAUSTED', status: 502 })
})

t.test('retryOnStatus: Retry-After delay-seconds sets the delay', async (t) => {
  const server = await serve(t, (req, res, i) => {
    if (i === 0) res.writeHead(503, { 'retry-after': '0' }).end()
    else if (i === 1) res.writeHead(429, { 'Retry-After': '2' }).end()
    else res.writeHead(200, SSE).flushHeaders()
  })
  // A 60 s backoff: only Retry-After can make the second request come this soon.
  const es = open(t, server.url(), { reconnect: { delay: 60000, retryOnStatus: [429, 503] } })
  const rec = record(es)
  const first = await rec.nth('error')
  t.equal(first.reconnectDelay, 0, 'Retry-After: 0')
  t.equal(first.status, 503)
  t.equal(first.headers.get('retry-after'), '0')
  t.equal(first.willReconnect, true)
  const second = await rec.nth('error', 2)
  t.equal(second.reconnectDelay, 2000, 'Retry-After: 2')
  t.equal(second.status, 429)
  t.equal(second.statusText, 'Too Many Requests')
  t.equal(es.readyState, EventSource.CONNECTING)
})

t.test('retryOnStatus: Retry-After as an HTTP-date', async (t) => {
  let sent
  const server = await serve(t, (req, res, i) => {
    if (i === 0) {
      sent = Date.now()
      res.writeHead(503, { 'retry-after': new Date(sent + 3000).toUTCString() }).end()
    } else if (i === 1) {
      res.writeHead(503, { 'retry-after': new Date(Date.now() - 60000).toUTCString() }).end()
    } else {
      res.writeHead(200, SSE).flushHeaders()
    }
  })
  const es = open(t, server.url(), { reconnect: { delay: 60000, retryOnStatus: [503] } })
  const rec = record(es)
  const first = await rec.nth('error')
  const received = Date.now()
  // The date has whole seconds: sent + 3000 truncated, measured from a moment after `sent`.
  t.ok(first.reconnectDelay > 3000 - 1000 - (received - sent) && first.reconnectDelay <= 3000,
    `a date 3 s ahead: ${first.reconnectDelay} ms`)
  es.close()

  const again = open(t, server.url(), { reconnect: { delay: 60000, retryOnStatus: [503] } })
  const rec2 = record(again)
  await rec2.nth('open')
  t.equal(rec2.of('error')[0].reconnectDelay, 0, 'a date in the past: at once')
})

t.test('retryOnStatus: without a usable Retry-After, the backoff applies', async (t) => {
  const values = [undefined, 'later', '']
  const server = await serve(t, (req, res, i) => {
    const headers = values[i] === undefined ? {} : { 'retry-after': values[i] }
    if (i < values.length) res.writeHead(504, headers).end()
    else res.writeHead(200, SSE).flushHeaders()
  })
  const es = open(t, server.url(), { reconnect: { delay: 3, factor: 2, retryOnStatus: [504] } })
  const rec = record(es)
  await rec.nth('open')
  t.same(rec.of('error').map((e) => e.reconnectDelay), [3, 6, 12])
})

t.test('retryOnStatus: a status not in the list still fails the connection', async (t) => {
  const server = await serve(t, (req, res) => res.writeHead(500, { 'retry-after': '0' }).end())
  const es = open(t, server.url(), { reconnect: { delay: 0, retryOnStatus: [502, 503, 504] } })
  const rec = record(es)
  const error = await rec.nth('error')
  t.equal(rec.log[0].readyState, EventSource.CLOSED)
  t.equal(error.willReconnect, false)
  t.equal(error.code, 'ERR_EVENTSOURCE_BAD_STATUS')
  t.equal(error.status, 500)
  await elapse(t, 10)
  t.equal(server.requests.length, 1, 'no reconnection')
})

t.test('retryOnStatus applies to statuses only: a wrong Content-Type still fails', async (t) => {
  const server = await serve(t, (req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('data: x\n\n'))
  const es = open(t, server.url(), { reconnect: { delay: 0, retryOnStatus: [503] } })
  const error = await record(es).nth('error')
  t.equal(error.code, 'ERR_EVENTSOURCE_BAD_CONTENT_TYPE')
  t.equal(es.readyState, EventSource.CLOSED)
})

t.test('retryOnStatus: 3xx without Location and 4xx can be retried too', async (t) => {
  const server = await serve(t, (req, res, i) => {
    if (i === 0) res.writeHead(304).end()
    else if (i === 1) res.writeHead(404).end()
    else res.writeHead(200, SSE).write('data: found\n\n')
  })
  const es = open(t, server.url(), { reconnect: { delay: 0, retryOnStatus: [304, 404] } })
  const rec = record(es)
  await rec.nth('message')
  t.same(rec.of('error').map((e) => [e.status, e.willReconnect]), [[304, true], [404, true]])
})
