'use strict'

// Channel (lib/server/channel.js): fan-out. Every subscriber gets every event, in order, once; an event is
// encoded once and a tick's events go to each subscriber as one write of the same bytes; publish()'s ids; size;
// subscribe() of a writer; close(); the options. Resumption and the gap event: channel-resume.test.cjs; slow
// subscribers: channel-slow.test.cjs; cuts: channel-cuts.test.cjs.

const t = require('tap')
const { Buffer } = require('node:buffer')
const { Channel, EventStreamWriter, encodeEvents } = require('../../lib/entries/server.js')
const { channelServer, rawGet, parseAll, record, bounded, withPatched } = require('../helpers/index.cjs')

const hasHead = (r) => r.head !== null
const eventsOf = (response) => parseAll([response.body]).filter(([kind]) => kind === 'event').map(([, ...e]) => e)

async function subscribers (t, srv, n, options) {
  const clients = []
  for (let i = 0; i < n; i++) clients.push(await rawGet(t, srv.port, options))
  await Promise.all(clients.map((client) => client.until(hasHead, 'the head')))
  return clients
}

t.test('fan-out: every subscriber gets every event in order, once; a tick\'s events in one write of the same bytes', async (t) => {
  const { channel, srv } = await channelServer(t)
  const clients = await subscribers(t, srv, 20)
  t.equal(channel.size, 20)
  const first = [{ data: 'one' }, { event: 'two', data: 'b\nc' }, { data: 'three', comment: 'note', retry: 1000 }]
  const ids = first.map((event) => channel.publish(event))
  await Promise.all(clients.map((client) => client.until((r) => r.chunks.length === 1, 'the first tick')))
  const second = [{ data: 'four' }, { data: 'five' }]
  ids.push(...second.map((event) => channel.publish(event)))
  await Promise.all(clients.map((client) => client.until((r) => r.chunks.length === 2, 'the second tick')))
  const expected = encodeEvents([...first, ...second].map((event, i) => ({ ...event, id: ids[i] })))
  for (const [i, client] of clients.entries()) {
    t.equal(client.chunks.length, 2, `subscriber ${i}: one write per tick`)
    t.ok(client.body.equals(expected), `subscriber ${i}: the bytes of the five events, with their ids`)
  }
  t.same(eventsOf(clients[7]), [
    ['message', 'one', ids[0]], ['two', 'b\nc', ids[1]], ['message', 'three', ids[2]],
    ['message', 'four', ids[3]], ['message', 'five', ids[4]]
  ])
  t.equal(channel.lastEventId, ids[4])
})

t.test('the same bytes to every kind of subscriber, in order with what each writer sends itself', async (t) => {
  // node:http frames a chunked body; the channel frames a tick's buffer once for every subscriber it goes to
  // (lib/server/node-sinks.js). An HTTP/1.0 client's body is not chunked, and a writer's own bytes (its
  // retry, a send()) are its alone: each must keep its place among the channel's.
  const { channel, srv } = await channelServer(t, { retry: 1500 })
  const clients = [
    ...await subscribers(t, srv, 3),
    ...await subscribers(t, srv, 2, { version: '1.0' }),
    ...await subscribers(t, srv, 3)
  ]
  const writers = await Promise.all(clients.map((_, i) => srv.writer(i)))
  // Written in the tick's order: these writers' own bytes first, then the channel's.
  writers[4].send({ data: 'own to 4' })
  writers[6].send({ data: 'own to 6' })
  const ids = [channel.publish({ data: 'one' }), channel.publish({ data: 'two' })]
  await Promise.all(clients.map((client) => client.until((r) => r.body.includes('data: two'), 'the first tick')))
  // Past 64 KiB a writer writes at once, in a promise job here (after an await): more than the socket takes,
  // so the channel's next tick waits for this subscriber to read (it falls back to its cursor).
  await null
  const large = 'x'.repeat(70 * 1024)
  writers[7].send({ data: large })
  ids.push(channel.publish({ data: 'three' }))
  await Promise.all(clients.map((client) => client.until((r) => r.body.includes('data: three'), 'the second tick')))
  for (const [i, client] of clients.entries()) {
    const own = i === 4 || i === 6 ? [`own to ${i}`] : []
    const ownLarge = i === 7 ? [large] : []
    t.same(eventsOf(client).map(([, data]) => data), [...own, 'one', 'two', ...ownLarge, 'three'],
      `subscriber ${i}: every event, in order`)
    t.same(client.header('transfer-encoding'), i === 3 || i === 4 ? [] : ['chunked'], `subscriber ${i}: its framing`)
    t.equal(client.body.toString().match(/^retry: 1500$/gm)?.length, 1, `subscriber ${i}: its retry, once, first`)
    t.ok(client.body.toString().startsWith('retry: 1500\n\n'))
  }
  t.equal(clients[0].chunks.length, 3, 'a chunked subscriber: its retry, then one chunk per tick')
})

