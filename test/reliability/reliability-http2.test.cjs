'use strict'

// init.http2 under faults, on a node:http2 server that replays from Last-Event-ID. Several sources
// share a session; when it is lost (GOAWAY, its socket destroyed, a PING left unanswered) each source
// reconnects with its own Last-Event-ID and nothing is lost; a stream reset reaches only its source;
// a paused `for await` on one source does not hold the others up; and every event arrives exactly once,
// in order, across 200 session losses.

const t = require('tap')
const net = require('node:net')
const { constants: { NGHTTP2_INTERNAL_ERROR } } = require('node:http2')
const { EventSource } = require('../../')
const { serve, sse, open, record, bounded, deferred, tlsFixture, listen, prng } = require('../helpers/index.cjs')

const { key, cert } = tlsFixture()

// Real TLS sessions, 200 of them opened and lost in the last test: seconds on a quiet machine, more
// under load and coverage.
t.setTimeout(240_000)

/**
 * A server that keeps a log per path: event n of path p has id `p:n` and data `p#n`. A request
 * resumes after its Last-Event-ID and gets the events up to the path's `sent` mark at once; send(p, k)
 * raises the mark and writes the new events to the path's open response.
 */
async function replayingServer (t, options = {}) {
  const paths = new Map()
  const requests = []
  const waiters = []
  const state = (p) => {
    if (!paths.has(p)) paths.set(p, { sent: 0, res: null })
    return paths.get(p)
  }
  const events = (p, from, to, pad = '') => {
    let body = ''
    for (let n = from; n <= to; n++) body += `id: ${p}:${n}\ndata: ${p}#${n}${pad}\n\n`
    return body
  }
  const server = await serve(t, (req, res) => {
    const p = req.url
    const last = req.headers['last-event-id']
    const from = last === undefined ? 1 : Number(last.slice(last.lastIndexOf(':') + 1)) + 1
    requests.push({ path: p, lastEventId: last ?? '', session: req.stream.session })
    const s = state(p)
    s.res = res
    s.stream = req.stream
    // An option: how many events each request gets beyond what was sent so far.
    if (options.advance !== undefined) s.sent = Math.max(s.sent, options.advance(p, from))
    sse(res, events(p, from, s.sent), { end: false })
    for (const waiter of waiters.splice(0)) waiter()
  }, { tls: { key, cert }, http2: options.settings === undefined ? {} : { settings: options.settings } })
  return {
    ...server,
    url: server.url,
    requests,
    stream: (p) => state(p).stream,
    /** How many events of path p were sent so far. */
    sent: (p) => state(p).sent,
    response: (p) => state(p).res,
    /** Writes the next k events of path p, their data padded with `pad`. */
    send (p, k, pad) {
      const s = state(p)
      const from = s.sent + 1
      s.sent += k
      return s.res.write(events(p, from, s.sent, pad))
    },
    /** Resolves once `n` requests have arrived. */
    requestCount (n) {
      return bounded(new Promise((resolve) => {
        const check = () => (requests.length >= n ? resolve() : waiters.push(check))
        check()
      }), () => `${n} requests (${requests.length} arrived)`)
    }
  }
}

const PATHS = ['/a', '/b', '/c', '/d', '/e']

/** A source per path, each recorded. */
function openSources (t, server, http2, paths = PATHS) {
  return paths.map((p) => {
    const es = open(t, server.url(p), { http2, reconnectionTime: 0 })
    return { path: p, es, rec: record(es) }
  })
}

/** Source i has count(i) messages, and they are its path's events 1..count(i), in order, each once. */
async function checkReceived (t, sources, count) {
  await bounded(Promise.all(sources.map(({ rec }, i) => rec.wait('message', count(i)))), () =>
    `all messages (${sources.map(({ rec }, i) => `${rec.count('message')}/${count(i)}`)})`)
  for (const [i, { path, rec }] of sources.entries()) {
    const n = count(i)
    t.same(rec.data('message'), Array.from({ length: n }, (_, k) => `${path}#${k + 1}`), `${path}: 1..${n}, in order, once`)
  }
}

/** The lastEventId of the last message `rec` had before its first error. */
function lastIdBeforeError (rec) {
  const before = rec.events.slice(0, rec.types.indexOf('error')).filter((e) => e.type === 'message')
  return before.at(-1)?.lastEventId ?? ''
}

