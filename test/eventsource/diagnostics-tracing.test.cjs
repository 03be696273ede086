'use strict'

// The attempt's TracingChannel (`tracing:whatwg-eventsource:attempt:*`, lib/platform/channels-node.js): `start`
// and `end` around sending the request, in whose stores the transport does its I/O; `asyncStart` and
// `asyncEnd` when the attempt is over, with `error` before them when it ended in one. One context
// object per attempt, published on each.

const t = require('tap')
const dc = require('node:diagnostics_channel')
const { AsyncLocalStorage } = require('node:async_hooks')
const { EventSource } = require('../../')
const { SSE_HEADERS, serve, sse, record, recordChannels, onceBounded, closeAtTeardown } = require('../helpers/index.cjs')

const attemptChannel = dc.tracingChannel('whatwg-eventsource:attempt')

const TRANSPORTS = [
  ['Dispatcher', {}],
  ['fetch', { fetch: globalThis.fetch }]
]

// The tracing events of each attempt of `source`, in order: { attempt: [names] }.
function perAttempt (rec, source) {
  const out = {}
  for (const { name, message } of rec.log(source)) {
    if (name.startsWith('trace:')) (out[message.attempt] ??= []).push(name.slice('trace:'.length))
  }
  return out
}

for (const [transport, transportInit] of TRANSPORTS) {
  t.test(`${transport}: each attempt: start, end at once; error (when it ended in one), asyncStart, asyncEnd when it is over`, async (t) => {
    const srv = await serve(t, (req, res, index) => {
      if (index === 0) sse(res, 'id: 7\ndata: 1\n\n')
      else if (index === 1) {
        res.writeHead(200, SSE_HEADERS)
        res.write('data: 2\n\n', () => res.socket.destroy())
      } else sse(res)
    })
    const rec = recordChannels(t)
    const es = srv.eventSource('/', { ...transportInit, reconnectionTime: 5 })
    const events = record(es)
    await events.wait('open', 3)
    es.close()

    t.strictSame(perAttempt(rec, es), {
      1: ['start', 'end', 'asyncStart', 'asyncEnd'],
      2: ['start', 'end', 'error', 'asyncStart', 'asyncEnd'],
      3: ['start', 'end', 'asyncStart', 'asyncEnd']
    }, 'the end of the body is no error; a cut connection is; close() ends the last attempt')
    const names = rec.names(es)
    for (let i = 0; i < names.length; i++) {
      if (names[i] === 'connect') t.strictSame(names.slice(i, i + 3), ['connect', 'trace:start', 'trace:end'], 'start and end right after connect')
    }
    t.ok(names.indexOf('trace:asyncEnd') < names.indexOf('error'), 'the attempt is over before its error is reported')
    t.equal(names.at(-1), 'close', 'close() ends the attempt first')
    t.equal(names.at(-2), 'trace:asyncEnd')

    // The context: what connect says, and the error when there is one.
    const connects = rec.of('connect', es)
    const contexts = rec.log(es).filter((e) => e.name === 'trace:start').map((e) => e.message)
    t.strictSame(contexts.map(({ source, ...rest }) => rest), connects.map(({ source, ...rest }) => rest), 'start: the connect message\'s fields')
    t.ok(contexts.every((context) => context.source === es))
    const [error] = rec.of('trace:error', es)
    t.equal(error.error.code, 'ERR_EVENTSOURCE_NETWORK')
    t.equal(rec.of('error', es)[1].error, error.error, 'the same error the error channel then reports')
    t.strictSame(Object.keys(error).sort(), ['attempt', 'error', 'headers', 'lastEventId', 'method', 'source', 'url'])
    t.notOk('error' in rec.of('connect', es)[1], 'the connect message is not the tracing context')
  })

  t.test(`${transport}: AsyncLocalStorage bound to start is the store of the transport's I/O`, async (t) => {
    const als = new AsyncLocalStorage()
    // A store only, no subscriber: that alone makes the channel publish.
    attemptChannel.start.bindStore(als, (context) => ({ attempt: context.attempt, source: context.source }))
    t.teardown(() => attemptChannel.start.unbindStore(als))
    const seen = []
    const onRequest = ({ request }) => seen.push([request.path, als.getStore()])
    dc.subscribe('undici:request:create', onRequest)
    t.teardown(() => dc.unsubscribe('undici:request:create', onRequest))

    const srv = await serve(t, (req, res, index) => sse(res, index === 0 ? 'data: 1\n\n' : undefined))
    const es = srv.eventSource('/sse', { ...transportInit, reconnectionTime: 5 })
    const events = record(es)
    await events.wait('open', 2)
    es.close()
    const mine = seen.filter(([path]) => path === '/sse')
    t.equal(mine.length, 2, 'undici created both requests')
    t.strictSame(mine.map(([, store]) => store?.attempt), [1, 2], 'each in the store of its own attempt')
    t.ok(mine.every(([, store]) => store.source === es))
    t.equal(als.getStore(), undefined, 'and nowhere else')
  })
}

