'use strict'

// The diagnostics channels (lib/platform/channels-node.js): what each publishes, with its exact fields, in which
// order, on every path a source takes: a plain stream, redirects, failures, reconnection, retries
// exhausted, close() from a handler, the abort signal, closeOnEnd, the `for await` iterator's return, a
// source closed before its first request; on the Dispatcher transport and on the fetch transport. The
// attempt's TracingChannel is in diagnostics-tracing.test.cjs, the cost when nobody subscribes in
// diagnostics-unobserved.test.cjs.

const t = require('tap')
const { inspect } = require('node:util')
const { EventSource } = require('../../')
const {
  SSE_HEADERS, serve, sse, record, recordChannels, onceBounded, macrotask, reconnectionCycle, closeAtTeardown
} = require('../helpers/index.cjs')

const { CLOSED } = EventSource

// Both transports: the undici Dispatcher (the default), and a fetch (init.fetch: Node's own).
const TRANSPORTS = [
  ['Dispatcher', {}],
  ['fetch', { fetch: globalThis.fetch }]
]

// The channels in the order published, the TracingChannel's left out (its order is checked apart:
// the end of an attempt is reported as the transport sees it, the messages as their tasks run).
const channelNames = (rec, source) => rec.names(source).filter((name) => !name.startsWith('trace:'))

/**
 * Checks that `message` has exactly the fields of `expected`: a value is compared strictly (`source`
 * by identity), a function is a predicate the value must satisfy.
 */
function checkMessage (t, message, expected, what) {
  t.strictSame(Object.keys(message).sort(), Object.keys(expected).sort(), `${what}: exactly these fields`)
  for (const [key, want] of Object.entries(expected)) {
    if (key === 'source') t.equal(message.source, want, `${what}.source is the EventSource`)
    else if (typeof want === 'function') t.ok(want(message[key]), `${what}.${key}: ${inspect(message[key], { depth: 0 })}`)
    else t.strictSame(message[key], want, `${what}.${key}`)
  }
}

// The error channel's fields for an error event: the same details the event carries.
function errorFields (source, event) {
  return {
    source,
    error: (error) => error instanceof Error && error.code === event.code && error.message === event.message,
    code: event.code,
    status: event.status,
    cause: (cause) => cause === event.cause,
    willReconnect: event.willReconnect,
    delay: event.reconnectDelay
  }
}

const isTime = (max) => (ms) => typeof ms === 'number' && ms >= 0 && ms <= max

