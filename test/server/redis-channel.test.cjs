'use strict'

// whatwg-eventsource/server/redis in one process, against a real redis-server: the options, publish() and what it
// writes to the stream, two channels on one stream, each way a subscriber is resumed (the local history, the
// stream, a process behind the one the client left, the gap), the `retry:` each subscriber is sent, the faults
// (Redis away, an answer lost, a key that is not a stream, entries that are not events) and close(). The bytes
// each client is written are read raw, over HTTP.

const t = require('tap')
const http = require('node:http')
const net = require('node:net')
const path = require('node:path')
const { createClient } = require('redis')
const { serve, bounded, deferred, onceBounded, runChild } = require('../helpers/index.cjs')
const { redisServer, redisMissing } = require('../helpers/redis.cjs')
const { tcpRelay } = require('../helpers/relay.cjs')

let RedisChannel, EventStreamWriter
let streams = 0

// A node-redis client, closed at teardown.
async function connect (t, url, options = {}) {
  const client = createClient({ url, ...options })
  client.on('error', () => {})
  await client.connect()
  t.teardown(() => client.isOpen && client.destroy())
  return client
}

// A RedisChannel on a stream of its own (unless given), behind an HTTP server; closed at teardown. `errors`: what
// its onError was called with.
async function channelOn (t, options) {
  const errors = []
  const waiters = []
  const channel = new RedisChannel({
    stream: `stream-${++streams}`,
    maxLength: 1000,
    heartbeat: 0,
    retryJitter: 0,
    onError: (error) => {
      errors.push(error)
      for (const waiter of waiters.splice(0)) waiter()
    },
    ...options
  })
  t.teardown(() => channel.close())
  const server = await serve(t, (req, res) => channel.subscribe(res))
  return {
    channel,
    errors,
    url: server.url('/'),
    /** Resolves once onError has been called with an error matching `pattern`, `times` times. */
    async errorMatching (pattern, times = 1) {
      while (errors.filter((error) => pattern.test(String(error))).length < times) {
        const next = deferred()
        waiters.push(next.resolve)
        await bounded(next.promise, () => `an error matching ${pattern}; had ${errors.map(String).join(', ')}`)
      }
    }
  }
}

// A raw event stream: its text as it arrives, `until(pattern)` waits for it to match, closed at teardown.
function read (t, url, lastEventId) {
  const headers = lastEventId === undefined ? {} : { 'last-event-id': lastEventId }
  let text = ''
  let waiters = []
  const ended = deferred()
  const request = http.get(url, { headers }, (res) => {
    res.setEncoding('utf8')
    res.on('data', (chunk) => {
      text += chunk
      waiters = waiters.filter(({ pattern, resolve }) => !(pattern.test(text) && (resolve() || true)))
    })
    res.on('close', ended.resolve)
  })
  request.on('error', ended.resolve)
  t.teardown(() => request.destroy())
  return {
    get text () { return text },
    ended: ended.promise,
    until (pattern) {
      if (pattern.test(text)) return Promise.resolve()
      const found = deferred()
      waiters.push({ pattern, resolve: found.resolve })
      return bounded(found.promise, () => `the stream to match ${pattern}; it has ${JSON.stringify(text)}`)
    },
    close: () => request.destroy()
  }
}

// The ids and data of the events of a stream's text, gap events as { gap: id }.
function events (text) {
  return text.split('\n\n').filter((block) => /^(id|event):/m.test(block)).map((block) => {
    const id = /^id: (.*)$/m.exec(block)?.[1]
    if (/^event: gap$/m.test(block)) return { gap: id }
    return { id, data: /^data: (.*)$/m.exec(block)?.[1] }
  })
}

async function publishAll (channel, count, prefix = 'e') {
  const ids = []
  for (let i = 1; i <= count; i++) ids.push(await channel.publish({ data: `${prefix}${i}` }))
  return ids
}

