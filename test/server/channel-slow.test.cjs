'use strict'

// Slow subscribers of a channel (lib/server/channel.js): one that does not read falls back to a cursor in the
// history (nothing more is written, so nothing more is held for it), and catches up when it reads again, at its
// own pace, with nothing lost and nothing twice; one that stays away while the history moves past its cursor is
// disconnected with ERR_EVENTSOURCE_CLIENT_TOO_SLOW. Raw sockets that pause are the slow clients.

const t = require('tap')
const { EventStreamWriter } = require('../../lib/entries/server.js')
const { channelServer, rawGet, parseAll, macrotask } = require('../helpers/index.cjs')

const KiB = 1024
const MiB = 1024 * KiB
// Whether a writer waits for its client to read: its `ready` has not settled by the next macrotask.
const waiting = (writer) => Promise.race([writer.ready.then(() => false), macrotask().then(() => true)])
const idsOf = (response) => parseAll([response.body]).filter(([kind]) => kind === 'event').map(([, , , id]) => id)

t.test('a subscriber that does not read falls back to a cursor, and catches up on reading: nothing lost, nothing twice', async (t) => {
  const { channel, srv, responses } = await channelServer(t, { history: 10_000, historyBytes: 64 * MiB })
  const fast = await rawGet(t, srv.port)
  const slow = await rawGet(t, srv.port, { read: false })
  const writer = await srv.writer(1)
  const data = 'x'.repeat(32 * KiB)
  const ids = []
  let held = 0
  // 150 events of 32 KiB (4.7 MiB), one a tick: past what the kernel takes for a client that does not read.
  for (let i = 0; i < 150; i++) {
    ids.push(channel.publish({ data }))
    await macrotask()
    held = Math.max(held, responses[1].writableLength)
  }
  await fast.until((r) => r.text.includes(`id: ${ids.at(-1)}\n`), 'every event on the fast subscriber')
  t.same(idsOf(fast), ids, 'the fast subscriber is not held back')
  t.equal(await waiting(writer), true, 'the slow one is behind: its writer waits for it to read')
  // What the kernel did not take of the write that filled it (Node's high-water mark: 16 KiB on Node 20, 64 KiB
  // from 22), and a tick's event: nothing more.
  const bound = responses[1].writableHighWaterMark + 2 * data.length
  t.ok(held <= bound, `Node held at most ${held} bytes for it (bound ${bound}): the rest is the history's`)
  t.equal(channel.size, 2)

  slow.socket.resume()
  await slow.until((r) => r.text.includes(`id: ${ids.at(-1)}\n`), 'the slow subscriber to catch up')
  ids.push(channel.publish({ data: 'live again' }))
  await slow.until((r) => r.text.includes('live again'), 'a live event')
  t.same(idsOf(slow), ids, 'every event once, in order')
  t.equal(writer.signal.aborted, false, 'not disconnected')
})

t.test('a subscriber closed while it waits for its socket: the socket keeps no listener of it', async (t) => {
  // The channel's bytes go to a subscriber's socket (one chunk for every subscriber, lib/server/node-sinks.js),
  // so a subscriber that does not read waits for its socket's 'drain', not its response's.
  const { channel, srv, responses } = await channelServer(t)
  await rawGet(t, srv.port)
  await rawGet(t, srv.port, { read: false })
  const writer = await srv.writer(1)
  const socket = responses[1].socket
  const before = socket.listenerCount('drain')
  const data = 'x'.repeat(32 * KiB)
  for (let i = 0; i < 400 && !(await waiting(writer)); i++) {
    channel.publish({ data })
    await macrotask()
  }
  t.equal(await waiting(writer), true, 'the subscriber that does not read is behind')
  t.equal(socket.listenerCount('drain'), before + 1, 'waiting for its socket to drain')
  writer.close()
  t.equal(socket.listenerCount('drain'), before, 'and no longer once closed')
})

t.test('catching up follows the client\'s pace: a backlog larger than maxBufferedBytes is not a reason to cut', async (t) => {
  const { channel, srv } = await channelServer(t, { history: 10_000, historyBytes: 64 * MiB, maxBufferedBytes: 256 * KiB })
  const slow = await rawGet(t, srv.port, { read: false })
  const writer = await srv.writer(0)
  const data = 'y'.repeat(16 * KiB)
  const ids = []
  // 2 MiB behind, eight times maxBufferedBytes, all of it in the history.
  for (let i = 0; i < 128; i++) {
    ids.push(channel.publish({ data }))
    await macrotask()
  }
  t.equal(writer.signal.aborted, false, 'behind, in the history: not cut')
  slow.socket.resume()
  await slow.until((r) => r.text.includes(`id: ${ids.at(-1)}\n`) || r.socket.destroyed, 'the subscriber to catch up')
  t.equal(writer.signal.aborted, false, `a client that reads is not cut while it catches up (${writer.signal.reason?.code})`)
  t.same(idsOf(slow), ids, 'every event once, in order')
})