for (const [transport, transportInit] of TRANSPORTS) {
  t.test(`${transport}: a stream, from create to close(), every message with its fields`, async (t) => {
    // Two chunks: the first has a message, an event nobody listens for and `ping`, whose listener
    // closes the source, then an event that is never dispatched.
    const first = 'id: 1\ndata: hello\n\nevent: other\ndata: é\ndata: x\n\nevent: ping\ndata: p\n\n'
    const second = 'data: after\n\n'
    const srv = await serve(t, (req, res) => sse(res, first + second, { end: false }))
    const rec = recordChannels(t)
    const started = performance.now()
    const es = srv.eventSource('/events', { ...transportInit, reconnectionTime: 10 })
    const events = record(es, ['open', 'message', 'ping'])
    es.addEventListener('ping', () => es.close())
    await events.wait('ping')
    const elapsed = performance.now() - started

    t.strictSame(channelNames(rec, es), ['create', 'connect', 'open', 'message', 'message', 'message', 'close'])
    checkMessage(t, rec.of('create', es)[0], { source: es, url: srv.url('/events') }, 'create')
    checkMessage(t, rec.of('connect', es)[0], {
      source: es, attempt: 1, url: srv.url('/events'), method: 'GET', headers: { accept: 'text/event-stream' }, lastEventId: ''
    }, 'connect')
    checkMessage(t, rec.of('open', es)[0], {
      source: es,
      attempt: 1,
      status: 200,
      statusText: 'OK',
      headers: (headers) => headers['content-type'] === 'text/event-stream' && headers['transfer-encoding'] === 'chunked',
      url: srv.url('/events'),
      ms: isTime(elapsed)
    }, 'open')
    const messages = rec.of('message', es)
    checkMessage(t, messages[0], { source: es, type: 'message', lastEventId: '1', dataLength: 5 }, 'message 1')
    // Dispatched to nobody (no listener for "other"), but dispatched: published and counted.
    checkMessage(t, messages[1], { source: es, type: 'other', lastEventId: '1', dataLength: 3 }, 'message 2 (no listener)')
    checkMessage(t, messages[2], { source: es, type: 'ping', lastEventId: '1', dataLength: 1 }, 'message 3')
    checkMessage(t, rec.of('close', es)[0], {
      source: es,
      reason: 'close',
      events: 3,
      bytes: Buffer.byteLength(first + second),
      attempts: 1,
      msOpen: isTime(elapsed)
    }, 'close')
    t.same(events.types, ['open', 'message', 'ping'], 'the events the listeners saw')
  })

  t.test(`${transport}: a redirect: the final URL in open, reconnections go there, no password anywhere`, async (t) => {
    const srv = await serve(t, (req, res) => {
      if (req.url === '/start') res.writeHead(302, { location: '/final' }).end()
      else sse(res, 'data: a\n\n')
    })
    const rec = recordChannels(t)
    const url = srv.url('/start').replace('http://', 'http://user:s3cret@')
    const es = srv.eventSource(url, { ...transportInit, reconnectionTime: 10 })
    const events = record(es)
    await events.wait('open', 2)
    es.close()

    t.strictSame(channelNames(rec, es),
      ['create', 'connect', 'open', 'message', 'error', 'connect', 'open', 'close'])
    t.equal(rec.of('create', es)[0].url, srv.url('/start'), 'create: the URL without its credentials')
    t.strictSame(rec.of('connect', es).map((m) => m.url), [srv.url('/start'), srv.url('/final')],
      'connect: the first request to the URL, the reconnection to the final URL (as in Chromium)')
    t.strictSame(rec.of('open', es).map((m) => [m.attempt, m.status, m.url]), [[1, 200, srv.url('/final')], [2, 200, srv.url('/final')]],
      'open: the final URL')
    const published = JSON.stringify(rec.log(es).map(({ message: { source, error, cause, ...rest } }) => rest))
    t.notMatch(published, /s3cret|user@/, 'no message holds the credentials')
    t.equal(srv.requests.length, 3)
  })

  t.test(`${transport}: a status other than 200 fails the connection: error, then close`, async (t) => {
    const srv = await serve(t, (req, res) => res.writeHead(500, { 'content-type': 'text/plain' }).end('oops'))
    const rec = recordChannels(t)
    const es = srv.eventSource('/', transportInit)
    const events = record(es)
    const { event } = await events.wait('error')
    t.equal(es.readyState, CLOSED)
    t.strictSame(channelNames(rec, es), ['create', 'connect', 'error', 'close'], 'no open: the connection was never announced')
    checkMessage(t, rec.of('error', es)[0], errorFields(es, event), 'error')
    t.match(rec.of('error', es)[0], { code: 'ERR_EVENTSOURCE_BAD_STATUS', status: 500, willReconnect: false, delay: undefined })
    t.equal(rec.of('error', es)[0].cause, rec.of('error', es)[0].error, 'no underlying error: the cause is the error, as on the event')
    checkMessage(t, rec.of('close', es)[0], { source: es, reason: 'failure', events: 0, bytes: 0, attempts: 1, msOpen: 0 }, 'close')
  })

  t.test(`${transport}: a status the policy retries: error with willReconnect and the delay, then a new attempt`, async (t) => {
    const srv = await serve(t, (req, res, index) => {
      if (index === 0) res.writeHead(503, { 'retry-after': '0' }).end()
      else sse(res)
    })
    const rec = recordChannels(t)
    const es = srv.eventSource('/', { ...transportInit, reconnectionTime: 5, reconnect: { retryOnStatus: [503] } })
    const events = record(es)
    await events.wait('open')
    es.close()
    t.strictSame(channelNames(rec, es), ['create', 'connect', 'error', 'connect', 'open', 'close'])
    checkMessage(t, rec.of('error', es)[0], errorFields(es, events.of('error')[0].event), 'error')
    t.match(rec.of('error', es)[0], { code: 'ERR_EVENTSOURCE_BAD_STATUS', status: 503, willReconnect: true, delay: 5 })
    t.strictSame(rec.of('connect', es).map((m) => m.attempt), [1, 2])
  })

  t.test(`${transport}: network errors and ends of the stream reconnect: attempts, lastEventId, willReconnect, delay`, async (t) => {
    const bodies = ['id: a\ndata: 1\n\n', 'data: 2\n\n']
    const srv = await serve(t, (req, res, index) => {
      if (index === 0) sse(res, bodies[0])
      else if (index === 1) {
        // Cut off: the body never ends, the socket goes.
        res.writeHead(200, SSE_HEADERS)
        res.write(bodies[1], () => res.socket.destroy())
      } else {
        sse(res)
      }
    })
    const rec = recordChannels(t)
    const es = srv.eventSource('/', { ...transportInit, reconnectionTime: 10 })
    const events = record(es)
    await events.wait('open', 3)
    es.close()

    t.strictSame(channelNames(rec, es), [
      'create',
      'connect', 'open', 'message', 'error',
      'connect', 'open', 'message', 'error',
      'connect', 'open', 'close'
    ])
    const connects = rec.of('connect', es)
    t.strictSame(connects.map((m) => [m.attempt, m.lastEventId, m.headers['last-event-id']]),
      [[1, '', undefined], [2, 'a', 'a'], [3, 'a', 'a']], 'each attempt, with the last event ID it sends')
    t.strictSame(rec.of('open', es).map((m) => m.attempt), [1, 2, 3])
    const errors = rec.of('error', es)
    const errorEvents = events.of('error').map((e) => e.event)
    errors.forEach((message, i) => checkMessage(t, message, errorFields(es, errorEvents[i]), `error ${i + 1}`))
    t.match(errors, [
      { code: 'ERR_EVENTSOURCE_STREAM_ENDED', status: undefined, willReconnect: true, delay: 10 },
      { code: 'ERR_EVENTSOURCE_NETWORK', status: undefined, willReconnect: true, delay: 10 }
    ])
    t.ok(errors[1].cause instanceof Error && errors[1].cause !== errors[1].error, 'a network error: the socket\'s error is the cause')
    checkMessage(t, rec.of('close', es)[0], {
      source: es, reason: 'close', events: 2, bytes: Buffer.byteLength(bodies.join('')), attempts: 3, msOpen: (ms) => ms > 0
    }, 'close')
    t.same(events.types, ['open', 'message', 'error', 'open', 'message', 'error', 'open'])
  })
}

