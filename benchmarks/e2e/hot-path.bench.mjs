// Per-event costs on an EventSource's hot path, as mitata micro-benchmarks: what every client pays
// for each message once the bytes are parsed. Run by ./run.mjs (which records the numbers in
// results/e2e-<node>.json), or alone:
//
//   node --expose-gc benchmarks/e2e/hot-path.bench.mjs
//
//   MessageEvent     Node's MessageEvent constructor with { data, origin, lastEventId } (what ours and
//                    the eventsource package build per event); undici's createFastMessageEvent
//                    (what undici's EventSource builds); a plain Event, and performance.now(), which
//                    Node's Event constructor calls for every event's timeStamp, for scale
//   dispatchEvent    EventTarget.prototype.dispatchEvent with one listener, of a reused event and of a
//                    fresh MessageEvent; the same on one of our EventSources (closed before it
//                    connects) through its onmessage handler
//   parse            our EventSourceParser on 1,000 small (67-byte) events in one chunk, per event
//   diagnostics      what the message channel (README, "Diagnostics") costs per event: the
//                    hasSubscribers check alone (nobody subscribed), and building and publishing the
//                    message to one subscriber that keeps it
//
// Every iteration checks that its listener ran (a counter), so nothing is optimized away.

import { createRequire } from 'node:module'
import dc from 'node:diagnostics_channel'
import v8 from 'node:v8'
import vm from 'node:vm'
import { eventData, eventId, streamBytes } from './workloads.mjs'

if (typeof globalThis.gc !== 'function') {
  v8.setFlagsFromString('--expose-gc')
  globalThis.gc = vm.runInNewContext('gc')
}
const { bench, group, run, do_not_optimize } = await import('mitata') // eslint-disable-line camelcase -- mitata's name

const require = createRequire(import.meta.url)
const { EventSource, EventSourceParser } = require('../../lib/entries/index.js')
const { createFastMessageEvent } = require('undici/lib/web/websocket/events.js')
// The class of our EventSource's events (instanceof the global MessageEvent, without its WebIDL
// dictionary conversion): lib/eventsource/message-event.js.
const { messageEventClass } = require('../../lib/eventsource/message-event.js')

const data = eventData('small', 42)
const lastEventId = eventId(42)
const origin = 'http://127.0.0.1:8080'
const PARSE_EVENTS = 1000
const parseChunk = streamBytes('small', PARSE_EVENTS)

let received = 0
const listener = () => { received++ }

function check (expected) {
  if (received !== expected) throw new Error(`listener ran ${received} times, expected ${expected}`)
  received = 0
}

group('per-event object', () => {
  // Node's Event constructor stamps every event with the time (its timeStamp): this call.
  bench('performance.now()', () => do_not_optimize(performance.now()))
  bench('new Event(type)', () => do_not_optimize(new Event('message')))
  bench('new MessageEvent(type, { data, origin, lastEventId })', () =>
    do_not_optimize(new MessageEvent('message', { data, origin, lastEventId })))
  bench('undici createFastMessageEvent(type, { data, origin, lastEventId })', () =>
    do_not_optimize(createFastMessageEvent('message', { data, origin, lastEventId })))
  bench('ours: new (messageEventClass())(type, data, origin, lastEventId)', () =>
    do_not_optimize(new (messageEventClass())('message', data, origin, lastEventId)))
})

const target = new EventTarget()
target.addEventListener('message', listener)
const reused = new MessageEvent('message', { data, origin, lastEventId })

// One of ours, closed before its first microtask: no request is ever made.
const source = new EventSource(origin)
source.close()
source.onmessage = listener

group('dispatchEvent (one listener)', () => {
  bench('EventTarget: dispatchEvent(reused MessageEvent)', () => {
    target.dispatchEvent(reused)
    check(1)
  })
  bench('EventTarget: dispatchEvent(new MessageEvent(...))', () => {
    target.dispatchEvent(new MessageEvent('message', { data, origin, lastEventId }))
    check(1)
  })
  bench('EventTarget: dispatchEvent(our MessageEvent)', () => {
    target.dispatchEvent(new (messageEventClass())('message', data, origin, lastEventId))
    check(1)
  })
  bench('our EventSource: onmessage, dispatchEvent(new MessageEvent(...))', () => {
    source.dispatchEvent(new MessageEvent('message', { data, origin, lastEventId }))
    check(1)
  })
})

let parsed = 0
// As in parser.bench.mjs: keep the previous parser alive so a GC between samples does not drop its maps.
let keep = null
group(`parse (${PARSE_EVENTS} small events in one chunk)`, () => {
  bench('our EventSourceParser.write', () => {
    parsed = 0
    const parser = new EventSourceParser({ onEvent () { parsed++ } })
    parser.write(parseChunk)
    if (parsed !== PARSE_EVENTS) throw new Error(`parsed ${parsed} events, expected ${PARSE_EVENTS}`)
    keep = parser
    return do_not_optimize(keep)
  }).gc('inner')
})

// Channels of their own, as lib/platform/channels-node.js makes its message channel: the source above publishes
// nothing, and a subscriber here would change nothing there.
const unobserved = dc.channel('whatwg-eventsource-bench:unobserved')
const observed = dc.channel('whatwg-eventsource-bench:observed')
let kept = null
observed.subscribe((message) => { kept = message })
group('diagnostics (message channel, per event)', () => {
  bench('nobody subscribed: hasSubscribers, no message', () => {
    if (unobserved.hasSubscribers) unobserved.publish({ source, type: 'message', lastEventId, dataLength: data.length })
    return do_not_optimize(unobserved)
  })
  bench('one subscriber: build { source, type, lastEventId, dataLength } and publish', () => {
    if (observed.hasSubscribers) observed.publish({ source, type: 'message', lastEventId, dataLength: data.length })
    return do_not_optimize(kept)
  })
})

const result = await run({ throw: true })

// Per-event nanoseconds (the parse benchmark covers PARSE_EVENTS events per iteration).
const perEvent = {}
for (const b of result.benchmarks) {
  for (const r of b.runs) {
    const divisor = r.name.startsWith('our EventSourceParser') ? PARSE_EVENTS : 1
    perEvent[r.name] = {
      avgNs: r.stats.avg / divisor,
      p50Ns: r.stats.p50 / divisor,
      minNs: r.stats.min / divisor,
      p99Ns: r.stats.p99 / divisor,
      maxNs: r.stats.max / divisor
    }
  }
}
if (process.send) process.send({ perEvent, parseEvents: PARSE_EVENTS }, () => process.exit(0))
