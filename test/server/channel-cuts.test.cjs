'use strict'

// Resumption under cuts (issue 49, item 5): a publisher publishes into a channel while the server cuts its
// subscriber's connection, 200 times, at moments and in ways a seeded PRNG picks (test/helpers/prng.cjs): a
// socket destroyed (FIN) or reset (RST, which may lose bytes in flight, so a client may see half an event), the
// response ended cleanly, and over HTTP/2 a stream reset or a whole session destroyed; some cuts in the very
// tick events were published (so they were never written to that connection), and events go on being published
// while the client is away. The client reconnects with its Last-Event-ID and must end with every event exactly
// once, in order, and no gap: this package's EventSource over HTTP/1.1 and HTTP/2, and eventsource 5 over
// HTTP/1.1. The channel's retry (1 ms) keeps each run to a few seconds. CUTS_SEED replays a run.

const t = require('tap')
const http2 = require('node:http2')
const { Channel } = require('../../lib/entries/server.js')
const { EventSource } = require('../..')
const { EventSource: EventSource5 } = require('eventsource5')
const { writerServer, tlsFixture, prng, bounded, macrotask, deferred } = require('../helpers/index.cjs')

const CUTS = Number(process.env.CUTS ?? 200)
const seed = Number(process.env.CUTS_SEED ?? 0xc075)
const { key, cert } = tlsFixture()

const HTTP1_CUTS = {
  destroy: ({ req }) => req.socket.destroy(),
  reset: ({ req }) => req.socket.resetAndDestroy(),
  end: ({ writer }) => writer.close()
}
const HTTP2_CUTS = {
  'reset stream': ({ req }) => req.stream.close(http2.constants.NGHTTP2_CANCEL),
  'destroy session': ({ req }) => req.stream.session.destroy(),
  // The TLS socket under the session (node:http2 forbids touching the session's own proxy of it).
  'destroy socket': ({ req }) => req.socket.destroy(),
  end: ({ writer }) => writer.close()
}

/**
 * Runs the scenario; resolves with what the client received and what the server did.
 * @param {import('tap').Test} t
 * @param {{ connect: (url: string, log: { messages: string[][], gaps: number, errors: number }) => { close(): void },
 *   kinds: Record<string, Function>, serveOptions?: object, seed: number }} options
 */
async function runCuts (t, { connect, kinds, serveOptions, seed }) {
  const rng = prng(seed)
  const channel = new Channel({ heartbeat: 0, retry: 1, history: 1_000_000, historyBytes: Infinity })
  t.teardown(() => channel.close())
  const subscriptions = new Set()
  const stats = { seed, cuts: 0, kinds: Object.fromEntries(Object.keys(kinds).map((kind) => [kind, 0])), inPublishingTick: 0, published: 0, unknownIds: 0 }
  let subscribed = deferred()
  const ids = []
  const srv = await writerServer(t, (req, res) => {
    const writer = channel.subscribe(res)
    if (writer.lastEventId !== '' && !ids.includes(writer.lastEventId)) stats.unknownIds++
    // Cut after this many ticks of publishing (0: in the tick that follows the subscription's own).
    subscriptions.add({ req, res, writer, budget: rng.int(6) })
    subscribed.resolve()
    return writer
  }, serveOptions)

  const log = { messages: [], gaps: 0, errors: 0, received: deferred(), expected: Infinity }
  const client = connect(srv.url('/events'), log)
  t.teardown(() => client.close())

  const publish = () => {
    for (let k = 1 + rng.int(3); k > 0; k--) ids.push(channel.publish({ data: `${++stats.published}` }))
  }
  // A first connection starts with the events published after it, and a client resumes once it has an id: the
  // cuts begin once the first event has arrived.
  await bounded(subscribed.promise, 'the first connection')
  publish()
  const first = deferred()
  log.expected = 1
  log.received = first
  await bounded(first.promise, 'the first event')
  log.received = deferred()
  log.expected = Infinity
  let idle = 0
  while (stats.cuts < CUTS) {
    if (subscriptions.size === 0) {
      // Events go on while the client is away, for a few ticks; then the publisher waits for it.
      if (idle++ >= rng.int(4)) {
        subscribed = deferred()
        await bounded(subscribed.promise, () => `a reconnection after cut ${stats.cuts}`)
        idle = 0
      }
    }
    publish()
    // Half the cuts come before the tick's events are written, half after.
    const early = rng.chance(0.5)
    if (!early) await macrotask()
    for (const subscription of [...subscriptions]) {
      // One that ended otherwise (none should) is no cut of ours.
      if (subscription.writer.signal.aborted) subscriptions.delete(subscription)
      if (subscription.writer.signal.aborted || subscription.budget-- > 0) continue
      subscriptions.delete(subscription)
      const kind = rng.pick(Object.keys(kinds))
      stats.kinds[kind]++
      stats.cuts++
      if (early) stats.inPublishingTick++
      kinds[kind](subscription)
    }
    if (early) await macrotask()
  }
  publish()
  log.expected = stats.published
  if (log.messages.length >= log.expected) log.received.resolve()
  const missing = () => {
    const got = new Set(log.messages.map(([data]) => data))
    return ids.map((id, i) => `${i + 1}`).filter((data) => !got.has(data)).slice(0, 10)
  }
  await bounded(log.received.promise, () => `all ${log.expected} events; received ${log.messages.length}, not ${missing()}, ` +
    `${log.gaps} gaps, the last: ${JSON.stringify(log.messages.slice(-3))} (${JSON.stringify(stats)})`, 20_000)
  client.close()
  return { stats, log, ids, requests: srv.requests.length }
}

