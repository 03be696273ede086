'use strict'

// Giving up (reconnect.maxRetries) and retrying chosen statuses (reconnect.retryOnStatus), with the
// server's Retry-After in both of its forms, a floor under the backoff delay.

const t = require('tap')
const { EventSource, EventSourceErrorEvent } = require('../../')
const {
  SSE_HEADERS, serve, open, record, closedPort, reconnectionCycle, fakeClock, stamped, stepThrough
} = require('../helpers/index.cjs')

t.test('maxRetries: N reconnections without an event, then CLOSED and one final error', async (t) => {
  const server = await serve(t, (req, res) => res.writeHead(503, { 'retry-after': 'soon', 'x-why': 'maintenance' }).end())
  const es = open(t, server.url(), { reconnect: { delay: 1, maxRetries: 2, retryOnStatus: [503] } })
  const rec = record(es)
  await rec.until((log) => log.some((e) => e.readyState === EventSource.CLOSED))
  // Nothing is scheduled any more: a reconnection due after 1 ms would have come by now.
  await reconnectionCycle(t, 20)
  t.same(rec.events.map((e) => [e.type, e.readyState, e.event.willReconnect]), [
    ['error', EventSource.CONNECTING, true],
    ['error', EventSource.CONNECTING, true],
    ['error', EventSource.CLOSED, false]
  ])
  t.equal(server.requests.length, 3, 'the first request and 2 retries')
  const { event: final } = rec.of('error')[2]
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
  const { event: error } = await rec.wait('error')
  t.equal(rec.events[0].readyState, EventSource.CLOSED)
  t.equal(error.code, 'ERR_EVENTSOURCE_RETRIES_EXHAUSTED')
  t.equal(error.message, `Gave up after 1 failed attempt in a row: The connection to http://127.0.0.1:${port} failed: connect ECONNREFUSED 127.0.0.1:${port}`)
  t.equal(error.willReconnect, false)
  t.equal(error.status, undefined)
  t.equal(error.headers, undefined)
  t.equal(error.cause.code, 'ERR_EVENTSOURCE_NETWORK')
  t.equal(error.cause.cause.code, 'ECONNREFUSED')
})

t.test('maxRetries: an event resets the count', async (t) => {
  // With maxRetries 2: fail, fail, an event (reset) and the end, fail, fail -> the 3rd failure in a row gives up.
  const plan = ['503', '503', 'open', '503', '503', '503']
  const server = await serve(t, (req, res, i) => {
    if (plan[i] === 'open') res.writeHead(200, SSE_HEADERS).end('data: x\n\n')
    else res.writeHead(503).end()
  })
  const es = open(t, server.url(), { reconnect: { delay: 0, maxRetries: 2, retryOnStatus: [503] } })
  const rec = record(es)
  await rec.until((log) => log.some((e) => e.readyState === EventSource.CLOSED))
  t.same(rec.events.map((e) => e.type === 'error' ? `error:${e.event.willReconnect}` : e.type),
    ['error:true', 'error:true', 'open', 'message', 'error:true', 'error:true', 'error:false'])
  t.equal(server.requests.length, 5)
  const { event: final } = rec.of('error').at(-1)
  t.equal(final.code, 'ERR_EVENTSOURCE_RETRIES_EXHAUSTED')
  t.match(final.message, /^Gave up after 3 failed attempts in a row: /)
})