if (redisMissing()) {
  t.plan(0, redisMissing())
} else {
  t.before(async () => {
    ({ RedisChannel } = await import('whatwg-eventsource/server/redis'));
    ({ EventStreamWriter } = await import('whatwg-eventsource/server'))
  })

  t.test('the options are checked', async (t) => {
    const client = createClient()
    const base = { client, stream: 's', maxLength: 10 }
    t.throws(() => new RedisChannel(), { code: 'ERR_INVALID_ARG_TYPE', message: /"options"/ })
    t.throws(() => new RedisChannel({ stream: 's', maxLength: 10 }),
      { code: 'ERR_INVALID_ARG_TYPE', message: /"options.url"/ })
    t.throws(() => new RedisChannel({ ...base, client: {} }),
      { code: 'ERR_INVALID_ARG_VALUE', message: /not a client of node-redis/ })
    t.throws(() => new RedisChannel({ ...base, client: 'redis://x' }), { code: 'ERR_INVALID_ARG_TYPE' })
    t.throws(() => new RedisChannel({ ...base, stream: 1 }), { code: 'ERR_INVALID_ARG_TYPE', message: /stream/ })
    t.throws(() => new RedisChannel({ ...base, stream: '' }), { code: 'ERR_INVALID_ARG_VALUE', message: /stream/ })
    t.throws(() => new RedisChannel({ ...base, maxLength: undefined }),
      { code: 'ERR_INVALID_ARG_TYPE', message: /"options.maxLength"/ })
    t.throws(() => new RedisChannel({ ...base, maxLength: 0 }), { code: 'ERR_OUT_OF_RANGE' })
    t.throws(() => new RedisChannel({ ...base, exactLength: 'yes' }), { code: 'ERR_INVALID_ARG_TYPE' })
    t.throws(() => new RedisChannel({ ...base, retry: -1 }), { code: 'ERR_OUT_OF_RANGE', message: /retry/ })
    t.throws(() => new RedisChannel({ ...base, retryJitter: 0.5 }), { code: 'ERR_OUT_OF_RANGE' })
    t.throws(() => new RedisChannel({ ...base, onError: 1 }), { code: 'ERR_INVALID_ARG_TYPE' })
    t.throws(() => new RedisChannel({ ...base, maxBufferedBytes: -1 }), { code: 'ERR_OUT_OF_RANGE' })
    t.throws(() => new RedisChannel({ ...base, gapEvent: 'a\nb' }), { code: 'ERR_INVALID_ARG_VALUE' })
    t.notOk(client.isOpen, 'a channel refused does not touch the client')
  })

  t.test('against a redis-server', async (t) => {
    const redis = await redisServer(t)
    const direct = await connect(t, redis.url)

    t.test('publish() appends the event and resolves with its entry ID, the id on every process', async (t) => {
      const a = await channelOn(t, { url: redis.url })
      const b = await channelOn(t, { client: await connect(t, redis.url), stream: a.channel.stream })
      await Promise.all([a.channel.ready, b.channel.ready])
      t.equal(Object.prototype.toString.call(a.channel), '[object RedisChannel]')
      t.equal(a.channel.lastEventId, '', 'no event yet')
      const fromA = read(t, a.url)
      const fromB = read(t, b.url)
      await Promise.all([fromA.until(/retry: \d+/), fromB.until(/retry: \d+/)])
      const id = await a.channel.publish({ data: 'one\ntwo', event: 'news', retry: 500, comment: 'c' })
      t.match(id, /^\d+-\d+$/, 'an entry ID')
      const entries = await direct.xRange(a.channel.stream, '-', '+')
      t.same(entries, [{ id, message: { data: 'one\ntwo', event: 'news', retry: '500', comment: 'c' } }],
        'the event\'s fields, no more')
      const expected = `: c\nevent: news\nid: ${id}\nretry: 500\ndata: one\ndata: two\n\n`
      await Promise.all([fromA.until(/data: two\n\n/), fromB.until(/data: two\n\n/)])
      t.ok(fromA.text.endsWith(expected), 'the publisher\'s subscribers get it from the stream')
      t.ok(fromB.text.endsWith(expected), 'and so do those of another process')
      t.equal(a.channel.lastEventId, id)
      t.equal(b.channel.lastEventId, id)
      t.equal(a.channel.size, 1)
      const only = await a.channel.publish({ comment: 'only a comment' })
      await fromB.until(new RegExp(`id: ${only}`))

      await t.rejects(a.channel.publish({ id: '1-0', data: 'x' }), { code: 'ERR_INVALID_ARG_VALUE', message: /event\.id/ })
      await t.rejects(a.channel.publish({ event: 'a\nb', data: 'x' }), { code: 'ERR_INVALID_ARG_VALUE' })
      await t.rejects(a.channel.publish({}), { code: 'ERR_INVALID_ARG_VALUE' })
      await t.rejects(a.channel.publish(null), { code: 'ERR_INVALID_ARG_TYPE' })
      t.equal(await direct.xLen(a.channel.stream), 2, 'nothing refused was sent')
    })

    t.test('the retention bound: MAXLEN ~ keeps at least maxLength entries, = exactly, Infinity all', async (t) => {
      const about = await channelOn(t, { url: redis.url, maxLength: 10 })
      const exact = await channelOn(t, { url: redis.url, maxLength: 10, exactLength: true })
      const all = await channelOn(t, { url: redis.url, maxLength: Infinity })
      for (const { channel } of [about, exact, all]) {
        await channel.ready
        await publishAll(channel, 250)
      }
      const approximate = await direct.xLen(about.channel.stream)
      t.ok(approximate >= 10 && approximate < 250, `~: ${approximate} entries kept`)
      t.equal(await direct.xLen(exact.channel.stream), 10, '=: 10 entries kept')
      t.equal(await direct.xLen(all.channel.stream), 250, 'Infinity: every entry kept')
    })

    t.test('a new process loads the newest events: its clients resume from memory', async (t) => {
      const a = await channelOn(t, { url: redis.url, history: 5 })
      await a.channel.ready
      const ids = await publishAll(a.channel, 8)
      const b = await channelOn(t, { url: redis.url, stream: a.channel.stream, history: 5 })
      // Subscribed before the history is loaded: written nothing of it (it is not new), then what is.
      const early = read(t, b.url)
      const resumed = read(t, b.url, ids[5])
      await b.channel.ready
      t.equal(b.channel.lastEventId, ids[7], 'the newest entry is the channel\'s newest event')
      await resumed.until(/data: e8\n\n/)
      t.same(events(resumed.text), [{ id: ids[6], data: 'e7' }, { id: ids[7], data: 'e8' }], 'resumed after e6')
      const live = await a.channel.publish({ data: 'e9' })
      await early.until(/data: e9\n\n/)
      t.same(events(early.text), [{ id: live, data: 'e9' }], 'a client without Last-Event-ID gets what is new')
    })

    t.test('a Last-Event-ID older than the history is resumed from the stream, then from the history', async (t) => {
      const a = await channelOn(t, { url: redis.url, history: 3, maxLength: 2000 })
      await a.channel.ready
      const ids = await publishAll(a.channel, 1200)
      const client = read(t, a.url, ids[1])
      await client.until(/data: e1200\n\n/)
      const got = events(client.text)
      t.equal(got.length, 1198, 'e3 to e1200: three pages of XRANGE, then the local history')
      t.same(got.map(({ id }) => id), ids.slice(2), 'each once, in order')
      const more = await a.channel.publish({ data: 'e1201' })
      await client.until(/data: e1201\n\n/)
      t.same(events(client.text).at(-1), { id: more, data: 'e1201' }, 'then live')
    })

    t.test('a client that reads slowly is resumed from the stream at its pace', async (t) => {
      const a = await channelOn(t, { url: redis.url, history: 2 })
      await a.channel.ready
      const big = 'x'.repeat(16 * 1024)
      const ids = []
      for (let i = 1; i <= 300; i++) ids.push(await a.channel.publish({ data: `${i} ${big}` }))
      // 4.8 MB behind: more than a socket takes at once, less than the writer lets wait.
      const socketDone = deferred()
      let paused = null
      const chunks = []
      let bytes = 0
      const request = http.get(a.url, { headers: { 'last-event-id': ids[0] } }, (res) => {
        res.setEncoding('utf8')
        res.on('data', (chunk) => {
          chunks.push(chunk)
          bytes += chunk.length
          if (paused === null && bytes > 64 * 1024) {
            res.pause()
            paused = setImmediate(() => res.resume())
          }
          // The end of what has arrived, not all of it: a search of 4.8 MB at every chunk would be quadratic.
          if (chunks.slice(-3).join('').endsWith(`data: 300 ${big}\n\n`)) socketDone.resolve()
        })
      })
      t.teardown(() => request.destroy())
      await bounded(socketDone.promise, () => `every event to arrive (${bytes} bytes have)`)
      t.same(events(chunks.join('')).map(({ id }) => id), ids.slice(1), 'every event after the first, once, in order')
    })

    t.test('the gap event: an ID the stream no longer has, or never had, or that is not an entry ID', async (t) => {
      const a = await channelOn(t, { url: redis.url, history: 3, maxLength: 5, exactLength: true })
      await a.channel.ready
      // Delivered here (this client has the last), so that the gap event names the last.
      const follower = read(t, a.url)
      await follower.until(/retry: \d+\n\n/)
      const ids = await publishAll(a.channel, 10)
      await follower.until(/data: e10\n\n/)
      for (const lastEventId of [ids[0], '1-0', '99999999999999-0', 'not an id', `${ids[9]}x`]) {
        const client = read(t, a.url, lastEventId)
        await client.until(/event: gap\n/)
        t.same(events(client.text), [{ gap: ids[9] }], `${lastEventId}: the gap event, with the newest id`)
        client.close()
      }
    })

    t.test('a process behind the one the client left waits for the event the client names', async (t) => {
      // Process b reads through a relay that holds its reader's answers: its reader is behind.
      let reader = null
      const relay = await tcpRelay(t, () => redis.port)
      const relayUrl = `redis://127.0.0.1:${relay.port}`
      const a = await channelOn(t, { url: redis.url, history: 50 })
      const b = await channelOn(t, { client: await connect(t, relayUrl), stream: a.channel.stream, history: 50 })
      await Promise.all([a.channel.ready, b.channel.ready])
      // The second connection through the relay: the reader's (the first is the client's own).
      reader = [...relay.connections][1]
      t.ok(reader, 'the reader\'s connection')
      reader.holdReplies()
      const ids = await publishAll(a.channel, 3)
      t.equal(b.channel.lastEventId, '', 'b has delivered nothing')
      // A client that had e1 from a: b's stream has e2 and e3 after it, b's history nothing yet.
      const client = read(t, b.url, ids[0])
      await client.until(/data: e3\n\n/)
      t.same(events(client.text), [{ id: ids[1], data: 'e2' }, { id: ids[2], data: 'e3' }], 'e2 and e3, from the stream')
      // A client that had e3: nothing to write, and nothing that b has.
      const ahead = read(t, b.url, ids[2])
      await ahead.until(/retry: \d+\n\n/)
      t.equal(b.channel.size, 2, 'both are subscribers, being resumed')
      reader.release()
      const live = await a.channel.publish({ data: 'e4' })
      await Promise.all([client.until(/data: e4\n\n/), ahead.until(/data: e4\n\n/)])
      t.same(events(client.text).map(({ data }) => data), ['e2', 'e3', 'e4'], 'nothing twice once b caught up')
      t.same(events(ahead.text), [{ id: live, data: 'e4' }], 'the other gets what follows e3, once')
    })

    t.test('each subscriber gets its own retry:, from [retry, retry + retryJitter]', async (t) => {
      const a = await channelOn(t, { url: redis.url, retry: 1000, retryJitter: 2000 })
      await a.channel.ready
      const retries = []
      for (let i = 0; i < 20; i++) {
        const client = read(t, a.url)
        await client.until(/retry: \d+\n\n/)
        retries.push(Number(/retry: (\d+)/.exec(client.text)[1]))
        client.close()
      }
      t.ok(retries.every((ms) => ms >= 1000 && ms <= 3000), `${retries.join(', ')}`)
      t.ok(new Set(retries).size > 10, 'spread')
      const writer = await new Promise((resolve) => {
        const server = http.createServer((req, res) => resolve(a.channel.subscribe(new EventStreamWriter(res))))
        server.listen(0, '127.0.0.1', () => http.get(`http://127.0.0.1:${server.address().port}/`))
        t.teardown(() => server.closeAllConnections() || server.close())
      })
      t.ok(writer instanceof EventStreamWriter, 'a writer of whatwg-eventsource/server is subscribed as it is')
    })

    t.test('entries that are not events are skipped, and said', async (t) => {
      const a = await channelOn(t, { url: redis.url, history: 2 })
      await a.channel.ready
      const client = read(t, a.url)
      await client.until(/retry: \d+\n\n/)
      const first = await a.channel.publish({ data: 'first' })
      const bad = await direct.xAdd(a.channel.stream, '*', { event: 'a\nb', data: 'bad' })
      await direct.xAdd(a.channel.stream, '*', { retry: 'soon' })
      const foreign = await direct.xAdd(a.channel.stream, '*', { other: 'field' })
      const last = await a.channel.publish({ data: 'last' })
      await client.until(/data: last\n\n/)
      t.same(events(client.text), [{ id: first, data: 'first' }, { id: foreign, data: undefined }, { id: last, data: 'last' }],
        'an entry of other fields is an id alone; the two that cannot be events are not written')
      await a.errorMatching(new RegExp(`stream entry ${bad}`))
      t.equal(a.errors.length, 2, 'both said')
      // Resumed from the stream past them (the history keeps 2): skipped there too.
      const resumed = read(t, a.url, first)
      await resumed.until(/data: last\n\n/)
      t.same(events(resumed.text).map(({ id }) => id), [foreign, last])
    })

    t.test('a key that is not a stream: publish() rejects with Redis\'s error; the reader says it, and waits', async (t) => {
      await direct.set('not-a-stream', 'x')
      const a = await channelOn(t, { url: redis.url, stream: 'not-a-stream' })
      await a.errorMatching(/WRONGTYPE/)
      await t.rejects(a.channel.publish({ data: 'x' }), { message: /WRONGTYPE/ }, 'Redis\'s own error')
      await direct.del('not-a-stream')
      await a.channel.ready
      const client = read(t, a.url)
      await client.until(/retry: \d+\n\n/)
      const id = await a.channel.publish({ data: 'now' })
      await client.until(/data: now\n\n/)
      t.same(events(client.text), [{ id, data: 'now' }], 'once the key is a stream, it follows it')
    })

    t.test('close(): every subscriber ended, nothing more accepted', async (t) => {
      const a = await channelOn(t, { url: redis.url })
      const client = read(t, a.url)
      await a.channel.ready
      await client.until(/retry: \d+\n\n/)
      const closing = a.channel.close()
      t.equal(a.channel.close(), closing, 'the same promise each time')
      await closing
      await bounded(client.ended, 'the response to end')
      await t.rejects(a.channel.publish({ data: 'x' }), { code: 'ERR_EVENTSOURCE_CHANNEL_CLOSED' })
      t.throws(() => a.channel.subscribe(), { code: 'ERR_EVENTSOURCE_CHANNEL_CLOSED' })
      // Closed before it loaded its history (its key is not a stream), with a client waiting: both ended.
      await direct.set('not-a-stream-either', 'x')
      const b = await channelOn(t, { url: redis.url, stream: 'not-a-stream-either' })
      const waiting = read(t, b.url)
      await waiting.until(/retry: \d+\n\n/)
      // Closed while the channel waits to read again after Redis's refusal.
      await b.errorMatching(/WRONGTYPE/)
      await b.channel.close()
      await bounded(waiting.ended, 'the waiting response to end')
      // A user's client stays open.
      const client2 = await connect(t, redis.url)
      const c = await channelOn(t, { client: client2 })
      await c.channel.ready
      await c.channel.close()
      t.ok(client2.isReady, 'the user\'s client is the user\'s to close')
    })
  })

  t.test('faults', async (t) => {
    t.test('Redis away: publish() rejects at once, nothing sent; the reader goes on from where it was', async (t) => {
      const redis = await redisServer(t, { persist: true })
      const client = await connect(t, redis.url)
      const a = await channelOn(t, { client, history: 1 })
      await a.channel.ready
      const subscriber = read(t, a.url)
      await subscriber.until(/retry: \d+\n\n/)
      const older = await a.channel.publish({ data: 'older' })
      const before = await a.channel.publish({ data: 'before' })
      await subscriber.until(/data: before\n\n/)
      const lost = onceBounded(client, 'error')
      await redis.stop('SIGKILL')
      await lost
      const error = await a.channel.publish({ data: 'lost' }).catch((error) => error)
      t.equal(error.code, 'ERR_EVENTSOURCE_REDIS_UNAVAILABLE', String(error))
      t.match(error.message, /not reachable: the event was not published/)
      // While Redis is away, a client to resume from the stream (older than the history of one) waits for it.
      const resumed = read(t, a.url, older)
      await a.errorMatching(/Socket closed unexpectedly|ECONNREFUSED/)
      await redis.start()
      // Not onceBounded(), which rejects at the first 'error' of a client that reconnects.
      if (!client.isReady) await bounded(new Promise((resolve) => client.once('ready', resolve)), 'the client')
      const after = await a.channel.publish({ data: 'after' })
      await subscriber.until(/data: after\n\n/)
      t.same(events(subscriber.text), [{ id: older, data: 'older' }, { id: before, data: 'before' },
        { id: after, data: 'after' }], 'the subscriber that stayed: nothing twice, nothing lost that was published')
      await resumed.until(/data: after\n\n/)
      t.same(events(resumed.text), [{ id: before, data: 'before' }, { id: after, data: 'after' }],
        'the one resumed once Redis was back: what followed its event, once')
    })

    t.test('the connection lost before Redis answered: ERR_EVENTSOURCE_PUBLISH_UNCONFIRMED', async (t) => {
      const redis = await redisServer(t)
      const relay = await tcpRelay(t, () => redis.port)
      const client = await connect(t, `redis://127.0.0.1:${relay.port}`, { socket: { reconnectStrategy: false } })
      const a = await channelOn(t, { client })
      await a.channel.ready
      const [own] = relay.connections
      own.holdReplies()
      const publishing = a.channel.publish({ data: 'maybe' })
      const direct = await connect(t, redis.url)
      // The XADD reached Redis (its answer is held): then the connection is cut.
      await bounded(own.replyHeld(), 'Redis to answer the XADD')
      own.cut()
      const error = await publishing.catch((error) => error)
      t.equal(error.code, 'ERR_EVENTSOURCE_PUBLISH_UNCONFIRMED', String(error))
      t.ok(error.cause instanceof Error, `cause: ${error.cause}`)
      t.equal(await direct.xLen(a.channel.stream), 1, 'it was appended: the publisher must look before it retries')
    })

    t.test('a subscriber that cannot be resumed from the stream is disconnected; its client will retry', async (t) => {
      const redis = await redisServer(t)
      const client = await connect(t, redis.url, { disableOfflineQueue: true })
      const a = await channelOn(t, { client, history: 1 })
      await a.channel.ready
      // Delivered here (this client has the last), so that the first is older than the history.
      const follower = read(t, a.url)
      await follower.until(/retry: \d+\n\n/)
      const ids = await publishAll(a.channel, 3)
      await follower.until(/data: e3\n\n/)
      const lost = onceBounded(client, 'error')
      await redis.stop('SIGKILL')
      await lost
      const subscriber = read(t, a.url, ids[0])
      await bounded(subscriber.ended, () => `the response to end; it has ${JSON.stringify(subscriber.text)}, ` +
        `the client is ${client.isReady ? 'ready' : 'not ready'}, the channel said ${a.errors.join(', ')}`)
      await a.errorMatching(/offline/i)
    })

    t.test('a reader whose client gave up reconnecting says so, and stops', async (t) => {
      const redis = await redisServer(t)
      const client = await connect(t, redis.url, { socket: { reconnectStrategy: false } })
      const a = await channelOn(t, { client })
      await a.channel.ready
      await redis.stop('SIGKILL')
      // Said twice: by the client's 'error' event, and by the reader, whose read failed and which stops.
      await a.errorMatching(/Socket closed unexpectedly|ECONNRESET/, 2)
      await a.channel.close()
      t.pass('the reader stopped')
    })

    t.test('the tests\' redis-server does not outlive a test process killed before its teardown', async (t) => {
      // What tap does to a test file past its timeout: the process dies, its teardowns never run.
      const code = `require('./test/helpers/redis.cjs').redisServer({ teardown () {} })
        .then((redis) => console.log(JSON.stringify({ port: redis.port })))`
      const child = runChild(t, ['-e', code], { cwd: path.join(__dirname, '..', '..'), isolate: true, coverage: false })
      const [, port] = await child.whileAlive(child.waitFor('stdout', /\{"port":(\d+)\}/))
      const socket = net.connect(Number(port), '127.0.0.1')
      socket.on('error', () => {})
      await onceBounded(socket, 'connect')
      child.child.kill('SIGKILL')
      await onceBounded(socket, 'close')
      const again = net.connect(Number(port), '127.0.0.1')
      const [error] = await onceBounded(again, 'error')
      // (Refused, or reset while the dying server's listening socket closes.)
      t.match(error.code, /^(ECONNREFUSED|ECONNRESET)$/, 'nothing takes a connection on its port any more')
    })

    t.test('a URL where nothing listens: the channel says why, and never gets ready', async (t) => {
      const redis = await redisServer(t)
      const port = redis.port
      await redis.stop('SIGKILL')
      const a = await channelOn(t, { url: `redis://127.0.0.1:${port}` })
      await a.errorMatching(/ECONNREFUSED/)
      await a.channel.close()
      t.pass('closed while connecting')
    })
  })
}
