'use strict'

// Reestablishing the connection: when the body ends or the network fails, readyState goes back to
// CONNECTING, `error` is fired, and the request is sent again after the reconnection time, which a
// `retry` field changes as soon as it is parsed. Real times are only ever checked as lower bounds.
// https://html.spec.whatwg.org/multipage/server-sent-events.html#reestablish-the-connection

const t = require('tap')
const { EventSource } = require('../../')
const {
  serve, sse, record, reconnectionCycle, closedPort, open, fakeClock, stamped, stepThrough
} = require('../helpers/index.cjs')

const { CONNECTING, OPEN } = EventSource

const now = () => Number(process.hrtime.bigint()) / 1e6

// Timers may fire up to the event loop's cached-time skew early relative to a clock read inside a
// listener; allow a little slack below the nominal delay (still far above the 10 ms used otherwise).
const atLeast = (ms) => ms * 0.9

// Serves bodies[i] (ended) to the i-th request; later requests get the last body, left open.
async function sequence (t, bodies) {
  const arrivals = []
  const srv = await serve(t, (req, res, i) => {
    arrivals.push(now())
    if (i < bodies.length) sse(res, bodies[i])
    else sse(res, ':\n', { end: false })
  })
  srv.arrivals = arrivals
  return srv
}

t.test('the end of the body reestablishes the connection', async (t) => {
  const srv = await sequence(t, ['data: 1\n\n', 'data: 2\n\n'])
  const es = srv.eventSource('/')
  const rec = record(es)
  await rec.wait('open', 3)
  t.same(rec.types, ['open', 'message', 'error', 'open', 'message', 'error', 'open'])
  t.same(rec.events.map((e) => e.readyState), [OPEN, OPEN, CONNECTING, OPEN, OPEN, CONNECTING, OPEN])
  t.same(rec.data(), ['1', '2'])
  t.equal(srv.requests.length, 3)
  t.equal(es.readyState, OPEN)
})

t.test('a network error in the body reestablishes the connection', async (t) => {
  const srv = await serve(t, (req, res, i) => {
    sse(res, i === 0 ? 'data: before\n\ndata: cut' : 'data: after\n\n', { end: false })
  })
  const rec = record(srv.eventSource('/'))
  await rec.wait('message')
  // The chunked body stops in the middle: a network error, not the end of the body.
  srv.requests[0].socket.destroy()
  await rec.wait('message', 2)
  t.same(rec.types, ['open', 'message', 'error', 'open', 'message'])
  t.equal(rec.events[2].readyState, CONNECTING)
  t.same(rec.data(), ['before', 'after'], 'the cut event is discarded')
})

t.test('a network error before the response reestablishes the connection', async (t) => {
  const srv = await serve(t, (req, res, i) => {
    if (i === 0) req.socket.destroy()
    else sse(res, 'data: second try\n\n', { end: false })
  })
  const rec = record(srv.eventSource('/'))
  await rec.wait('message')
  t.same(rec.types, ['error', 'open', 'message'])
  t.equal(rec.events[0].readyState, CONNECTING)
})

t.test('a refused connection keeps being retried', async (t) => {
  const port = await closedPort()
  const es = open(t, `http://127.0.0.1:${port}/`, { reconnectionTime: 5 })
  const rec = record(es)
  await rec.wait('error', 3)
  t.same(rec.types.slice(0, 3), ['error', 'error', 'error'])
  t.ok(rec.events.every((e) => e.readyState === CONNECTING), 'every error leaves it CONNECTING')
  t.equal(es.readyState, CONNECTING)
})

t.test('the reconnection option sets the initial wait', async (t) => {
  const srv = await sequence(t, [':\n'])
  const rec = record(srv.eventSource('/', { node: { reconnectionTime: 250 } }))
  const error = await rec.wait('error')
  const errorAt = now()
  await srv.request(1)
  t.ok(srv.arrivals[1] - errorAt >= atLeast(250), `waited ${srv.arrivals[1] - errorAt} ms`)
  t.equal(error.readyState, CONNECTING)
})

t.test('the default reconnection time is 3 seconds', async (t) => {
  // On a fake clock: the tests above show real timers doing the waiting; this one, the default delay
  // they are given, to the millisecond (no attempt at 2999 ms, one at 3000), without waiting 3 s.
  const clock = fakeClock(t)
  const srv = await sequence(t, [':\n'])
  const source = stamped(t, clock, srv.url('/'))
  const { delays, wrong } = await stepThrough(clock, source, 1)
  t.same(wrong, [])
  t.same(delays, [3000], 'the reconnection time announced')
  t.same(source.attempts, [0, 3000], 'the second request, 3000 ms after the first')
})

