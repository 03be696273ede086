'use strict'

// init.reconnect: { delay, factor, maxDelay, jitter }. The delay computation (reconnectDelay, as
// EventSource calls it) and the Retry-After parser are unit-tested with a deterministic `random`; end
// to end, the error events carry the delays the policy gives, and the next request comes no earlier
// than announced.

const t = require('tap')
const { EventSource } = require('../../')
const { reconnectDelay, parseRetryAfter } = require('../../lib/eventsource/reconnect-policy')
const { SSE_HEADERS, serve, open, record } = require('../helpers/index.cjs')

const policy = (p) => ({ factor: 1, maxDelay: Infinity, jitter: 'none', ...p })
// The longest wait setTimeout can do: every delay is clamped to it.
const MAX_TIMER_DELAY = 2 ** 31 - 1
// The delay without Retry-After.
const backoffDelay = (time, failures, p, random) => reconnectDelay(time, failures, p, undefined, random)
// The storm floor alone: the delay for a reconnection time of 0.
const stormFloor = (failures) => backoffDelay(0, failures, policy({}))

t.test('the backoff: exponential, capped, rounded; never under the storm floor', async (t) => {
  const delays = (time, p, n = 6) => Array.from({ length: n }, (_, i) => backoffDelay(time, i + 1, policy(p)))
  t.same(delays(3000, {}), [3000, 3000, 3000, 3000, 3000, 3000], 'the defaults: the reconnection time, always')
  t.same(delays(10, { factor: 2 }), [10, 20, 40, 80, 160, 320])
  t.same(delays(10, { factor: 2, maxDelay: 50 }), [10, 20, 40, 50, 50, 50])
  t.same(delays(100, { factor: 3, maxDelay: 0 }), [0, 1, 2, 4, 8, 16], 'maxDelay 0: reconnect at once, then after the storm floor')
  t.same(delays(3, { factor: 1.5 }), [3, 5, 7, 10, 15, 23], 'rounded to whole ms (3, 4.5, 6.75, 10.125, 15.19, 22.78)')
  t.same(delays(0, { factor: 2 }), [0, 1, 2, 4, 8, 16])
  t.equal(backoffDelay(1000, 40, policy({ factor: 2 })), MAX_TIMER_DELAY, 'clamped to what setTimeout can wait')
  t.equal(backoffDelay(2 ** 40, 1, policy({})), MAX_TIMER_DELAY)
  t.equal(backoffDelay(Infinity, 1, policy({})), MAX_TIMER_DELAY, 'an infinite retry: the longest wait, not a loop')
})

t.test('the backoff: full jitter is random() times the bound', async (t) => {
  const full = policy({ factor: 2, maxDelay: 300, jitter: 'full' })
  t.equal(backoffDelay(100, 1, full, () => 0), 0)
  t.equal(backoffDelay(100, 1, full, () => 0.5), 50)
  t.equal(backoffDelay(100, 2, full, () => 0.5), 100)
  t.equal(backoffDelay(100, 3, full, () => 0.5), 150, 'of the capped bound (300), not of 400')
  t.equal(backoffDelay(100, 3, full, () => 0.999999), 300)
  t.equal(backoffDelay(100, 1, full, () => 0.123), 12, 'rounded')
  // Math.random is the default.
  for (let i = 0; i < 200; i++) {
    const d = backoffDelay(1000, 1, full)
    if (!(Number.isInteger(d) && d >= 0 && d <= 300)) t.fail(`out of [0, 300]: ${d}`)
  }
  t.pass('200 draws within [0, 300]')
})

t.test('the delay is never NaN', async (t) => {
  // 0 times a factor ** 1099 (Infinity) would be NaN, and Math.max(NaN, floor) too.
  t.equal(backoffDelay(0, 1100, policy({ factor: 2 })), 1000, 'retry: 0 after many failures: the storm floor')
  t.equal(backoffDelay(Infinity, 1, policy({ jitter: 'full' }), () => 0), 0, 'random() 0 of an infinite bound')
  t.equal(backoffDelay(NaN, 1, policy({})), 0)
})