t.test('the Dispatcher transport creates its request between start and end', async (t) => {
  const srv = await serve(t, (req, res) => sse(res))
  const rec = recordChannels(t, { extra: ['undici:request:create'] })
  const es = srv.eventSource('/')
  await onceBounded(es, 'open')
  es.close()
  const names = rec.names().filter((name) => name !== 'create')
  t.strictSame(names.slice(0, 4), ['connect', 'trace:start', 'undici:request:create', 'trace:end'])
})

t.test('init.fetch is called in the store of the attempt', async (t) => {
  const als = new AsyncLocalStorage()
  attemptChannel.start.bindStore(als, (context) => context.attempt)
  t.teardown(() => attemptChannel.start.unbindStore(als))
  const srv = await serve(t, (req, res) => sse(res))
  const stores = []
  const es = srv.eventSource('/', {
    fetch: (input, init) => {
      stores.push(als.getStore())
      return globalThis.fetch(input, init)
    }
  })
  await onceBounded(es, 'open')
  es.close()
  t.strictSame(stores, [1])
})

t.test('a transport that fails in start(): end still comes before error, asyncStart and asyncEnd', async (t) => {
  const rec = recordChannels(t)
  // An unsupported scheme fails at once, inside the transport's start(); the failure's task runs
  // there too (no task is waiting), so its error and close come before end.
  const es = closeAtTeardown(t, new EventSource('ftp://127.0.0.1/file'))
  const events = record(es)
  await events.wait('error')
  t.strictSame(rec.names(es), [
    'create', 'connect', 'trace:start', 'error', 'close', 'trace:end', 'trace:error', 'trace:asyncStart', 'trace:asyncEnd'
  ])
  t.equal(rec.of('trace:error', es)[0].error.code, 'ERR_EVENTSOURCE_UNSUPPORTED_SCHEME')
  t.match(rec.of('close', es)[0], { reason: 'failure', attempts: 1 })
})

t.test('a failure after the response head: error, then asyncStart and asyncEnd', async (t) => {
  const srv = await serve(t, (req, res) => res.writeHead(403).end())
  const rec = recordChannels(t)
  const es = srv.eventSource('/')
  await onceBounded(es, 'error')
  t.strictSame(rec.names(es), [
    'create', 'connect', 'trace:start', 'trace:end', 'trace:error', 'trace:asyncStart', 'trace:asyncEnd', 'error', 'close'
  ])
  t.match(rec.of('trace:error', es)[0].error, { code: 'ERR_EVENTSOURCE_BAD_STATUS', status: 403 })
})

t.test('a subscriber to the TracingChannel alone gets the attempts, and no channel message is published', async (t) => {
  const seen = []
  const handlers = {
    start: (context) => seen.push(['start', context.attempt]),
    end: (context) => seen.push(['end', context.attempt]),
    asyncStart: (context) => seen.push(['asyncStart', context.attempt]),
    asyncEnd: (context) => seen.push(['asyncEnd', context.attempt]),
    error: (context) => seen.push(['error', context.attempt])
  }
  attemptChannel.subscribe(handlers)
  t.teardown(() => attemptChannel.unsubscribe(handlers))
  const published = []
  const connect = dc.channel('whatwg-eventsource:connect')
  connect.publish = (message) => published.push(message)
  t.teardown(() => { delete connect.publish })
  const srv = await serve(t, (req, res) => sse(res))
  const es = srv.eventSource('/')
  await onceBounded(es, 'open')
  es.close()
  t.strictSame(seen, [['start', 1], ['end', 1], ['asyncStart', 1], ['asyncEnd', 1]])
  t.strictSame(published, [], 'connect, which has no subscriber, was not published')
})