t.test('retry sets the reconnection time', async (t) => {
  const srv = await sequence(t, ['retry: 300\ndata: x\n\n'])
  const rec = record(srv.eventSource('/'))
  await rec.wait('error')
  const errorAt = now()
  await srv.request(1)
  t.ok(srv.arrivals[1] - errorAt >= atLeast(300), `waited ${srv.arrivals[1] - errorAt} ms`)
})

t.test('retry applies as soon as it is parsed, without an event being dispatched', async (t) => {
  // No blank line follows: the event is never dispatched, the retry still counts.
  const srv = await sequence(t, ['retry: 300\n'])
  const rec = record(srv.eventSource('/'))
  await rec.wait('error')
  const errorAt = now()
  await srv.request(1)
  t.ok(srv.arrivals[1] - errorAt >= atLeast(300), `waited ${srv.arrivals[1] - errorAt} ms`)
  t.equal(rec.count('message'), 0)
})

t.test('the last retry wins and persists across reconnections', async (t) => {
  const srv = await sequence(t, ['retry: 1\nretry: 200\n\n', 'data: no retry here\n\n'])
  const rec = record(srv.eventSource('/'))
  await rec.wait('error')
  const firstErrorAt = now()
  await rec.wait('error', 2)
  const secondErrorAt = now()
  await srv.request(2)
  t.ok(srv.arrivals[1] - firstErrorAt >= atLeast(200), `first wait ${srv.arrivals[1] - firstErrorAt} ms`)
  t.ok(srv.arrivals[2] - secondErrorAt >= atLeast(200), `second wait ${srv.arrivals[2] - secondErrorAt} ms`)
})

t.test('invalid retry values are ignored', async (t) => {
  // Each line would mean a 1 ms wait if it were (mis)read as a number.
  const invalid = ['retry: 1x', 'retry: -1', 'retry: +1', 'retry: 1.5', 'retry:  1', 'retry: 1 ',
    'retry: 0x1', 'retry: \u0661', 'RETRY: 1', 'Retry: 1', 'retry :1', 'retry', 'retry:', 'retry: ']
  const srv = await sequence(t, [`${invalid.join('\n')}\n\n`])
  const rec = record(srv.eventSource('/', { reconnectionTime: 250 }))
  await rec.wait('error')
  const errorAt = now()
  await srv.request(1)
  t.ok(srv.arrivals[1] - errorAt >= atLeast(250), `waited ${srv.arrivals[1] - errorAt} ms`)
})

t.test('a huge retry does not turn into a reconnection loop', async (t) => {
  for (const retry of ['2147483648', '99999999999999999999', '9'.repeat(400)]) {
    const warnings = []
    const onWarning = (w) => warnings.push(w.name)
    process.on('warning', onWarning)
    const srv = await sequence(t, [`retry: ${retry}\n\n`])
    const es = srv.eventSource('/')
    const rec = record(es)
    await rec.wait('error')
    // A control EventSource with a 10 ms wait, started later, reconnects: ours would have too.
    await reconnectionCycle(t, 10)
    process.off('warning', onWarning)
    t.equal(srv.requests.length, 1, `retry ${retry.slice(0, 20)}: no second request`)
    t.equal(es.readyState, CONNECTING, 'still waiting to reconnect')
    t.notOk(warnings.includes('TimeoutOverflowWarning'), 'the timer delay was clamped')
    es.close()
  }
})

t.test('a reconnection starts a fresh stream', async (t) => {
  // The first body ends inside an event (type and data pending, a CR at the very end); the second
  // starts with a BOM and an LF. Nothing of the first may leak into the second.
  const srv = await sequence(t, ['event: stale\ndata: partial\r', '\uFEFF\ndata: fresh\n\n'])
  const es = srv.eventSource('/')
  const stale = []
  es.addEventListener('stale', (e) => stale.push(e.data))
  const rec = record(es)
  await rec.wait('message')
  t.same(rec.data(), ['fresh'])
  t.same(stale, [])
})

t.test('a failed reconnection closes the EventSource', async (t) => {
  const srv = await serve(t, (req, res, i) => {
    if (i === 0) sse(res, 'data: a\n\n')
    else res.writeHead(503).end()
  })
  const es = srv.eventSource('/')
  const rec = record(es)
  await rec.wait('error', 2)
  t.same(rec.types.slice(0, 4), ['open', 'message', 'error', 'error'])
  t.equal(rec.events[2].readyState, CONNECTING, 'the end of the body reestablishes')
  t.equal(rec.events[3].readyState, EventSource.CLOSED, 'the 503 fails')
  t.equal(es.readyState, EventSource.CLOSED, 'CLOSED')
})

t.test('reconnectionTime 0 reconnects at once', async (t) => {
  const srv = await sequence(t, [':\n', ':\n'])
  const rec = record(srv.eventSource('/', { reconnectionTime: 0 }))
  await rec.wait('open', 3)
  t.same(rec.types, ['open', 'error', 'open', 'error', 'open'])
})