t.test('the storm floor: none for the first failure, then 1, 2, 4 ... 512 ms, then 1 s', async (t) => {
  t.same(Array.from({ length: 14 }, (_, i) => stormFloor(i + 1)), [0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1000, 1000, 1000])
  t.equal(stormFloor(1100), 1000, 'no overflow after many failures')
  t.equal(stormFloor(0), 0)
})

t.test('reconnectDelay: the backoff, at least Retry-After, at least the storm floor', async (t) => {
  const p = policy({ factor: 2 })
  t.equal(reconnectDelay(100, 1, p, undefined), 100, 'the reconnection time')
  t.equal(reconnectDelay(100, 3, p, undefined), 400, 'the backoff')
  t.equal(reconnectDelay(100, 1, p, 0), 100, 'Retry-After: 0 does not replace the backoff')
  t.equal(reconnectDelay(100, 1, p, 5000), 5000, 'a longer Retry-After is waited')
  t.equal(reconnectDelay(1000, 4, p, 2000), 8000, 'a backoff longer than Retry-After is waited')
  t.equal(reconnectDelay(0, 1, p, undefined), 0, 'retry: 0, once: at once')
  t.equal(reconnectDelay(0, 5, p, undefined), 8, 'retry: 0, fifth failure in a row: the floor')
  t.equal(reconnectDelay(0, 30, p, 0), 1000, 'and never below 1 s after a dozen')
  t.equal(reconnectDelay(5, 30, p, undefined), MAX_TIMER_DELAY, 'a backoff above the floor is kept')
  const full = policy({ jitter: 'full' })
  t.equal(reconnectDelay(1000, 1, full, 300, () => 0.1), 300, 'Retry-After is a floor under the jitter too')
  t.equal(reconnectDelay(1000, 9, full, undefined, () => 0), 128, 'so is the storm floor')
  t.equal(reconnectDelay(1000, 9, full, undefined, () => 0.5), 500)
})

t.test('a delay is a whole number of ms from 0 to what setTimeout can wait', async (t) => {
  t.same([-5, 0, 0.4, 0.5, 1.5, 1e3, 2 ** 31 - 1, 2 ** 31, Infinity, -Infinity].map((time) => backoffDelay(time, 1, policy({}))),
    [0, 0, 0, 1, 2, 1000, MAX_TIMER_DELAY, MAX_TIMER_DELAY, MAX_TIMER_DELAY, 0])
})

t.test('parseRetryAfter: delay-seconds', async (t) => {
  const now = Date.now()
  t.equal(parseRetryAfter(undefined, now), null, 'absent')
  t.equal(parseRetryAfter('0', now), 0)
  t.equal(parseRetryAfter('120', now), 120000)
  t.equal(parseRetryAfter(' 7\t', now), 7000, 'surrounding whitespace')
  t.equal(parseRetryAfter('007', now), 7000)
  t.equal(parseRetryAfter('99999999999', now), MAX_TIMER_DELAY, 'clamped')
})

t.test('parseRetryAfter: HTTP-date, the three forms RFC 9110 requires recipients to accept', async (t) => {
  const now = Date.parse('Sun, 06 Nov 1994 08:49:00 GMT')
  t.equal(parseRetryAfter('Sun, 06 Nov 1994 08:49:37 GMT', now), 37000, 'IMF-fixdate')
  t.equal(parseRetryAfter('Sunday, 06-Nov-94 08:49:37 GMT', now), 37000, 'obsolete RFC 850 form')
  t.equal(parseRetryAfter('Sun, 06 Nov 1994 08:48:00 GMT', now), 0, 'in the past: at once')
  t.equal(parseRetryAfter('Sun, 06 Nov 2094 08:49:00 GMT', now), MAX_TIMER_DELAY, 'far in the future: clamped')
})