t.test('an event is encoded once, whatever the number of subscribers', async (t) => {
  const allocations = async (n) => {
    const { channel, srv } = await channelServer(t)
    await subscribers(t, srv, n)
    let count = 0
    withPatched([[Buffer, 'allocUnsafe', (allocUnsafe) => function (size) {
      count++
      return allocUnsafe.call(this, size)
    }]], () => {
      for (let i = 0; i < 10; i++) channel.publish({ data: `event ${i}` })
    })
    return count
  }
  t.equal(await allocations(1), 10, 'one buffer per event with one subscriber')
  t.equal(await allocations(50), 10, 'and with fifty')
})

t.test('this package\'s EventSource as subscribers: each gets every event once, in order', async (t) => {
  const { channel, srv } = await channelServer(t)
  const recs = []
  for (let i = 0; i < 5; i++) recs.push(record(srv.eventSource('/')))
  await Promise.all(recs.map((rec) => rec.wait('open')))
  await bounded(srv.writer(4), 'the fifth subscriber')
  const ids = []
  for (let i = 0; i < 30; i++) {
    ids.push(channel.publish({ data: `${i}` }))
    if (i % 7 === 0) await recs[0].wait('message', i + 1)
  }
  await Promise.all(recs.map((rec) => rec.wait('message', 30)))
  for (const rec of recs) {
    t.same(rec.of('message').map((e) => [e.data, e.lastEventId]), ids.map((id, i) => [`${i}`, id]))
  }
})

t.test('publish(): generated ids <epoch>-<n>, or the event\'s own; \'\' and an id in the history refused', async (t) => {
  const channel = new Channel({ heartbeat: 0, history: 3 })
  t.equal(channel.lastEventId, '', 'none before the first event')
  const generated = channel.publish({ data: 'a' })
  const match = /^([0-9a-z]+)-1$/.exec(generated)
  t.ok(match, `${generated}: the channel's epoch and the event's number`)
  t.equal(channel.publish({ data: 'b' }), `${match[1]}-2`)
  t.not(new Channel().publish({ data: 'a' }), generated, 'another channel, another epoch')
  t.equal(channel.publish({ id: 'own', data: 'c' }), 'own', 'a publisher\'s own id (a backplane\'s)')
  t.equal(channel.lastEventId, 'own')
  t.throws(() => channel.publish({ id: '', data: 'd' }), { name: 'TypeError', code: 'ERR_INVALID_ARG_VALUE', message: /must not be empty/ })
  t.throws(() => channel.publish({ id: 'own', data: 'd' }), { name: 'TypeError', code: 'ERR_INVALID_ARG_VALUE', message: /history already/ })
  t.throws(() => channel.publish({ id: 'a\nb', data: 'd' }), { code: 'ERR_INVALID_ARG_VALUE' })
  t.throws(() => channel.publish({ data: 5 }), { code: 'ERR_INVALID_ARG_TYPE' })
  t.throws(() => channel.publish(null), { code: 'ERR_INVALID_ARG_TYPE' })
  t.throws(() => channel.publish('data: x'), { code: 'ERR_INVALID_ARG_TYPE' })
  t.equal(channel.lastEventId, 'own', 'nothing published by a refused event')
  t.equal(channel.publish({ data: 'd' }), `${match[1]}-4`, 'nor numbered')
  channel.publish({ data: 'e' })
  channel.publish({ data: 'f' })
  t.equal(channel.publish({ id: 'own', data: 'again' }), 'own', 'an id that left the history may come again')
  channel.close()
})

t.test('a refused event reaches no subscriber', async (t) => {
  const { channel, srv } = await channelServer(t)
  const [client] = await subscribers(t, srv, 1)
  t.throws(() => channel.publish({ event: 'x\ry', data: 'no' }))
  channel.publish({ data: 'yes' })
  await client.until((r) => r.chunks.length === 1, 'the event')
  t.same(eventsOf(client).map(([, data]) => data), ['yes'])
})

