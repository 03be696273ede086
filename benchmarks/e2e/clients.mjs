// The clients compared by the whole-client benchmarks, loaded in the client process only (each
// benchmark process loads the one it measures, so the others' modules are not in its heap).
//
//   ours        this package's EventSource, on undici's global dispatcher (its default)
//   ours+diagnostics  the same, with a subscriber on every diagnostics channel and on the attempt's
//               TracingChannel (README, "Diagnostics"): what observing costs, against `ours`
//   undici      undici@7's EventSource (require('undici').EventSource): fetch() on the same global dispatcher
//   eventsource the eventsource package (v4, the newest major that runs on Node 20): globalThis.fetch
//   floor       a bare node:http GET that reads and discards the same bytes: no parsing, no events

import { createRequire } from 'node:module'
import dc from 'node:diagnostics_channel'

const require = createRequire(import.meta.url)

export const CLIENTS = ['ours', 'undici', 'eventsource', 'floor']
// The throughput benchmark's default: ours with and without diagnostics subscribers, and the peers.
export const E2E_CLIENTS = ['ours', 'ours+diagnostics', 'undici', 'eventsource', 'floor']

// A subscriber as an APM tool's would be, at its cheapest: it keeps the last message (so that the
// optimiser cannot leave the message unbuilt) and does nothing else.
let lastMessage = null
// eslint-disable-next-line no-unused-vars
const keep = (message) => { lastMessage = message }

function subscribeToDiagnostics () {
  for (const name of ['create', 'connect', 'open', 'message', 'error', 'close']) dc.subscribe(`whatwg-eventsource:${name}`, keep)
  dc.tracingChannel('whatwg-eventsource:attempt').subscribe({ start: keep, end: keep, asyncStart: keep, asyncEnd: keep, error: keep })
}

export function clientLabel (id) {
  switch (id) {
    case 'ours': return `whatwg-eventsource@${require('../../package.json').version}`
    case 'ours+diagnostics': return `whatwg-eventsource@${require('../../package.json').version} + diagnostics subscribers`
    case 'undici': return `undici@${require('undici/package.json').version} EventSource`
    case 'eventsource': return `eventsource@${require('eventsource/package.json').version}`
    case 'floor': return 'floor: node:http GET'
    default: throw new Error(`unknown client ${id}`)
  }
}

/**
 * Loads a client. For the three EventSources: { EventSource }. For the floor: { http }.
 * @param {string} id
 */
export async function loadClient (id) {
  switch (id) {
    case 'ours': return { EventSource: require('../../index.js').EventSource }
    case 'ours+diagnostics':
      subscribeToDiagnostics()
      return { EventSource: require('../../index.js').EventSource }
    case 'undici': return { EventSource: require('undici').EventSource }
    case 'eventsource': return { EventSource: require('eventsource').EventSource }
    case 'floor': return { http: require('node:http') }
    default: throw new Error(`unknown client ${id}`)
  }
}