t.test('parseRetryAfter: the asctime form is UTC whatever the local time zone', async (t) => {
  const tz = process.env.TZ
  process.env.TZ = 'America/New_York'
  t.teardown(() => { if (tz === undefined) delete process.env.TZ; else process.env.TZ = tz })
  const now = Date.parse('Sun, 06 Nov 1994 08:49:00 GMT')
  t.equal(parseRetryAfter('Sun Nov  6 08:49:37 1994', now), 37000)
})

t.test('parseRetryAfter: values that are neither form are ignored', async (t) => {
  const now = Date.now()
  for (const value of ['', ' ', 'soon', '5 seconds', '1e3', '0x10', '12abc', 'Monday', 'Sun, 99 Foo 1994']) {
    t.equal(parseRetryAfter(value, now), null, JSON.stringify(value))
  }
})

t.test('parseRetryAfter: numbers that are not delay-seconds are ignored, not read as dates', async (t) => {
  const now = Date.now()
  for (const value of ['1.5', '-1', '+5', '2 3', '10 20']) t.equal(parseRetryAfter(value, now), null, JSON.stringify(value))
})

t.test('parseRetryAfter: text after a day name must still be an HTTP-date', async (t) => {
  const now = Date.parse('Sun, 06 Nov 1994 08:49:00 GMT')
  for (const value of ['Mon 5', 'Sunday 1', 'Sun, 1.5', 'Fri 2 3', 'Sun, 06 Nov 1994 08:49:37 PST']) {
    t.equal(parseRetryAfter(value, now), null, JSON.stringify(value))
  }
})

/**
 * Runs an EventSource against a server that answers 503 (retried through retryOnStatus) until `n`
 * error events have been dispatched; returns them and the times of the requests.
 */
async function failing (t, reconnect, n) {
  const server = await serve(t, (req, res) => {
    req.time = performance.now()
    res.writeHead(503).end()
  })
  const es = open(t, server.url(), { reconnect: { retryOnStatus: [503], ...reconnect } })
  const rec = record(es)
  await rec.wait('error', n)
  es.close()
  return { server, rec, errors: rec.of('error').slice(0, n).map((e) => e.event) }
}

/**
 * Measured bounds: each request came no earlier than its predecessor's failure plus the announced
 * delay. Both times are taken on the server; the client read each response, and armed its timer, in
 * a later turn of the event loop, whose clock (the one Node's timers count from, in whole ms) was
 * read after that response had been written: hence the 2 ms of rounding allowed, and no more.
 */
function checkWaited (t, server, errors) {
  for (let i = 0; i < errors.length - 1; i++) {
    const waited = server.requests[i + 1].time - server.requests[i].time
    t.ok(waited >= errors[i].reconnectDelay - 2, `request ${i + 2} came ${waited.toFixed(1)} ms after request ${i + 1} failed, delay ${errors[i].reconnectDelay}`)
  }
}

t.test('end to end: delay 10, factor 2, no jitter: 10, 20, 40, 80', async (t) => {
  const { server, rec, errors } = await failing(t, { delay: 10, factor: 2 }, 4)
  t.same(errors.map((e) => e.reconnectDelay), [10, 20, 40, 80])
  t.ok(errors.every((e) => e.willReconnect && e.status === 503 && e.code === 'ERR_EVENTSOURCE_BAD_STATUS'))
  t.ok(rec.events.every((e) => e.readyState === EventSource.CONNECTING), 'CONNECTING at each error')
  checkWaited(t, server, errors)
})

t.test('end to end: maxDelay caps the backoff', async (t) => {
  const { errors } = await failing(t, { delay: 10, factor: 2, maxDelay: 25 }, 5)
  t.same(errors.map((e) => e.reconnectDelay), [10, 20, 25, 25, 25])
})