// Records what a client dispatches into `log`.
function listen (source, log) {
  source.addEventListener('message', (event) => {
    log.messages.push([event.data, event.lastEventId])
    if (log.messages.length >= log.expected) log.received.resolve()
  })
  source.addEventListener('gap', () => log.gaps++)
  source.addEventListener('error', () => log.errors++)
  return source
}

function check (t, { stats, log, ids, requests }) {
  t.comment(JSON.stringify({ ...stats, requests, errors: log.errors }))
  t.equal(stats.cuts, CUTS, `${CUTS} cuts`)
  t.ok(Object.values(stats.kinds).every((n) => n > 0), `every kind of cut: ${JSON.stringify(stats.kinds)}`)
  t.ok(stats.inPublishingTick > 0 && stats.inPublishingTick < CUTS, 'cuts before and after a tick\'s writes')
  t.equal(log.messages.length, ids.length, `${ids.length} events received`)
  t.same(log.messages, ids.map((id, i) => [`${i + 1}`, id]), 'every event exactly once, in order, with its id')
  t.equal(log.gaps, 0, 'no gap: every reconnection resumed from the history')
  t.equal(stats.unknownIds, 0, 'every Last-Event-ID was one the channel had written')
  t.ok(requests > CUTS, `${requests} requests`)
}

t.test(`${CUTS} cuts over HTTP/1.1, this package's EventSource (seed ${seed})`, async (t) => {
  const result = await runCuts(t, {
    seed,
    kinds: HTTP1_CUTS,
    connect: (url, log) => listen(new EventSource(url, { reconnectionTime: 1 }), log)
  })
  check(t, result)
})

t.test(`${CUTS} cuts over HTTP/2, this package's EventSource (seed ${seed + 1})`, async (t) => {
  const result = await runCuts(t, {
    seed: seed + 1,
    kinds: HTTP2_CUTS,
    serveOptions: { tls: { key, cert }, http2: {} },
    connect: (url, log) => listen(new EventSource(url, { reconnectionTime: 1, http2: { connect: { ca: cert } } }), log)
  })
  check(t, result)
})

t.test(`${CUTS} cuts over HTTP/1.1, eventsource 5 (seed ${seed + 2})`, async (t) => {
  const result = await runCuts(t, {
    seed: seed + 2,
    kinds: HTTP1_CUTS,
    connect: (url, log) => listen(new EventSource5(url), log)
  })
  check(t, result)
})
