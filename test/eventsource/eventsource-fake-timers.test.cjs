'use strict'

// Under the fake timers that test suites install (@sinonjs/fake-timers, which Jest's modern timers are
// built on): the first request, open and messages need no tick of the fake clock; every wait the
// EventSource makes (reconnection time, retry:, backoff, Retry-After, idleTimeout, connectTimeout)
// follows the fake clock exactly.
//
// Two configurations, both leaving process.nextTick real: Node's own streams (net, http) call
// process.nextTick, so with it faked no HTTP client on Node makes progress (http.get and fetch
// included), whatever the EventSource does.
// - JEST: what fetch users give Jest (doNotFake: ['nextTick', 'setImmediate']): queueMicrotask,
//   setTimeout, Date and performance are fake.
// - SINON: Sinon's defaults less nextTick and queueMicrotask: setImmediate, setTimeout, Date and
//   performance are fake.

const t = require('tap')
const { once } = require('node:events')
const { serve, sse, bounded, countingDispatcher, withFakeTimers } = require('../helpers/index.cjs')

const CONFIGS = {
  JEST: { toNotFake: ['nextTick', 'setImmediate'] },
  SINON: { toNotFake: ['nextTick', 'queueMicrotask'] }
}

// Lets every promise job and nextTick callback already queued run (a handful of checkpoints), without
// any timer: nothing the EventSource does on its own may need more than this to make progress.
async function settle () {
  for (let i = 0; i < 10; i++) await new Promise((resolve) => process.nextTick(resolve))
}

for (const [name, config] of Object.entries(CONFIGS)) {
  t.test(`${name}: first request, open and messages without ticking the clock`, async (t) => {
    const srv = await serve(t, (req, res) => sse(res, 'data: one\n\ndata: two\n\n', { end: false }))
    await withFakeTimers(config, async (clock) => {
      const es = srv.eventSource('/')
      const seen = []
      es.onmessage = (e) => seen.push(e.data)
      await bounded(once(es, 'open'), () => 'open')
      await bounded(once(es, 'message'), () => 'a message')
      if (seen.length < 2) await bounded(once(es, 'message'), () => 'a second message')
      t.same(seen, ['one', 'two'], 'listeners added right after the constructor saw every event')
      t.equal(clock.now, 0, 'the fake clock never moved')
      es.close()
    })
  })

  t.test(`${name}: close() right after the constructor sends nothing`, async (t) => {
    const srv = await serve(t, (req, res) => sse(res, 'data: one\n\n'))
    await withFakeTimers(config, async (clock) => {
      const dispatcher = countingDispatcher(t)
      const es = srv.eventSource('/', { dispatcher })
      es.close()
      await settle()
      t.equal(dispatcher.calls.length, 0, 'no request was started')
      t.equal(srv.requests.length, 0)
    })
  })

  t.test(`${name}: the reconnection waits exactly the reconnection time, retry: included`, async (t) => {
    const srv = await serve(t, (req, res, index) => sse(res, index === 0 ? 'retry: 5000\ndata: a\n\n' : 'data: b\n\n'))
    await withFakeTimers(config, async (clock) => {
      const dispatcher = countingDispatcher(t)
      const es = srv.eventSource('/', { dispatcher })
      const [error] = await bounded(once(es, 'error'), () => 'the end of the first response')
      t.equal(error.reconnectDelay, 5000, 'retry: set the reconnection time')
      clock.tick(4999)
      t.equal(dispatcher.calls.length, 1, 'not reconnected 1 ms early')
      clock.tick(1)
      t.equal(dispatcher.calls.length, 2, 'reconnected at 5000 ms of fake time')
      t.equal(dispatcher.calls[1].headers['last-event-id'], undefined, 'no ID was sent')
      await bounded(srv.request(1), () => 'the second request')
      es.close()
    })
  })

  t.test(`${name}: keepAliveWhileReconnecting false: the reconnection still follows the fake clock`, async (t) => {
    const srv = await serve(t, (req, res, index) => sse(res, index === 0 ? 'retry: 2000\ndata: a\n\n' : 'data: b\n\n'))
    await withFakeTimers(config, async (clock) => {
      const dispatcher = countingDispatcher(t)
      const es = srv.eventSource('/', { dispatcher, keepAliveWhileReconnecting: false })
      await bounded(once(es, 'error'), () => 'the end of the first response')
      clock.tick(1999)
      t.equal(dispatcher.calls.length, 1, 'not reconnected early')
      clock.tick(1)
      t.equal(dispatcher.calls.length, 2, 'reconnected at 2000 ms of fake time: the fake timer took unref()')
      es.close()
    })
  })

  t.test(`${name}: backoff follows the fake clock`, async (t) => {
    const srv = await serve(t, (req, res) => { res.writeHead(503); res.end() })
    await withFakeTimers(config, async (clock) => {
      const dispatcher = countingDispatcher(t)
      const es = srv.eventSource('/', { dispatcher, reconnect: { delay: 1000, factor: 2, retryOnStatus: [503] } })
      const delays = []
      for (let attempt = 1; attempt <= 3; attempt++) {
        const [error] = await bounded(once(es, 'error'), () => `error ${attempt}`)
        delays.push(error.reconnectDelay)
        clock.tick(error.reconnectDelay - 1)
        t.equal(dispatcher.calls.length, attempt, `attempt ${attempt + 1} not started early`)
        clock.tick(1)
        t.equal(dispatcher.calls.length, attempt + 1, `attempt ${attempt + 1} started on time`)
      }
      t.same(delays, [1000, 2000, 4000])
      es.close()
    })
  })

  t.test(`${name}: idleTimeout follows the fake clock`, async (t) => {
    const srv = await serve(t, (req, res) => sse(res))
    await withFakeTimers(config, async (clock) => {
      const es = srv.eventSource('/', { idleTimeout: 60000, reconnectionTime: 1000 })
      await bounded(once(es, 'open'), () => 'open')
      const errors = []
      es.onerror = (e) => errors.push(e.code)
      clock.tick(59999)
      await settle()
      t.same(errors, [], 'not idle yet')
      clock.tick(1)
      await settle()
      t.same(errors, ['ERR_EVENTSOURCE_IDLE_TIMEOUT'], 'idle after 60 s of fake time')
      es.close()
    })
  })

  t.test(`${name}: connectTimeout follows the fake clock`, async (t) => {
    // A server that accepts the request and never answers.
    const srv = await serve(t, () => {})
    await withFakeTimers(config, async (clock) => {
      const es = srv.eventSource('/', { connectTimeout: 10000, reconnectionTime: 1000 })
      await bounded(srv.request(0), () => 'the request')
      const errors = []
      es.onerror = (e) => errors.push(e.code)
      clock.tick(9999)
      await settle()
      t.same(errors, [], 'still waiting for the head')
      clock.tick(1)
      await settle()
      t.same(errors, ['ERR_EVENTSOURCE_CONNECT_TIMEOUT'])
      es.close()
    })
  })
}