t.test('end to end: full jitter stays within [0, bound] and is honoured', async (t) => {
  const { server, errors } = await failing(t, { delay: 10, factor: 2, maxDelay: 40, jitter: 'full' }, 8)
  const bounds = [10, 20, 40, 40, 40, 40, 40, 40]
  errors.forEach((e, i) => {
    // Eight failures in a row: the storm floor (0, 1, 2 ... 64 ms) is under the jitter.
    const floor = stormFloor(i + 1)
    const bound = Math.max(bounds[i], floor)
    t.ok(Number.isInteger(e.reconnectDelay) && e.reconnectDelay >= floor && e.reconnectDelay <= bound,
      `delay ${i + 1}: ${e.reconnectDelay} in [${floor}, ${bound}]`)
  })
  checkWaited(t, server, errors)
})

t.test('the default reconnection time is 3000 ms; a server retry: replaces it', async (t) => {
  const server = await serve(t, (req, res, i) => {
    if (req.url === '/default') res.writeHead(200, SSE_HEADERS).end('data: x\n\n')
    else if (i === 1) res.writeHead(200, SSE_HEADERS).end('data: x\n\n')
    else if (i === 2) res.writeHead(200, SSE_HEADERS).end('retry: 15\ndata: y\n\n')
    else res.writeHead(200, SSE_HEADERS).flushHeaders()
  })
  const es = open(t, server.url('/default'), {})
  const { event: first } = await record(es).wait('error')
  t.equal(first.reconnectDelay, 3000)
  es.close()

  const again = open(t, server.url('/retry'), { reconnect: { delay: 0 } })
  const rec = record(again)
  await rec.wait('open', 3)
  t.same(rec.of('error').map((e) => e.event.reconnectDelay), [0, 15], 'retry: 15 from the second response on')
})

t.test('retry: is the base of the backoff', async (t) => {
  // The first response sets retry: 5 and ends; the next ones fail without an open.
  const server = await serve(t, (req, res, i) => {
    if (i === 0) res.writeHead(200, SSE_HEADERS).end('retry: 5\n\n')
    else res.writeHead(503).end()
  })
  const es = open(t, server.url(), { reconnect: { delay: 60000, factor: 2, retryOnStatus: [503] } })
  const rec = record(es)
  await rec.wait('error', 4)
  t.same(rec.of('error').slice(0, 4).map((e) => e.event.reconnectDelay), [5, 10, 20, 40])
})

t.test('an event resets the backoff', async (t) => {
  // Two failures, an open with an event that ends, two failures. (An open alone does not reset it:
  // test/eventsource/extension-reconnect-storms.test.cjs.)
  const plan = ['503', '503', 'open', '503', '503', 'hang']
  const server = await serve(t, (req, res, i) => {
    if (plan[i] === '503') res.writeHead(503).end()
    else if (plan[i] === 'open') res.writeHead(200, SSE_HEADERS).end('data: x\n\n')
    else res.writeHead(200, SSE_HEADERS).flushHeaders()
  })
  const es = open(t, server.url(), { reconnect: { delay: 2, factor: 3, retryOnStatus: [503] } })
  const rec = record(es)
  await rec.wait('open', 2)
  t.same(rec.of('error').map((e) => e.event.reconnectDelay), [2, 6, 2, 6, 18])
})

t.test('reconnect.delay, then reconnectionTime, then node.reconnectionTime', async (t) => {
  const cases = [
    [{ reconnect: { delay: 7 }, reconnectionTime: 9, node: { reconnectionTime: 11 } }, 7],
    [{ reconnectionTime: 9, node: { reconnectionTime: 11 } }, 9],
    [{ node: { reconnectionTime: 11 } }, 11],
    [{ reconnect: { factor: 2 } }, 3000]
  ]
  const server = await serve(t, (req, res) => res.writeHead(200, SSE_HEADERS).end())
  for (const [init, expected] of cases) {
    const es = open(t, server.url(), init)
    const { event: error } = await record(es).wait('error')
    es.close()
    t.equal(error.reconnectDelay, expected, JSON.stringify(init))
  }
})
