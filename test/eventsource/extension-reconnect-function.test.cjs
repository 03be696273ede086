'use strict'

// init.reconnect.policy: reconnection as code. What the policy is given for each kind of failure, what
// its answers do (a delay, 'stop', anything else), the storm floor that holds under it unless
// reconnect.floor is false, and the checks of the init. The declarative options, which are the default
// policy, are tested in extension-reconnect-policy.test.cjs.

const t = require('tap')
const { EventSource } = require('../../')
const { SSE_HEADERS, serve, open, record, reconnectionCycle } = require('../helpers/index.cjs')

t.test('the cause of each kind of failure', async (t) => {
  const server = await serve(t, (req, res, i) => {
    if (i === 0) res.writeHead(200, SSE_HEADERS).end('data: a\n\ndata: b\n\n')
    else if (i === 1) res.writeHead(503, { 'retry-after': '2' }).end()
    else if (i === 2) res.socket.destroy()
    else if (i === 3) res.writeHead(200, SSE_HEADERS).end('retry: 7\n\n')
    else res.writeHead(200, SSE_HEADERS).flushHeaders()
  })
  const causes = []
  const es = open(t, server.url(), { reconnect: { delay: 5, policy: (cause) => { causes.push(cause); return 0 } } })
  const rec = record(es)
  await rec.wait('open', 3)
  const pick = ({ code, status, retryAfter, events, retry, failures, attempts, failsConnection }) =>
    ({ code, status, retryAfter, events, retry, failures, attempts, failsConnection })
  t.same(causes.map(pick), [
    { code: 'ERR_EVENTSOURCE_STREAM_ENDED', status: undefined, retryAfter: undefined, events: 2, retry: 5, failures: 1, attempts: 1, failsConnection: false },
    { code: 'ERR_EVENTSOURCE_BAD_STATUS', status: 503, retryAfter: 2000, events: 0, retry: 5, failures: 2, attempts: 2, failsConnection: true },
    { code: 'ERR_EVENTSOURCE_NETWORK', status: undefined, retryAfter: undefined, events: 0, retry: 5, failures: 3, attempts: 3, failsConnection: false },
    { code: 'ERR_EVENTSOURCE_STREAM_ENDED', status: undefined, retryAfter: undefined, events: 0, retry: 7, failures: 4, attempts: 4, failsConnection: false }
  ])
  t.equal(causes[0].elapsed, 0, 'elapsed: 0 at the first failure in a row')
  t.ok(causes[1].elapsed <= causes[2].elapsed && causes[2].elapsed <= causes[3].elapsed, 'then growing')
  t.ok(causes.every((cause) => cause.error instanceof Error && cause.error.code === cause.code), 'error: the failure itself')
  t.same(rec.of('error').map((e) => e.event.reconnectDelay), [0, 1, 2, 4], 'a policy that says 0, under the storm floor')
  t.same(rec.of('error').map((e) => e.code), causes.map((c) => c.code), 'the error events say the same')
})

t.test('the delay the policy returns is the wait before the next attempt', async (t) => {
  const server = await serve(t, (req, res) => res.writeHead(200, SSE_HEADERS).end('data: x\n\n'))
  const delays = [25, 2.6, 0]
  const es = open(t, server.url(), { reconnect: { policy: () => delays.shift() ?? 0 } })
  const rec = record(es)
  await rec.wait('open', 4)
  t.same(rec.of('error').slice(0, 3).map((e) => e.event.reconnectDelay), [25, 3, 0], 'whole ms')
  const opens = rec.of('open')
  t.ok(opens[1].time - rec.of('error')[0].time >= 24, 'the second request waited (timers may fire 1 ms early)')
})

t.test('\'stop\' fails the connection: with the failure when the standard fails on it, else RETRIES_EXHAUSTED', async (t) => {
  const server = await serve(t, (req, res) => {
    if (req.url === '/ended') res.writeHead(200, SSE_HEADERS).end('data: x\n\n')
    else res.writeHead(503).end()
  })
  const stop = { reconnect: { policy: () => 'stop' } }
  const ended = await record(open(t, server.url('/ended'), stop)).wait('error')
  t.match([ended.code, ended.readyState, ended.event.willReconnect, ended.event.cause.code],
    ['ERR_EVENTSOURCE_RETRIES_EXHAUSTED', EventSource.CLOSED, false, 'ERR_EVENTSOURCE_STREAM_ENDED'])
  const refused = await record(open(t, server.url('/busy'), stop)).wait('error')
  t.match([refused.code, refused.readyState, refused.event.status], ['ERR_EVENTSOURCE_BAD_STATUS', EventSource.CLOSED, 503])
  await reconnectionCycle(t)
  t.equal(server.requests.length, 2, 'no further request')
})