t.test('size, subscribe() of a writer, close()', async (t) => {
  const writers = []
  const { channel, srv } = await channelServer(t, { heartbeat: 0, retry: 250 }, (channel, req, res, i) => {
    if (i === 0) {
      // A writer of the application's own, with options of its own.
      const writer = new EventStreamWriter(res, { heartbeat: 0, retry: 99 })
      writers.push(writer)
      return channel.subscribe(writer)
    }
    return channel.subscribe(res, i === 1 ? { retry: 7 } : undefined)
  })
  const clients = await subscribers(t, srv, 3)
  t.equal(channel.size, 3)
  t.equal(await srv.writer(0), writers[0], 'subscribe() returns the writer it was given')
  t.throws(() => channel.subscribe(writers[0]), { code: 'ERR_INVALID_ARG_VALUE', message: /subscriber of a channel already/ })
  const other = new Channel({ heartbeat: 0 })
  t.throws(() => other.subscribe(writers[0]), { code: 'ERR_INVALID_ARG_VALUE' })
  const closed = new EventStreamWriter(null, { heartbeat: 0 })
  closed.close()
  t.equal(other.subscribe(closed), closed, 'a closed writer is returned as it is')
  t.equal(other.size, 0, 'and not counted')
  other.close()

  channel.publish({ data: 'x' })
  await Promise.all(clients.map((client) => client.until((r) => r.text.includes('data: x'), 'the event')))
  t.match(clients[0].text, /^retry: 99\n\n/, 'the application\'s writer: its options')
  t.match(clients[1].text, /^retry: 7\n\n/, 'subscribe()\'s options over the channel\'s')
  t.match(clients[2].text, /^retry: 250\n\n/, 'the channel\'s options')

  clients[1].socket.destroy()
  await bounded((await srv.writer(1)).closed, 'the subscriber that left')
  t.equal(channel.size, 2, 'a subscriber that left is no longer counted')

  const lastId = channel.publish({ data: 'last' })
  channel.close()
  t.equal(channel.size, 0)
  t.equal(channel.lastEventId, lastId, 'lastEventId still names the newest event once closed')
  t.equal(other.lastEventId, '', 'and is empty for a channel closed before its first event')
  for (const client of [clients[0], clients[2]]) {
    await client.until((r) => r.ended, 'the end of each body')
    t.match(client.text, /data: last\n\n$/, 'what was published before close() is written first')
  }
  t.throws(() => channel.publish({ data: 'y' }), { name: 'Error', code: 'ERR_EVENTSOURCE_CHANNEL_CLOSED', message: 'The channel is closed' })
  t.throws(() => channel.subscribe(null), { name: 'Error', code: 'ERR_EVENTSOURCE_CHANNEL_CLOSED' })
  channel.close()
  t.equal(Object.prototype.toString.call(channel), '[object Channel]')
})

t.test('a channel on WHATWG bodies: subscribe(request)', async (t) => {
  const channel = new Channel({ heartbeat: 0 })
  const writers = [0, 1].map(() => channel.subscribe(new Request('http://x/')))
  const readers = writers.map((writer) => writer.response().body.getReader())
  const id = channel.publish({ data: 'x' })
  for (const reader of readers) t.equal(new TextDecoder().decode((await reader.read()).value), `id: ${id}\ndata: x\n\n`)
  await readers[0].cancel()
  t.equal(channel.size, 1)
  channel.close()
  t.same(await readers[1].read(), { done: true, value: undefined })
})

t.test('options are checked', async (t) => {
  const bad = [
    ['x', 'ERR_INVALID_ARG_TYPE', /"options"/],
    [{ history: -1 }, 'ERR_OUT_OF_RANGE', /options\.history/],
    [{ history: Infinity }, 'ERR_OUT_OF_RANGE', /options\.history/],
    [{ historyBytes: '4 MiB' }, 'ERR_INVALID_ARG_TYPE', /options\.historyBytes/],
    [{ gapEvent: 5 }, 'ERR_INVALID_ARG_TYPE', /options\.gapEvent/],
    [{ gapEvent: 'a\nb' }, 'ERR_INVALID_ARG_VALUE', /event/]
  ]
  for (const [options, code, message] of bad) {
    t.throws(() => new Channel(options), { code, message }, JSON.stringify(options))
  }
  // The writers' options are checked by the first writer.
  const channel = new Channel({ heartbeat: -1 })
  t.throws(() => channel.subscribe(null), { code: 'ERR_OUT_OF_RANGE', message: /options\.heartbeat/ })
  t.equal(channel.size, 0)
  t.ok(new Channel({ historyBytes: Infinity, gapEvent: null }))
})
