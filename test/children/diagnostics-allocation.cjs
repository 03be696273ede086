'use strict'

// A child process for test/eventsource/diagnostics-unobserved.test.cjs, run with --expose-gc and a young
// generation large enough (--min-semi-space-size, --max-semi-space-size) that no scavenge runs during
// a measurement: the growth of heapUsed over one stream is then what it allocated. It prints one JSON
// line: the bytes allocated per event, for each round of each mode.
//
//   node --expose-gc --min-semi-space-size=64 --max-semi-space-size=64 diagnostics-allocation.cjs \
//     <url> <events> <rounds>
//
// <url> serves <events> events of a type nobody listens for, then one `done` event. Modes, interleaved
// round by round: `none` (nobody ever subscribed), `subscribed` (a subscriber on every channel and the
// TracingChannel that keeps the last message, so that the optimiser cannot leave the message
// unallocated), `unsubscribed` (the same subscribers, removed again before the stream).

const dc = require('node:diagnostics_channel')
const { EventSource } = require('../..')

const [url, events, rounds] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4])]
const NAMES = ['create', 'connect', 'open', 'message', 'error', 'close']
let last = null
const keep = (message) => { last = message }
const tracing = dc.tracingChannel('whatwg-eventsource:attempt')
const tracingHandlers = { start: keep, end: keep, asyncStart: keep, asyncEnd: keep, error: keep }

function subscribe () {
  for (const name of NAMES) dc.subscribe(`whatwg-eventsource:${name}`, keep)
  tracing.subscribe(tracingHandlers)
}

function unsubscribe () {
  for (const name of NAMES) dc.unsubscribe(`whatwg-eventsource:${name}`, keep)
  tracing.unsubscribe(tracingHandlers)
}

function stream () {
  return new Promise((resolve) => {
    const source = new EventSource(url)
    source.addEventListener('done', () => {
      source.close()
      resolve()
    })
  })
}

const turn = () => new Promise((resolve) => setImmediate(resolve))

async function bytesPerEvent () {
  global.gc()
  await turn()
  global.gc()
  const before = process.memoryUsage().heapUsed
  await stream()
  return (process.memoryUsage().heapUsed - before) / events
}

async function main () {
  // Warm up: modules loaded, code optimised, in every mode.
  for (let i = 0; i < 3; i++) {
    await stream()
    subscribe()
    await stream()
    unsubscribe()
  }
  const report = { none: [], subscribed: [], unsubscribed: [] }
  for (let round = 0; round < rounds; round++) {
    report.none.push(await bytesPerEvent())
    subscribe()
    report.subscribed.push(await bytesPerEvent())
    unsubscribe()
    report.unsubscribed.push(await bytesPerEvent())
  }
  process.stdout.write(`${JSON.stringify({ ...report, kept: last !== null })}\n`)
}

main()