for (const loss of ['GOAWAY', 'the socket destroyed', 'the session destroyed']) {
  t.test(`a session lost (${loss}): each source reconnects with its own Last-Event-ID, nothing lost`, async (t) => {
    const server = await replayingServer(t)
    const sockets = []
    server.server.on('secureConnection', (socket) => sockets.push(socket))
    const sources = openSources(t, server, { connect: { ca: cert } })
    await server.requestCount(PATHS.length)
    // A different number of events on each source, so each has its own last event ID.
    PATHS.forEach((p, i) => server.send(p, 2 + i))
    await bounded(Promise.all(sources.map(({ rec }, i) => rec.wait('message', 2 + i))), 'the first events')
    t.equal(server.sessions.length, 1, 'one session')
    // Events written just before the loss may never arrive: the replay brings them.
    PATHS.forEach((p) => server.send(p, 1))
    const [session] = server.sessions
    if (loss === 'GOAWAY') session.goaway(NGHTTP2_INTERNAL_ERROR)
    else if (loss === 'the session destroyed') session.destroy()
    else sockets[0].destroy()
    await server.requestCount(2 * PATHS.length)
    const again = server.requests.slice(PATHS.length)
    for (const { path, rec } of sources) {
      const request = again.find((r) => r.path === path)
      t.equal(request.lastEventId, lastIdBeforeError(rec), `${path} resumed from its own last event`)
      t.equal(rec.count('error'), 1, `${path}: one error`)
      t.equal(rec.of('error')[0].readyState, EventSource.CONNECTING, `${path}: reconnecting`)
    }
    t.ok(again.every((r) => r.session !== session), 'on a new session')
    t.equal(new Set(again.map((r) => r.session)).size, 1, 'all of them on one')
    PATHS.forEach((p) => server.send(p, 3))
    await checkReceived(t, sources, (i) => 2 + i + 1 + 3)
  })
}

/**
 * A TCP relay in front of `port`: freeze() stops it forwarding on the connections it has, as a path
 * that went dead would (no FIN, no RST: nothing arrives any more); new connections go through.
 */
async function relay (t, port) {
  const pairs = []
  const server = net.createServer((client) => {
    const upstream = net.connect(port, '127.0.0.1')
    client.on('error', () => {})
    upstream.on('error', () => {})
    client.pipe(upstream)
    upstream.pipe(client)
    pairs.push({ client, upstream })
    t.teardown(() => upstream.destroy())
  })
  const listening = await listen(t, server)
  return {
    url: (p) => `https://127.0.0.1:${listening.port}${p}`,
    freeze () {
      for (const { client, upstream } of pairs.splice(0)) {
        client.unpipe(upstream)
        upstream.unpipe(client)
        client.pause()
        upstream.pause()
      }
    }
  }
}

t.test('a PING left unanswered: the session is destroyed, each source reconnects with its own Last-Event-ID', async (t) => {
  const server = await replayingServer(t)
  const path = await relay(t, server.port)
  const http2 = { connect: { ca: cert }, pingInterval: 20, pingTimeout: 200 }
  const sources = PATHS.map((p) => {
    const es = open(t, path.url(p), { http2, reconnectionTime: 0 })
    return { path: p, es, rec: record(es) }
  })
  await server.requestCount(PATHS.length)
  PATHS.forEach((p, i) => server.send(p, 1 + i))
  await bounded(Promise.all(sources.map(({ rec }, i) => rec.wait('message', 1 + i))), 'the first events')
  path.freeze()
  // Lost on the dead path: the replay brings them.
  PATHS.forEach((p) => server.send(p, 2))
  await server.requestCount(2 * PATHS.length)
  const again = server.requests.slice(PATHS.length)
  for (const { path, rec } of sources) {
    t.equal(again.find((r) => r.path === path).lastEventId, lastIdBeforeError(rec), `${path} resumed from its own last event`)
    const { event } = rec.of('error')[0]
    t.equal(event.code, 'ERR_EVENTSOURCE_NETWORK', `${path}: a network error`)
    t.match(event.message, /did not answer a PING within 200 ms/)
  }
  PATHS.forEach((p) => server.send(p, 1))
  await checkReceived(t, sources, (i) => 1 + i + 2 + 1)
})

t.test('RST_STREAM reaches only the source of that stream', async (t) => {
  const server = await replayingServer(t)
  const sources = openSources(t, server, { connect: { ca: cert } })
  await server.requestCount(PATHS.length)
  PATHS.forEach((p) => server.send(p, 2))
  await bounded(Promise.all(sources.map(({ rec }) => rec.wait('message', 2))), 'the first events')
  server.stream('/c').close(NGHTTP2_INTERNAL_ERROR)
  await server.requestCount(PATHS.length + 1)
  const retry = server.requests.at(-1)
  t.same([retry.path, retry.lastEventId], ['/c', '/c:2'], '/c reconnected, from its last event')
  t.equal(retry.session, server.requests[0].session, 'on the same session')
  PATHS.forEach((p) => server.send(p, 3))
  await checkReceived(t, sources, () => 5)
  t.same(sources.map(({ rec }) => rec.count('error')), [0, 0, 1, 0, 0], 'an error on /c only')
  t.equal(server.sessions.length, 1)
  t.equal(server.requests.length, PATHS.length + 1, 'no other source reconnected')
})