t.test('a subscriber the history moves past is disconnected: ERR_EVENTSOURCE_CLIENT_TOO_SLOW, memory bounded', async (t) => {
  const HISTORY = 20
  const { channel, srv, responses } = await channelServer(t, { history: HISTORY })
  const fast = await rawGet(t, srv.port)
  const slow = await rawGet(t, srv.port, { read: false })
  const writer = await srv.writer(1)
  const data = 'z'.repeat(16 * KiB)
  let published = 0
  let held = 0
  // Without the history's bound, nothing would stop this before 2,000 events (31 MiB).
  while (!writer.signal.aborted && published < 2000) {
    channel.publish({ data })
    published++
    await macrotask()
    held = Math.max(held, responses[1].writableLength)
  }
  t.equal(writer.signal.reason?.code, 'ERR_EVENTSOURCE_CLIENT_TOO_SLOW', `disconnected after ${published} events`)
  t.match(writer.signal.reason.message, /history/)
  const bound = responses[1].writableHighWaterMark + 2 * data.length
  t.ok(held <= bound, `Node held at most ${held} bytes for it meanwhile (bound ${bound})`)
  t.ok(responses[1].destroyed, 'its connection cut')
  t.equal(channel.size, 1, 'the fast subscriber remains')
  const last = channel.publish({ data: 'after' })
  await fast.until((r) => r.text.includes(`id: ${last}\n`), 'the fast subscriber\'s events')
  t.equal(idsOf(fast).length, published + 1, 'the fast subscriber had every event')
  slow.socket.resume()
  await slow.closed()
})

t.test('a subscriber that asks for a long backlog and reads none of it: bounded, then cut and counted no more', async (t) => {
  const HISTORY = 200
  const { channel, srv, responses } = await channelServer(t, { history: HISTORY, historyBytes: 64 * MiB, maxBufferedBytes: 64 * KiB })
  const data = 'w'.repeat(16 * KiB)
  const ids = Array.from({ length: HISTORY }, () => channel.publish({ data }))
  await macrotask()
  await rawGet(t, srv.port, { read: false, headers: { 'Last-Event-ID': ids[0] } })
  const writer = await srv.writer(0)
  const bound = responses[0].writableHighWaterMark + 2 * data.length
  t.ok(responses[0].writableLength <= bound, `Node holds ${responses[0].writableLength} bytes of its 3 MiB backlog (bound ${bound})`)
  t.equal(writer.signal.aborted, false, 'resuming is no reason to cut it: the backlog is in the history')
  t.equal(channel.size, 1)
  // The history moves past its cursor.
  let published = 0
  while (!writer.signal.aborted && published < 2 * HISTORY) {
    channel.publish({ data })
    published++
    await macrotask()
  }
  t.equal(writer.signal.reason?.code, 'ERR_EVENTSOURCE_CLIENT_TOO_SLOW', `cut after ${published} more events`)
  t.equal(channel.size, 0, 'and counted no more')
  t.ok(responses[0].destroyed)
})

t.test('a subscriber its own writes made full falls behind at the next publish, and catches up', async (t) => {
  const { channel, srv } = await channelServer(t, {}, (channel, req, res) => channel.subscribe(new EventStreamWriter(res, { heartbeat: 0 })))
  const client = await rawGet(t, srv.port, { read: false })
  const writer = await srv.writer(0)
  // The application writes to its subscriber directly, until the client stops taking.
  const data = 'v'.repeat(64 * KiB)
  let own = 0
  while (writer.send({ event: 'own', data })) {
    if (++own > 1000) throw new Error('send() never said to wait')
    await macrotask()
  }
  const ids = [channel.publish({ data: 'one' }), channel.publish({ data: 'two' })]
  await macrotask()
  ids.push(channel.publish({ data: 'three' }))
  client.socket.resume()
  await client.until((r) => r.text.includes(`id: ${ids[2]}\n`), 'the channel\'s events')
  const channelIds = parseAll([client.body]).filter(([kind, type]) => kind === 'event' && type === 'message').map(([, , , id]) => id)
  t.same(channelIds, ids, 'each once, in order, after its own')
  t.equal(channel.size, 1)
})
