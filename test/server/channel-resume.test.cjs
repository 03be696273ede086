'use strict'

// Resumption from a channel's history (lib/server/channel.js): a subscriber that comes back with Last-Event-ID
// gets exactly the events it missed, none twice, also those published in the tick it subscribed in; one whose id
// is not in the history (unknown, older than the history, too long) gets the `gap` event, whose id is the newest,
// so that its next reconnection resumes; the history's bounds, in events and in bytes.

const t = require('tap')
const { channelServer, rawGet, parseAll, record, open } = require('../helpers/index.cjs')

const eventsOf = (response) => parseAll([response.body]).filter(([kind]) => kind === 'event').map(([, ...e]) => e)

// Publishes `n` events named by their number; returns their ids.
const publishAll = (channel, n, from = 1) => Array.from({ length: n }, (_, i) => channel.publish({ data: `${from + i}` }))

t.test('Last-Event-ID: exactly the events missed, then the live ones, none twice', async (t) => {
  const { channel, srv } = await channelServer(t)
  const ids = publishAll(channel, 10)
  const client = await rawGet(t, srv.port, { headers: { 'Last-Event-ID': ids[3] } })
  await client.until((r) => r.text.includes('data: 10\n'), 'the missed events')
  ids.push(channel.publish({ data: '11' }))
  await client.until((r) => r.text.includes('data: 11\n'), 'a live event')
  t.same(eventsOf(client), ids.slice(4).map((id, i) => ['message', `${i + 5}`, id]))
})

t.test('this package\'s EventSource resumes from a stored id (init.lastEventId) and after an end', async (t) => {
  const { channel, srv } = await channelServer(t, { retry: 10 })
  const ids = publishAll(channel, 5)
  // A non-ASCII id of the publisher's own: sent back as UTF-8, found again.
  ids.push(channel.publish({ id: 'é-6', data: '6' }))
  const es = open(t, srv.url('/'), { lastEventId: ids[1] })
  const rec = record(es)
  await rec.wait('message', 4)
  ;(await srv.writer(0)).close()
  ids.push(channel.publish({ data: '7' }))
  await rec.wait('message', 5)
  t.equal((await srv.writer(1)).lastEventId, 'é-6')
  t.same(rec.of('message').map((e) => [e.data, e.lastEventId]), ids.slice(2).map((id, i) => [`${i + 3}`, id]))
  t.same(rec.types, ['open', 'message', 'message', 'message', 'message', 'error', 'open', 'message'])
})

t.test('events published in the tick of the subscription: each once, after the missed ones', async (t) => {
  const ids = []
  const { channel, srv } = await channelServer(t, {}, (channel, req, res, i) => {
    if (i === 0) return channel.subscribe(res)
    // The events of this tick: one before the subscription, one after.
    ids.push(channel.publish({ data: 'before' }))
    const writer = channel.subscribe(res)
    ids.push(channel.publish({ data: 'after' }))
    return writer
  })
  const live = await rawGet(t, srv.port)
  await srv.writer(0)
  const missed = publishAll(channel, 3)
  await live.until((r) => r.text.includes('data: 3\n'), 'the first events')
  const resumed = await rawGet(t, srv.port, { headers: { 'Last-Event-ID': missed[0] } })
  await resumed.until((r) => r.text.includes('data: after\n'), 'the events of the tick')
  await live.until((r) => r.text.includes('data: after\n'), 'the events of the tick')
  t.same(eventsOf(resumed), [['message', '2', missed[1]], ['message', '3', missed[2]], ['message', 'before', ids[0]], ['message', 'after', ids[1]]])
  t.same(eventsOf(live).map(([, data]) => data), ['1', '2', '3', 'before', 'after'])
  // A subscriber with no Last-Event-ID starts at the events not written yet: those of its own tick.
  const fresh = await rawGet(t, srv.port)
  await fresh.until((r) => r.text.includes('data: after\n'), 'the events of its tick')
  t.same(eventsOf(fresh).map(([, data]) => data), ['before', 'after'])
})

t.test('the gap event: an id the channel does not know; its id is the newest, so the next reconnection resumes', async (t) => {
  const { channel, srv } = await channelServer(t, { retry: 10 })
  const ids = publishAll(channel, 3)
  const es = open(t, srv.url('/'), { lastEventId: 'from another life' })
  const rec = record(es, ['open', 'message', 'gap', 'error'])
  await rec.wait('gap')
  const gap = rec.of('gap')[0]
  t.equal(gap.data, '')
  t.equal(gap.lastEventId, ids[2], 'the newest id')
  ids.push(channel.publish({ data: '4' }))
  await rec.wait('message')
  ;(await srv.writer(0)).close()
  ids.push(channel.publish({ data: '5' }))
  await rec.wait('message', 2)
  t.equal((await srv.writer(1)).lastEventId, ids[3])
  t.same(rec.types, ['open', 'gap', 'message', 'error', 'open', 'message'], 'one gap, then resumed without one')
  t.same(rec.data('message'), ['4', '5'])
})