t.test('a paused `for await` holds up its own stream only', async (t) => {
  const server = await replayingServer(t)
  const http2 = { connect: { ca: cert } }
  const slow = ['/s1', '/s2', '/s3']
  const fast = ['/f1', '/f2', '/f3']
  const iterators = slow.map((p) => open(t, server.url(p), { http2, highWaterMark: 1 })[Symbol.asyncIterator]())
  const sources = openSources(t, server, http2, fast)
  await server.requestCount(slow.length + fast.length)
  for (const it of iterators) server.send(slow[iterators.indexOf(it)], 1)
  await bounded(Promise.all(iterators.map((it) => it.next())), 'the first event of each iteration')
  // The iterations stop reading. Each slow stream is sent 1 MiB: more than a stream's window (256 KiB)
  // and, for the three, more than the connection's (512 KiB).
  const pad = 'x'.repeat(1024)
  for (const p of slow) server.send(p, 1024, pad)
  for (const p of fast) server.send(p, 100)
  await checkReceived(t, sources, () => 100)
  for (const p of slow) {
    t.ok(server.stream(p).writableLength > 256 * 1024, `${p}: the server still holds what the paused source did not read`)
  }
  // Reading again gets the rest, in order.
  for (const [i, it] of iterators.entries()) {
    for (let n = 2; n <= 1025; n++) {
      const { value } = await bounded(it.next(), `event ${n} of ${slow[i]}`)
      if (value.data !== `${slow[i]}#${n}${pad}`) {
        t.fail(`${slow[i]}: event ${n} is ${value.data.slice(0, 20)}`)
        return
      }
    }
  }
  t.pass('each paused source then read its 1,025 events, in order')
})

t.test('200 session losses: every event exactly once, in order, each source resuming from its own ID', async (t) => {
  const LOSSES = 200
  const EVENTS = 1000
  const rng = prng(0x4272)
  let losses = 0
  const kinds = { goaway: 0, session: 0, socket: 0 }
  const killed = new Set()
  const server = await replayingServer(t, {
    // Each request gets a few new events, and, once the losses are over, all of them.
    advance: (p, from) => (losses >= LOSSES ? EVENTS : Math.min(EVENTS, from + 2))
  })
  const sockets = new Map()
  server.server.on('secureConnection', (socket) => sockets.set(socket.remotePort, socket))
  const done = deferred()
  const sources = openSources(t, server, { connect: { ca: cert } }, PATHS.slice(0, 4))
  const idsAtError = new Map(sources.map(({ path }) => [path, []]))
  for (const { path, es, rec } of sources) {
    es.addEventListener('error', () => idsAtError.get(path).push(rec.of('message').at(-1)?.lastEventId ?? ''))
    es.addEventListener('message', (event) => {
      const n = Number(event.lastEventId.slice(event.lastEventId.lastIndexOf(':') + 1))
      if (sources.every(({ rec }) => rec.count('message') >= EVENTS)) done.resolve()
      // The server loses the session this event came on, once every source has a stream on it.
      if (losses >= LOSSES || n % 2 !== 0) return
      const session = server.requests.findLast((r) => r.path === path).session
      if (killed.has(session) || session.destroyed) return
      if (!sources.every(({ path }) => server.requests.findLast((r) => r.path === path)?.session === session)) return
      killed.add(session)
      losses++
      const kind = rng.pick(['goaway', 'session', 'socket'])
      kinds[kind]++
      if (kind === 'goaway') session.goaway(NGHTTP2_INTERNAL_ERROR)
      else if (kind === 'session') session.destroy()
      else sockets.get(session.socket.remotePort).destroy()
      if (losses === LOSSES) {
        // Sources on another session get the rest there.
        for (const { path } of sources) {
          const last = server.requests.findLast((r) => r.path === path)
          if (last !== undefined && !killed.has(last.session)) server.send(path, EVENTS - server.sent(path))
        }
      }
    })
  }
  await bounded(done.promise, () => `${EVENTS} events on each source (${sources.map(({ rec }) => rec.count('message'))}, ${losses} losses)`, 180_000)
  t.equal(losses, LOSSES)
  t.ok(Object.values(kinds).every((n) => n > 0), `every kind of loss happened: ${JSON.stringify(kinds)}`)
  t.ok(server.sessions.length > LOSSES, `${server.sessions.length} sessions`)
  await checkReceived(t, sources, () => EVENTS)
  for (const { path } of sources) {
    // An attempt may fail before the server sees it (its session was lost first): the requests the
    // server saw resume from the IDs the source had at some of its errors, in order.
    const resumed = server.requests.filter((r) => r.path === path).slice(1).map((r) => r.lastEventId)
    const atError = idsAtError.get(path)
    let i = 0
    for (const id of resumed) while (i < atError.length && atError[i] !== id) i++
    t.ok(i < atError.length, `${path}: each of its ${resumed.length} reconnections sent its own last event ID`, { resumed, atError })
    t.ok(resumed.length > LOSSES / 2, `${path} lost its stream with most sessions`)
  }
})