t.test('a delay retries even what the standard fails on', async (t) => {
  const server = await serve(t, (req, res, i) => {
    if (i === 0) res.writeHead(200, { 'content-type': 'text/html' }).end('<p>maintenance</p>')
    else res.writeHead(200, SSE_HEADERS).flushHeaders()
  })
  const es = open(t, server.url(), { reconnect: { policy: ({ failsConnection }) => failsConnection ? 0 : 'stop' } })
  const rec = record(es)
  await rec.wait('open')
  t.same(rec.types, ['error', 'open'])
  t.equal(rec.events[0].code, 'ERR_EVENTSOURCE_BAD_CONTENT_TYPE')
})

t.test('a policy that throws or answers something else fails the connection (ERR_EVENTSOURCE_RECONNECT_POLICY)', async (t) => {
  const server = await serve(t, (req, res) => res.writeHead(200, SSE_HEADERS).end('data: x\n\n'))
  const thrown = new TypeError('boom')
  const cases = [
    [() => { throw thrown }, /init\.reconnect\.policy\(\) failed: boom/],
    [() => undefined, /it returned undefined, not a delay in ms or 'stop'/],
    [() => -1, /it returned -1/],
    [() => NaN, /it returned NaN/],
    [() => 'later', /it returned 'later'/],
    [() => () => 5, /it returned a function/],
    // eslint-disable-next-line no-throw-literal
    [() => { throw 'nope' }, /init\.reconnect\.policy\(\) failed: nope/],
    [() => ({ delay: 5 }), /it returned an object/],
    [async () => 5, /it returned a promise, not a delay in ms or 'stop' \(a policy decides at once: it cannot be async\)/]
  ]
  for (const [policy, message] of cases) {
    const error = await record(open(t, server.url(), { reconnect: { policy } })).wait('error')
    t.match([error.code, error.event.message, error.readyState], ['ERR_EVENTSOURCE_RECONNECT_POLICY', message, EventSource.CLOSED], `${message}`)
    t.ok(error.event.cause instanceof Error, 'the cause is an Error, whatever was thrown')
    if (policy === cases[0][0]) t.equal(error.event.cause, thrown)
  }
  t.equal(server.requests.length, cases.length, 'no source reconnected')
})

t.test('the storm floor holds under a policy, unless floor is false', async (t) => {
  // Every response ends at once without an event: attempts in a row that deliver nothing.
  const server = await serve(t, (req, res) => res.writeHead(200, SSE_HEADERS).end())
  for (const [floor, expected] of [[undefined, [0, 1, 2, 4, 8, 16]], [true, [0, 1, 2, 4, 8, 16]], [false, [0, 0, 0, 0, 0, 0]]]) {
    const es = open(t, server.url(), { reconnect: { policy: () => 0, floor } })
    const rec = record(es)
    await rec.wait('error', 6)
    es.close()
    t.same(rec.of('error').slice(0, 6).map((e) => e.event.reconnectDelay), expected, `floor: ${floor}`)
  }
})

t.test('close() from the policy: no error event, no further request', async (t) => {
  const server = await serve(t, (req, res) => res.writeHead(200, SSE_HEADERS).end('data: x\n\n'))
  const es = open(t, server.url(), { reconnect: { policy: () => { es.close(); return 0 } } })
  const rec = record(es)
  await rec.wait('message')
  await reconnectionCycle(t)
  t.same(rec.types, ['open', 'message'])
  t.equal(es.readyState, EventSource.CLOSED)
  t.equal(server.requests.length, 1)
})

t.test('the init: a function, not with the declarative options it replaces', async (t) => {
  const url = 'http://127.0.0.1:1/'
  t.throws(() => new EventSource(url, { reconnect: { policy: 100 } }), { code: 'ERR_INVALID_ARG_TYPE', message: /init\.reconnect\.policy/ })
  for (const [name, value] of [['factor', 2], ['maxDelay', 10], ['jitter', 'full'], ['maxRetries', 3], ['retryOnStatus', [503]]]) {
    t.throws(() => new EventSource(url, { reconnect: { policy: () => 0, [name]: value } }),
      { code: 'ERR_INVALID_ARG_VALUE', message: new RegExp(`init\\.reconnect\\.${name}.*cannot be given with init\\.reconnect\\.policy`) }, name)
  }
  const es = new EventSource(url, { reconnect: { policy: () => 0, delay: 10, floor: false } })
  es.close()
  t.pass('delay (the initial reconnection time, the policy\'s cause.retry) and floor go with it')
})