t.test('maxRetries counts an ended stream as a failure only until the next event', async (t) => {
  // Every response delivers an event and ends: the count never passes 1.
  const server = await serve(t, (req, res) => res.writeHead(200, SSE_HEADERS).end('data: x\n\n'))
  const es = open(t, server.url(), { reconnect: { delay: 0, maxRetries: 1 } })
  const rec = record(es)
  await rec.wait('open', 5)
  t.ok(rec.of('error').every((e) => e.event.willReconnect), 'still reconnecting after 5 opens')
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
  const { event: final } = rec.of('error').at(-1)
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

t.test('retryOnStatus: Retry-After is a floor under the backoff, not a replacement', async (t) => {
  const clock = fakeClock(t)
  const server = await serve(t, (req, res, i) => {
    if (i === 0) res.writeHead(503, { 'retry-after': '0' }).end()
    else if (i === 1) res.writeHead(429, { 'Retry-After': '3' }).end()
    else if (i === 2) res.writeHead(503, { 'retry-after': '1' }).end()
    else res.writeHead(200, SSE_HEADERS).flushHeaders()
  })
  const source = stamped(t, clock, server.url(), { reconnect: { delay: 500, factor: 4, retryOnStatus: [429, 503] } })
  const { delays, wrong } = await stepThrough(clock, source, 3)
  t.same(wrong, [], 'every attempt came exactly when announced')
  // Backoff 500, 2000, 8000; Retry-After 0, 3 s, 1 s: the longer of the two each time.
  t.same(delays, [500, 3000, 8000])
  t.same(source.attempts, [0, 500, 3500, 11500])
  const errors = source.rec.of('error').map((e) => e.event)
  t.same(errors.map((e) => [e.status, e.headers.get('retry-after'), e.willReconnect]),
    [[503, '0', true], [429, '3', true], [503, '1', true]])
  t.equal(errors[1].statusText, 'Too Many Requests')
  await source.rec.wait('open')
  t.equal(source.es.readyState, EventSource.OPEN)
})

t.test('retryOnStatus: 503 with Retry-After: 0, forever, waits the reconnection time', async (t) => {
  // Before: Retry-After replaced the delay, and this server got 1,112 requests in 2 s.
  const clock = fakeClock(t)
  const server = await serve(t, (req, res) => res.writeHead(503, { 'retry-after': '0' }).end())
  const source = stamped(t, clock, server.url(), { reconnect: { retryOnStatus: [503] } })
  const { delays, wrong } = await stepThrough(clock, source, 4)
  t.same(wrong, [])
  t.same(delays, [3000, 3000, 3000, 3000], 'the default reconnection time')
  t.same(source.attempts, [0, 3000, 6000, 9000, 12000])
  t.equal(source.attempts.filter((time) => time < 2000).length, 1, 'one request in the first 2 s')
})

t.test('retryOnStatus: Retry-After: 0 with a delay of 0 gets the storm floor', async (t) => {
  const clock = fakeClock(t)
  const server = await serve(t, (req, res) => res.writeHead(503, { 'retry-after': '0' }).end())
  const source = stamped(t, clock, server.url(), { reconnect: { delay: 0, retryOnStatus: [503] } })
  const { delays, wrong } = await stepThrough(clock, source, 13)
  t.same(wrong, [])
  t.same(delays, [0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1000, 1000])
  t.equal(source.attempts.filter((time) => time < 2000).length, 12, '12 requests in the first 2 s')
})

t.test('retryOnStatus: Retry-After as an HTTP-date', async (t) => {
  // The fake clock starts on a whole second, so the dates are exact.
  const clock = fakeClock(t, { now: Date.UTC(2030, 0, 1) })
  const server = await serve(t, (req, res, i) => {
    if (i === 0) res.writeHead(503, { 'retry-after': new Date(Date.now() + 3000).toUTCString() }).end()
    else if (i === 1) res.writeHead(503, { 'retry-after': new Date(Date.now() - 60000).toUTCString() }).end()
    else res.writeHead(200, SSE_HEADERS).flushHeaders()
  })
  const source = stamped(t, clock, server.url(), { reconnect: { delay: 10, retryOnStatus: [503] } })
  const { delays, wrong } = await stepThrough(clock, source, 2)
  t.same(wrong, [])
  t.same(delays, [3000, 10], 'a date 3 s ahead; a date in the past asks for nothing: the backoff')
  t.equal(source.rec.of('error')[0].event.headers.get('retry-after'), 'Tue, 01 Jan 2030 00:00:03 GMT')
  await source.rec.wait('open')
})

t.test('retryOnStatus: without a usable Retry-After, the backoff applies', async (t) => {
  const values = [undefined, 'later', '']
  const server = await serve(t, (req, res, i) => {
    const headers = values[i] === undefined ? {} : { 'retry-after': values[i] }
    if (i < values.length) res.writeHead(504, headers).end()
    else res.writeHead(200, SSE_HEADERS).flushHeaders()
  })
  const es = open(t, server.url(), { reconnect: { delay: 3, factor: 2, retryOnStatus: [504] } })
  const rec = record(es)
  await rec.wait('open')
  t.same(rec.of('error').map((e) => e.event.reconnectDelay), [3, 6, 12])
})

t.test('retryOnStatus: a status not in the list still fails the connection', async (t) => {
  const server = await serve(t, (req, res) => res.writeHead(500, { 'retry-after': '0' }).end())
  const es = open(t, server.url(), { reconnect: { delay: 0, retryOnStatus: [502, 503, 504] } })
  const rec = record(es)
  const { event: error } = await rec.wait('error')
  t.equal(rec.events[0].readyState, EventSource.CLOSED)
  t.equal(error.willReconnect, false)
  t.equal(error.code, 'ERR_EVENTSOURCE_BAD_STATUS')
  t.equal(error.status, 500)
  await reconnectionCycle(t, 10)
  t.equal(server.requests.length, 1, 'no reconnection')
})

t.test('retryOnStatus applies to statuses only: a wrong Content-Type still fails', async (t) => {
  const server = await serve(t, (req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('data: x\n\n'))
  const es = open(t, server.url(), { reconnect: { delay: 0, retryOnStatus: [503] } })
  const { event: error } = await record(es).wait('error')
  t.equal(error.code, 'ERR_EVENTSOURCE_BAD_CONTENT_TYPE')
  t.equal(es.readyState, EventSource.CLOSED)
})

t.test('retryOnStatus: 3xx without Location and 4xx can be retried too', async (t) => {
  const server = await serve(t, (req, res, i) => {
    if (i === 0) res.writeHead(304).end()
    else if (i === 1) res.writeHead(404).end()
    else res.writeHead(200, SSE_HEADERS).write('data: found\n\n')
  })
  const es = open(t, server.url(), { reconnect: { delay: 0, retryOnStatus: [304, 404] } })
  const rec = record(es)
  await rec.wait('message')
  t.same(rec.of('error').map((e) => [e.event.status, e.event.willReconnect]), [[304, true], [404, true]])
})
