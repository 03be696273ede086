'use strict'

// Diagnostics cost nothing when nobody subscribes: no channel is published, and no message object is
// built (lib/platform/channels-node.js checks `hasSubscribers` before it builds one). A subscriber that goes away
// restores that path.

const t = require('tap')
const path = require('node:path')
const dc = require('node:diagnostics_channel')
const { AsyncLocalStorage } = require('node:async_hooks')
const { serve, sse, record, onceBounded, runHeapChild, CHANNELS, TRACING_EVENTS } = require('../helpers/index.cjs')

const NAMES = [
  ...CHANNELS.map((name) => `whatwg-eventsource:${name}`),
  ...TRACING_EVENTS.map((event) => `tracing:whatwg-eventsource:attempt:${event}`)
]
const attemptChannel = dc.tracingChannel('whatwg-eventsource:attempt')

// Records every publish() on the package's channels, subscribed or not: a channel's own publish
// property stands in front of its prototype's (a channel without subscribers is a plain Channel, one
// with subscribers an ActiveChannel; runStores() publishes through this.publish too).
function spyOnPublish (t) {
  const calls = []
  for (const name of NAMES) {
    const channel = dc.channel(name)
    channel.publish = function (message) {
      calls.push(name)
      return Object.getPrototypeOf(this).publish.call(this, message)
    }
    t.teardown(() => { delete channel.publish })
  }
  return calls
}

// Every path that publishes: open, a listened message and one nobody listens for, the end of the
// stream and a reconnection, a failure (404), a source closed by close().
async function everyPath (t) {
  const srv = await serve(t, (req, res, index) => {
    if (req.url === '/open') sse(res, 'data: 1\n\n', { end: false })
    else if (index === 0) sse(res, 'data: 1\n\nevent: other\ndata: 2\n\n')
    else res.writeHead(404).end()
  })
  const failing = srv.eventSource('/fail')
  const rec = record(failing)
  await rec.wait('error', 2)
  const open = srv.eventSource('/open')
  await onceBounded(open, 'message')
  open.close()
  return rec.types
}

t.test('nobody subscribed: nothing is published, on any path', async (t) => {
  const calls = spyOnPublish(t)
  t.strictSame(await everyPath(t), ['open', 'message', 'error', 'error'], 'every path ran')
  t.strictSame(calls, [])
  t.ok(NAMES.every((name) => !dc.hasSubscribers(name)))
})

t.test('subscribed, then unsubscribed: nothing is published again', async (t) => {
  const calls = spyOnPublish(t)
  const noop = () => {}
  const als = new AsyncLocalStorage()
  const handlers = { start: noop, end: noop, asyncStart: noop, asyncEnd: noop, error: noop }
  for (const name of CHANNELS) dc.subscribe(`whatwg-eventsource:${name}`, noop)
  attemptChannel.subscribe(handlers)
  attemptChannel.start.bindStore(als, () => 1)
  await everyPath(t)
  const published = new Set(calls)
  t.strictSame(NAMES.filter((name) => !published.has(name)), [], 'while subscribed, every channel was published')

  for (const name of CHANNELS) dc.unsubscribe(`whatwg-eventsource:${name}`, noop)
  attemptChannel.unsubscribe(handlers)
  attemptChannel.start.unbindStore(als)
  calls.length = 0
  await everyPath(t)
  t.strictSame(calls, [], 'nothing once the subscribers and the store are gone')
})

t.test('a message object is built only under subscription (bytes allocated per event)', async (t) => {
  const EVENTS = 20_000
  const body = `${'event: tick\ndata: 0123456789\n\n'.repeat(EVENTS)}event: done\ndata: x\n\n`
  const srv = await serve(t, (req, res) => sse(res, body))
  // A young generation of 64 MiB: no scavenge while a stream is read, so the heap's growth is what
  // it allocated.
  const { code, report } = await runHeapChild(t, path.join(__dirname, '..', 'children', 'diagnostics-allocation.cjs'),
    [srv.url(), EVENTS, 5], 60_000, { flags: ['--min-semi-space-size=64', '--max-semi-space-size=64'] })
  t.equal(code, 0)
  const median = (values) => values.toSorted((a, b) => a - b)[values.length >> 1]
  const none = median(report.none)
  const subscribed = median(report.subscribed)
  const unsubscribed = median(report.unsubscribed)
  t.comment(JSON.stringify(report))
  t.comment(`bytes per event: none ${none.toFixed(1)}, subscribed ${subscribed.toFixed(1)}, unsubscribed ${unsubscribed.toFixed(1)}`)
  // The message channel's object ({ source, type, lastEventId, dataLength }) is at least 28 bytes:
  // built when subscribed, not otherwise.
  t.ok(subscribed - none >= 24, `subscribed: ${(subscribed - none).toFixed(1)} bytes more per event than nobody subscribed`)
  t.ok(subscribed - unsubscribed >= 24, `unsubscribed: ${(subscribed - unsubscribed).toFixed(1)} bytes less per event than subscribed`)
  t.ok(Math.abs(unsubscribed - none) < 20, `unsubscribed and none within ${Math.abs(unsubscribed - none).toFixed(1)} bytes per event`)
})