t.test('a wrong Content-Type fails the connection', async (t) => {
  const srv = await serve(t, (req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('data: x\n\n'))
  const rec = recordChannels(t)
  const es = srv.eventSource('/')
  const events = record(es)
  const { event } = await events.wait('error')
  t.strictSame(channelNames(rec, es), ['create', 'connect', 'error', 'close'])
  checkMessage(t, rec.of('error', es)[0], errorFields(es, event), 'error')
  t.match(rec.of('error', es)[0], { code: 'ERR_EVENTSOURCE_BAD_CONTENT_TYPE', status: 200, willReconnect: false })
  t.match(rec.of('close', es)[0], { reason: 'failure', events: 0, bytes: 0, attempts: 1, msOpen: 0 })
})

t.test('retries exhausted: the last error says so, then close with the totals', async (t) => {
  // Every attempt answers and ends without an event: not progress.
  const srv = await serve(t, (req, res) => sse(res, ': nothing\n\n'))
  const rec = recordChannels(t)
  const es = srv.eventSource('/', { reconnectionTime: 5, reconnect: { maxRetries: 1 } })
  const events = record(es)
  await events.wait('error', 2)
  t.equal(es.readyState, CLOSED)
  t.strictSame(channelNames(rec, es), ['create', 'connect', 'open', 'error', 'connect', 'open', 'error', 'close'])
  const errors = rec.of('error', es)
  errors.forEach((message, i) => checkMessage(t, message, errorFields(es, events.of('error')[i].event), `error ${i + 1}`))
  t.match(errors, [
    { code: 'ERR_EVENTSOURCE_STREAM_ENDED', willReconnect: true, delay: 5 },
    { code: 'ERR_EVENTSOURCE_RETRIES_EXHAUSTED', willReconnect: false, delay: undefined }
  ])
  t.equal(errors[1].cause.code, 'ERR_EVENTSOURCE_STREAM_ENDED', 'the cause: why the last attempt ended')
  checkMessage(t, rec.of('close', es)[0], {
    source: es, reason: 'failure', events: 0, bytes: 2 * Buffer.byteLength(': nothing\n\n'), attempts: 2, msOpen: (ms) => ms > 0
  }, 'close')
})

t.test('the messages come before the events they describe, close before a failure\'s error event', async (t) => {
  const srv = await serve(t, (req, res, index) => {
    if (index === 0) sse(res, 'data: 1\n\n')
    else res.writeHead(404).end()
  })
  const log = []
  recordChannels(t, { tracing: false, onMessage: (name) => log.push(name) })
  const es = srv.eventSource('/')
  for (const type of ['open', 'message', 'error']) es.addEventListener(type, () => log.push(`event:${type}`))
  await onceBounded(es, 'error')
  await onceBounded(es, 'error')
  t.strictSame(log, [
    'create', 'connect', 'open', 'event:open', 'message', 'event:message', 'error', 'event:error',
    'connect', 'error', 'close', 'event:error'
  ])
})

t.test('close() from a handler', async (t) => {
  t.test('from onopen', async (t) => {
    const srv = await serve(t, (req, res) => sse(res, 'data: never\n\n', { end: false }))
    const rec = recordChannels(t)
    const es = srv.eventSource('/')
    es.onopen = () => es.close()
    es.onmessage = () => t.fail('no message after close()')
    await rec.wait('close', 1, es)
    t.strictSame(channelNames(rec, es), ['create', 'connect', 'open', 'close'])
    t.match(rec.of('close', es)[0], { reason: 'close', events: 0, attempts: 1 })
  })

  t.test('from onerror while CONNECTING: no further attempt', async (t) => {
    const srv = await serve(t, (req, res) => sse(res, 'data: 1\n\n'))
    const rec = recordChannels(t)
    const es = srv.eventSource('/', { reconnectionTime: 0 })
    es.onerror = () => es.close()
    await rec.wait('close', 1, es)
    t.strictSame(channelNames(rec, es), ['create', 'connect', 'open', 'message', 'error', 'close'])
    t.match(rec.of('error', es)[0], { code: 'ERR_EVENTSOURCE_STREAM_ENDED', willReconnect: true, delay: 0 })
    t.match(rec.of('close', es)[0], { reason: 'close', events: 1, bytes: 9, attempts: 1 })
    // A reconnection would have come after 0 ms: one full reconnection cycle elsewhere shows none did.
    await reconnectionCycle(t, 0)
    t.strictSame(channelNames(rec, es), ['create', 'connect', 'open', 'message', 'error', 'close'], 'nothing more')
    t.equal(srv.requests.length, 1)
  })
})

t.test('the abort signal: close with reason "abort"', async (t) => {
  t.test('aborted while open', async (t) => {
    const srv = await serve(t, (req, res) => sse(res, 'data: 1\n\n', { end: false }))
    const rec = recordChannels(t)
    const controller = new AbortController()
    const es = srv.eventSource('/', { signal: controller.signal })
    es.onmessage = () => controller.abort()
    await rec.wait('close', 1, es)
    t.equal(es.readyState, CLOSED)
    t.strictSame(channelNames(rec, es), ['create', 'connect', 'open', 'message', 'close'])
    checkMessage(t, rec.of('close', es)[0], {
      source: es, reason: 'abort', events: 1, bytes: 9, attempts: 1, msOpen: (ms) => ms >= 0
    }, 'close')
  })

  t.test('aborted before the constructor: create, then close, and no request', async (t) => {
    const srv = await serve(t, (req, res) => sse(res))
    const rec = recordChannels(t)
    const es = srv.eventSource('/', { signal: AbortSignal.abort() })
    await macrotask()
    t.strictSame(channelNames(rec, es), ['create', 'close'])
    checkMessage(t, rec.of('close', es)[0], { source: es, reason: 'abort', events: 0, bytes: 0, attempts: 0, msOpen: 0 }, 'close')
    t.equal(srv.requests.length, 0)
  })
})

t.test('closeOnEnd: close with reason "end", and no error', async (t) => {
  const body = 'data: one\n\ndata: two\n\n'
  const srv = await serve(t, (req, res) => sse(res, body))
  const rec = recordChannels(t)
  const es = srv.eventSource('/', { closeOnEnd: true, method: 'POST', body: '{}' })
  const log = []
  es.addEventListener('end', () => log.push(rec.names(es).at(-1)))
  await onceBounded(es, 'end')
  t.strictSame(channelNames(rec, es), ['create', 'connect', 'open', 'message', 'message', 'close'])
  t.equal(rec.of('connect', es)[0].method, 'POST')
  t.strictSame(rec.of('connect', es)[0].headers, { accept: 'text/event-stream', 'content-type': 'text/plain;charset=UTF-8' })
  checkMessage(t, rec.of('close', es)[0], {
    source: es, reason: 'end', events: 2, bytes: Buffer.byteLength(body), attempts: 1, msOpen: (ms) => ms >= 0
  }, 'close')
  t.strictSame(log, ['close'], 'close is published before the end event')
})

t.test('the for await iterator\'s return closes the source: reason "close"', async (t) => {
  const srv = await serve(t, (req, res) => sse(res, 'data: 1\n\ndata: 2\n\n', { end: false }))
  const rec = recordChannels(t)
  const es = srv.eventSource('/')
  for await (const event of es) { // eslint-disable-line no-unreachable-loop -- the break is what is tested
    t.equal(event.data, '1')
    break
  }
  t.equal(es.readyState, CLOSED)
  t.strictSame(channelNames(rec, es), ['create', 'connect', 'open', 'message', 'close'])
  t.match(rec.of('close', es)[0], { reason: 'close', events: 1, attempts: 1 })
})

t.test('a source closed before its first request: create and close, nothing else', async (t) => {
  const srv = await serve(t, (req, res) => sse(res))
  const rec = recordChannels(t)
  const es = closeAtTeardown(t, new EventSource(srv.url()))
  es.close()
  es.close()
  // The request would have been sent from a promise job after the constructor.
  await macrotask()
  t.strictSame(rec.names(es), ['create', 'close'], 'close once, and no attempt')
  checkMessage(t, rec.of('close', es)[0], { source: es, reason: 'close', events: 0, bytes: 0, attempts: 0, msOpen: 0 }, 'close')
  t.equal(srv.requests.length, 0)
})

t.test('the totals of close against what the server sent and how long the source was OPEN', async (t) => {
  // Three connections: 3 events, then 2 with an event nobody listens for, then 1 and the close.
  const bodies = ['id: 1\ndata: a\n\ndata: bb\n\ndata: ccc\n\n', 'event: unheard\ndata: d\n\ndata: eeee\n\n', 'data: 😀\n\n']
  const srv = await serve(t, (req, res, index) => sse(res, bodies[index], { end: index < 2 }))
  const rec = recordChannels(t, { tracing: false })
  const es = srv.eventSource('/', { reconnectionTime: 1 })
  const events = record(es)
  await events.wait('message', 5)
  const beforeClose = performance.now()
  es.close()
  const afterClose = performance.now()

  const close = rec.of('close', es)[0]
  t.equal(close.events, 6, 'every event dispatched, listened for or not')
  t.equal(close.bytes, Buffer.byteLength(bodies.join('')), 'every body byte, over the three connections')
  t.equal(close.attempts, 3)
  t.equal(rec.of('message', es).reduce((n, m) => n + m.dataLength, 0), 1 + 2 + 3 + 1 + 4 + 2, 'dataLength: UTF-16 code units')
  // Each time OPEN: from no sooner than the open message to no later than the open event, until
  // between the attempt's end (which precedes the error) or close() and the message that says so.
  const entries = rec.log(es)
  const opens = entries.filter((e) => e.name === 'open').map((e) => e.time)
  const openEvents = events.of('open').map((e) => e.event.timeStamp)
  const errorTimes = entries.filter((e) => e.name === 'error').map((e) => e.time)
  const errorEvents = events.of('error').map((e) => e.event.timeStamp)
  let least = beforeClose - openEvents[2]
  let most = afterClose - opens[2]
  for (let i = 0; i < 2; i++) {
    // The source leaves OPEN in the error's task: after the message event before it, before the error message.
    const lastMessage = events.events.filter((e) => e.type === 'message' && e.time < errorEvents[i]).at(-1).event.timeStamp
    least += lastMessage - openEvents[i]
    most += errorTimes[i] - opens[i]
  }
  t.ok(close.msOpen >= least - 0.001 && close.msOpen <= most + 0.001, `msOpen ${close.msOpen} within [${least}, ${most}]`)
  t.equal(es.readyState, CLOSED)
})

t.test('sources are told apart: each message names its own source', async (t) => {
  const srv = await serve(t, (req, res) => sse(res, `data: ${req.url}\n\n`, { end: false }))
  const rec = recordChannels(t, { tracing: false })
  const a = srv.eventSource('/a')
  const b = srv.eventSource('/b')
  await Promise.all([onceBounded(a, 'message'), onceBounded(b, 'message')])
  a.close()
  b.close()
  for (const [es, path] of [[a, '/a'], [b, '/b']]) {
    t.strictSame(channelNames(rec, es), ['create', 'connect', 'open', 'message', 'close'])
    t.equal(rec.of('open', es)[0].url, srv.url(path))
    t.equal(rec.of('message', es)[0].dataLength, 2)
  }
})