t.test('the gap event: an id older than the history', async (t) => {
  const { channel, srv } = await channelServer(t, { history: 5 })
  const ids = publishAll(channel, 10)
  // Events 6 to 10 are kept: a client resumes from any of them.
  const old = await rawGet(t, srv.port, { headers: { 'Last-Event-ID': ids[4] } })
  const kept = await rawGet(t, srv.port, { headers: { 'Last-Event-ID': ids[5] } })
  await old.until((r) => r.chunks.length > 0, 'the gap')
  await kept.until((r) => r.text.includes('data: 10\n'), 'the history')
  t.same(eventsOf(old), [['gap', '', ids[9]]], 'from event 5, no longer kept: a gap')
  t.same(eventsOf(kept).map(([, data]) => data), ['7', '8', '9', '10'], 'from event 6, the oldest kept: the rest')
})

t.test('the gap event: a Last-Event-ID over 1024 characters, not echoed', async (t) => {
  const { channel, srv } = await channelServer(t)
  const ids = publishAll(channel, 2)
  const long = `${ids[0]}${'x'.repeat(1100)}`
  const client = await rawGet(t, srv.port, { headers: { 'Last-Event-ID': long } })
  await client.until((r) => r.chunks.length > 0, 'the gap')
  t.equal((await srv.writer(0)).lastEventId, null)
  t.same(eventsOf(client), [['gap', '', ids[1]]])
  t.notOk(client.text.includes('xxxx'), 'nothing of it echoed')
})

t.test('the gap event: none with gapEvent null; a type of one\'s own; no id before the first event', async (t) => {
  const { channel: quiet, srv: quietSrv } = await channelServer(t, { gapEvent: null })
  publishAll(quiet, 2)
  const none = await rawGet(t, quietSrv.port, { headers: { 'Last-Event-ID': 'unknown' } })
  await none.until((r) => r.head !== null, 'the head')
  quiet.publish({ data: 'live' })
  await none.until((r) => r.text.includes('live'), 'the live event')
  t.same(eventsOf(none).map(([type, data]) => [type, data]), [['message', 'live']], 'no gap event, the live events')

  const { channel: own, srv: ownSrv } = await channelServer(t, { gapEvent: 'reset' })
  const empty = await rawGet(t, ownSrv.port, { headers: { 'Last-Event-ID': 'unknown' } })
  await empty.until((r) => r.chunks.length > 0, 'the gap')
  t.equal(empty.text, 'event: reset\nid: \ndata: \n\n',
    'a channel with no event yet: a gap with an empty id, which resets the client\'s (no gap at its next reconnection)')
  own.publish({ data: 'x' })
})

t.test('history bounds: history events, historyBytes bytes, and the newest event kept whatever its size', async (t) => {
  // Each event below is 'id: <id>\ndata: <90 characters>\n\n': 100 bytes with a 2-character id.
  const { channel, srv } = await channelServer(t, { historyBytes: 350 })
  const data = 'd'.repeat(90)
  for (let i = 10; i < 20; i++) channel.publish({ id: `${i}`, data })
  const gapped = await rawGet(t, srv.port, { headers: { 'Last-Event-ID': '16' } })
  const resumed = await rawGet(t, srv.port, { headers: { 'Last-Event-ID': '17' } })
  await gapped.until((r) => r.chunks.length > 0, 'the gap')
  await resumed.until((r) => r.text.includes('id: 19\n'), 'the history')
  t.same(eventsOf(gapped).map(([type]) => type), ['gap'], '350 bytes hold three events, 17 to 19: not 16')
  t.same(eventsOf(resumed).map(([, , id]) => id), ['18', '19'])
  const big = channel.publish({ id: 'big', data: 'b'.repeat(1000) })
  const fromBig = await rawGet(t, srv.port, { headers: { 'Last-Event-ID': big } })
  channel.publish({ id: 'next', data: 'n' })
  await fromBig.until((r) => r.text.includes('id: next\n'), 'the event after the big one')
  t.same(eventsOf(fromBig).map(([, , id]) => id), ['next'], 'the newest event stays, even past historyBytes')
})

t.test('a long history: thousands of events through a bounded one, resumption still exact', async (t) => {
  const { channel, srv } = await channelServer(t, { history: 10 })
  const ids = []
  // More than 1,024 events dropped, so the history's array is compacted along the way.
  for (let tick = 0; tick < 30; tick++) {
    ids.push(...publishAll(channel, 100, ids.length + 1))
    await new Promise((resolve) => setImmediate(resolve))
  }
  const client = await rawGet(t, srv.port, { headers: { 'Last-Event-ID': ids[2995] } })
  await client.until((r) => r.text.includes('data: 3000\n'), 'the last events')
  t.same(eventsOf(client), ids.slice(2996).map((id, i) => ['message', `${2997 + i}`, id]))
  const gap = await rawGet(t, srv.port, { headers: { 'Last-Event-ID': ids[2989] } })
  await gap.until((r) => r.chunks.length > 0, 'the gap')
  t.same(eventsOf(gap), [['gap', '', ids[2999]]], 'ten events kept')
})
