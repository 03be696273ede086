'use strict'

// Interim responses (1xx) before the final one: fetch skips them and judges the next response, and so does
// every transport here, whatever the dispatcher and its undici (6, which Node 20 and 22 bundle for their
// fetch, 7 and 8). A CDN sends `103 Early Hints` in front of real responses. A 101 that answers a request
// which asked for no upgrade, and a 1xx with a body, are network errors (the connection is reestablished),
// never a final status; a server that sends nothing but 1xx is still bounded by connectTimeout.
// https://fetch.spec.whatwg.org/#http-network-fetch ("If response's status is in the range 100 to 199")
// The servers are node:net ones: node:http would not write most of these heads.

const t = require('tap')
const undici6 = require('undici6')
const undici7 = require('undici')
const { EventSource } = require('../../')
const { rawServer, serve, open, record, tlsFixture } = require('../helpers/index.cjs')

const { CONNECTING, OPEN } = EventSource

const [NODE_MAJOR, NODE_MINOR] = process.versions.node.split('.').map(Number)
const UNDICI8 = NODE_MAJOR > 22 || (NODE_MAJOR === 22 && NODE_MINOR >= 19)

const STREAM = 'HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\ndata: after the hints\n\n'
const EARLY_HINTS = 'HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload; as=style\r\n\r\n'

// The transports an attempt can take, as an init to merge.
function transports (t) {
  const agent = (Agent) => {
    const dispatcher = new Agent()
    t.teardown(() => dispatcher.close())
    return { dispatcher }
  }
  const list = [
    ['undici 6\'s Agent', () => agent(undici6.Agent)],
    ['undici 7\'s Agent', () => agent(undici7.Agent)],
    // Node 20's: the package's Agent; Node 22 and later: the Agent of the undici inside Node (6, 7, 8).
    ['the global dispatcher', () => ({})],
    ['Node\'s fetch', () => ({ fetch: globalThis.fetch })]
  ]
  if (UNDICI8) list.push(['undici 8\'s Agent', () => agent(require('undici8').Agent)])
  return list
}

/** The events of a source on `url` up to the first message or error; the source is closed there. */
async function firstOutcome (t, url, init) {
  const es = open(t, url, { reconnectionTime: 60_000, ...init })
  const rec = record(es)
  await rec.until((events) => {
    if (!events.some((e) => e.type === 'message' || e.type === 'error')) return false
    es.close()
    return true
  })
  return rec.events.map((e) => e.type === 'error' ? ['error', e.readyState, e.event.code] : [e.type, e.readyState, e.data])
}

t.test('103 Early Hints, then the event stream: the events, as if the hints were not there', async (t) => {
  const server = await rawServer(t, () => EARLY_HINTS + STREAM)
  for (const [name, init] of transports(t)) {
    t.same(await firstOutcome(t, server.url('/'), init()), [['open', OPEN, undefined], ['message', OPEN, 'after the hints']], name)
  }
})

t.test('several interim responses in a row (102, 103, 103): all skipped', async (t) => {
  const server = await rawServer(t, () => 'HTTP/1.1 102 Processing\r\n\r\n' + EARLY_HINTS + EARLY_HINTS + STREAM)
  for (const [name, init] of transports(t)) {
    t.same(await firstOutcome(t, server.url('/'), init()), [['open', OPEN, undefined], ['message', OPEN, 'after the hints']], name)
  }
})

t.test('an interim response with a body: a network error, reestablished', async (t) => {
  // A 1xx has no body: the bytes after its head are not a response.
  const server = await rawServer(t, () => 'HTTP/1.1 103 Early Hints\r\nContent-Length: 5\r\n\r\nhello' + STREAM)
  for (const [name, init] of transports(t)) {
    t.same(await firstOutcome(t, server.url('/'), init()), [['error', CONNECTING, 'ERR_EVENTSOURCE_NETWORK']], name)
  }
})

t.test('101 Switching Protocols to a request that asked for no upgrade: a network error, reestablished', async (t) => {
  const server = await rawServer(t, () => 'HTTP/1.1 101 Switching Protocols\r\n\r\n' + STREAM)
  for (const [name, init] of transports(t)) {
    const outcome = await firstOutcome(t, server.url('/'), init())
    if (init().fetch === undefined) {
      t.same(outcome, [['error', CONNECTING, 'ERR_EVENTSOURCE_NETWORK']], name)
    } else {
      // What the fetch makes of it is the fetch's: undici 6's (Node 20 and 22) skips it and reads the next
      // response; 7's and 8's fail the request. Never a final status.
      const skipped = [['open', OPEN, undefined], ['message', OPEN, 'after the hints']]
      t.ok(JSON.stringify(outcome) === JSON.stringify(skipped) || outcome[0][2] === 'ERR_EVENTSOURCE_NETWORK', `${name}: ${JSON.stringify(outcome)}`)
    }
  }
})

t.test('the message of that network error says what happened', async (t) => {
  const server = await rawServer(t, () => 'HTTP/1.1 101 Switching Protocols\r\n\r\n' + STREAM)
  const es = open(t, server.url('/'), { reconnectionTime: 60_000 })
  const { event } = await record(es).wait('error')
  t.equal(event.message, `The connection to ${server.origin} failed: the server switched protocols (101) for a request that asked for no upgrade`)
  t.equal(event.willReconnect, true)
})

t.test('a server that sends nothing but interim responses: connectTimeout still ends the attempt', async (t) => {
  const server = await rawServer(t, (head, index, socket) => {
    const timer = setInterval(() => socket.write(EARLY_HINTS), 10)
    socket.on('close', () => clearInterval(timer))
  })
  for (const [name, init] of transports(t)) {
    t.same(await firstOutcome(t, server.url('/'), { connectTimeout: 200, ...init() }), [['error', CONNECTING, 'ERR_EVENTSOURCE_CONNECT_TIMEOUT']], name)
  }
})

t.test('HTTP/2: 103 Early Hints on the stream, then the response', async (t) => {
  const { key, cert } = tlsFixture()
  const server = await serve(t, (req, res) => {
    res.writeEarlyHints({ link: '</style.css>; rel=preload; as=style' })
    res.writeHead(200, { 'content-type': 'text/event-stream' })
    res.end('data: after the hints\n\n')
  }, { tls: { key, cert }, http2: {} })
  t.same(await firstOutcome(t, server.url('/'), { http2: { connect: { ca: cert } } }),
    [['open', OPEN, undefined], ['message', OPEN, 'after the hints']])
})
