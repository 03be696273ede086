'use strict'

// A server cannot drive a reconnection storm. Attempts that deliver no event count as failures, even
// when they opened, so the backoff and maxRetries apply to a server that answers and ends at once;
// after attempts in a row that delivered nothing the wait has a floor (0, 1, 2, 4 ... 512 ms, then
// 1 s), so even `retry: 0` and an empty response, forever, gets at most 11 attempts in a second and
// then one a second. A server that delivers events keeps the exact reconnection time it asked for.
// Delays are asserted to the millisecond on fake timers: each attempt is stamped with the fake clock
// by a headers function, which EventSource calls synchronously when its reconnection timer fires.

const t = require('tap')
const { EventSource } = require('../../')
const { SSE_HEADERS, serve, open, record, fakeClock, stamped, stepThrough } = require('../helpers/index.cjs')

/** The largest number of attempts that started within any `window` ms. */
function busiest (times, window) {
  let most = 0
  for (let i = 0; i < times.length; i++) {
    let j = i
    while (j < times.length && times[j] < times[i] + window) j++
    most = Math.max(most, j - i)
  }
  return most
}

t.test('retry: 0 and an empty response, forever: at most 11 attempts in a second, then one a second', async (t) => {
  // Before: 1,196 requests in 2 s on loopback, every open resetting the count.
  const clock = fakeClock(t)
  const server = await serve(t, (req, res) => res.writeHead(200, SSE_HEADERS).end('retry: 0\n\n'))
  const source = stamped(t, clock, server.url())
  const { delays, wrong } = await stepThrough(clock, source, 15)
  t.same(wrong, [], 'every attempt came exactly when announced')
  t.same(delays, [0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1000, 1000, 1000, 1000])
  t.same(source.attempts, [0, 0, 1, 3, 7, 15, 31, 63, 127, 255, 511, 1023, 2023, 3023, 4023, 5023])
  t.equal(source.attempts.filter((time) => time < 2000).length, 12, '12 requests in the first 2 s')
  t.equal(busiest(source.attempts, 1000), 11, 'at most 11 in any second')
  t.equal(busiest(source.attempts.slice(11), 1000), 1, 'then one a second')
  t.ok(source.rec.of('open').length >= 15, 'each of them opened')
  t.equal(source.es.readyState, EventSource.CONNECTING, 'and it keeps trying, as the standard says')
})

t.test('a server that delivers events keeps its exact reconnection time: retry: 0 means at once', async (t) => {
  const clock = fakeClock(t)
  const server = await serve(t, (req, res, i) => res.writeHead(200, SSE_HEADERS).end(`retry: 0\ndata: ${i}\n\n`))
  const source = stamped(t, clock, server.url())
  const { delays, wrong } = await stepThrough(clock, source, 20)
  t.same(wrong, [])
  t.same(delays, new Array(20).fill(0), 'no floor: every attempt delivered an event')
  t.same(source.attempts, new Array(21).fill(0))
  t.same(source.rec.of('message').map((e) => e.data), Array.from({ length: 20 }, (_, i) => `${i}`))
})

t.test('a server that delivers events keeps its exact reconnection time: retry: 7', async (t) => {
  const clock = fakeClock(t)
  const server = await serve(t, (req, res) => res.writeHead(200, SSE_HEADERS).end('retry: 7\ndata: x\n\n'))
  const source = stamped(t, clock, server.url())
  const { delays, wrong } = await stepThrough(clock, source, 15)
  t.same(wrong, [])
  t.same(delays, new Array(15).fill(7))
  t.same(source.attempts, Array.from({ length: 16 }, (_, i) => 7 * i))
})

t.test('the count starts again at each event: the first reconnection after one is exact', async (t) => {
  // Events, then a server that answers nothing twice, then events again, then nothing once.
  const plan = ['event', 'empty', 'empty', 'event', 'empty', 'hang']
  const clock = fakeClock(t)
  const server = await serve(t, (req, res, i) => {
    if (plan[i] === 'event') res.writeHead(200, SSE_HEADERS).end('retry: 0\ndata: x\n\n')
    else if (plan[i] === 'empty') res.writeHead(200, SSE_HEADERS).end()
    else res.writeHead(200, SSE_HEADERS).flushHeaders()
  })
  const source = stamped(t, clock, server.url())
  const { delays, wrong } = await stepThrough(clock, source, 5)
  t.same(wrong, [])
  t.same(delays, [0, 1, 2, 0, 1], 'the floor grows over empty attempts in a row only')
  await source.rec.wait('open', 6)
})

t.test('an open without an event does not reset maxRetries: { delay: 1000, factor: 2, maxRetries: 3 }', async (t) => {
  // Before: 1,430 requests in 2 s, every open resetting the count.
  const clock = fakeClock(t)
  const server = await serve(t, (req, res) => res.writeHead(200, SSE_HEADERS).end('retry: 0\n\n'))
  const source = stamped(t, clock, server.url(), { reconnect: { delay: 1000, factor: 2, maxRetries: 3 } })
  const { delays, wrong } = await stepThrough(clock, source, 4)
  t.same(wrong, [])
  // The server's retry: 0 is the base of the backoff (0 times 2^n is 0): the floor is what is left.
  t.same(delays, [0, 1, 2])
  const { event: final } = source.rec.of('error')[3]
  t.equal(final.code, 'ERR_EVENTSOURCE_RETRIES_EXHAUSTED')
  t.equal(final.message, 'Gave up after 4 failed attempts in a row: The server ended the event stream')
  t.equal(source.es.readyState, EventSource.CLOSED)
  clock.tick(60_000)
  t.equal(source.attempts.length, 4, 'the first attempt and 3 retries, then nothing')
  t.equal(server.requests.length, 4)
})

t.test('an open without an event does not reset the backoff', async (t) => {
  const clock = fakeClock(t)
  const server = await serve(t, (req, res) => res.writeHead(200, SSE_HEADERS).end(': nothing to say\n\n'))
  const source = stamped(t, clock, server.url(), { reconnect: { delay: 10, factor: 2, maxDelay: 100 } })
  const { delays, wrong } = await stepThrough(clock, source, 6)
  t.same(wrong, [])
  t.same(delays, [10, 20, 40, 80, 100, 100], 'comments are not events')
  t.same(source.attempts, [0, 10, 30, 70, 150, 250, 350])
})

t.test('a connection dropped after its open, before any event, counts as a failure', async (t) => {
  const server = await serve(t, (req, res) => {
    res.writeHead(200, SSE_HEADERS)
    // The head and half an event, then the socket ends: a body cut short is a network error.
    res.write('data: cut', () => res.socket.end())
  })
  const es = open(t, server.url(), { reconnect: { delay: 0, maxRetries: 2 } })
  const rec = record(es)
  await rec.until((log) => log.some((e) => e.readyState === EventSource.CLOSED))
  const errors = rec.of('error').map((e) => e.event)
  t.same(errors.map((e) => e.willReconnect), [true, true, false])
  t.same(errors.slice(0, 2).map((e) => e.code), ['ERR_EVENTSOURCE_NETWORK', 'ERR_EVENTSOURCE_NETWORK'])
  t.equal(errors[2].code, 'ERR_EVENTSOURCE_RETRIES_EXHAUSTED')
  t.equal(rec.of('open').length, 3, 'each attempt opened')
  t.equal(rec.of('message').length, 0)
  t.equal(server.requests.length, 3)
})
