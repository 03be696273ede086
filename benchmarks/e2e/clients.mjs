// The clients compared by the whole-client benchmarks, loaded in the client process only (each
// benchmark process loads the one it measures, so the others' modules are not in its heap).
//
//   ours        this package's EventSource, on undici's global dispatcher (its default)
//   ours+diagnostics  the same, with a subscriber on every diagnostics channel and on the attempt's
//               TracingChannel (README, "Diagnostics"): what observing costs, against `ours`
//   ours+batch  the same, its messages taken by init.onBatch (one call per network chunk) instead of an
//               onmessage listener: the batch path against per-event dispatch (issue 48)
//   ours+agent  ours with init.dispatcher an Agent of the undici package (the dependency), the Agent
//               undici's own EventSource runs on: on Node 22 and later the global dispatcher is the
//               undici inside Node, whose per-connection functions cost more (idle memory only,
//               over cleartext HTTP/1.1; docs/extensions.md, "Many idle connections")
//   undici      undici@7's EventSource (require('undici').EventSource, the dependency): fetch() on the
//               same global dispatcher
//   undici8     undici@8's EventSource (require('undici8').EventSource, the devDependency alias
//               undici8: npm:undici@^8): fetch() on undici 8's global dispatcher
//   node        the runtime's own EventSource (globalThis.EventSource): Node 20 to 26 have it only behind
//               --experimental-eventsource, which the runner passes to that client's process; it is
//               the undici bundled in Node (process.versions.undici)
//   eventsource the eventsource package v4 (require('eventsource')): globalThis.fetch
//   eventsource5 the eventsource package v5 (import('eventsource5'), the alias eventsource5:
//               npm:eventsource@^5; ESM only): globalThis.fetch
//   floor       a bare node:http GET that reads and discards the same bytes: no parsing, no events
//
// A peer whose package.json engines exclude the running Node (undici 8: >=22.19; eventsource 5:
// >=22.12) is left out of the default lists there, and the runner says so; naming it in --clients runs
// it anyway (undici 8's EventSource fails on Node 20; eventsource 5 runs).
//
// Transports (--tls in the runners): each client over
//   http        cleartext HTTP/1.1, as above
//   https       HTTP/1.1 over TLS: ours and undici's EventSource on an undici Agent that trusts the
//               benchmark certificate, the eventsource package on undici's fetch with that Agent, the
//               floor a node:https GET
//   h2          HTTP/2 over TLS: ours with init.http2 (its shared sessions); undici's EventSource and the
//               eventsource package on the Agent that makes undici share one session,
//               `new Agent({ allowH2: true, connections: 1, pipelining: <sources> })` (allowH2 alone
//               opens a session per source, connections: 1 alone lets one stream run at a time); the
//               floor a node:http2 client stream per source on one session (what any h2 client costs
//               at least)

import { createRequire } from 'node:module'
import { readFileSync } from 'node:fs'
import dc from 'node:diagnostics_channel'
import { packageSupport } from '../engines.mjs'
import { nodeEventSourceFlags } from '../startup/clients.mjs'

const require = createRequire(import.meta.url)

// The TLS runs' default (and the idle-memory benchmark's, with ours+agent there): ours, undici 7's
// EventSource (the memory target's peer), the eventsource package, the floor.
export const CLIENTS = ['ours', 'undici', 'eventsource', 'floor']
// The idle-memory benchmark's default over cleartext HTTP/1.1: ours on the global dispatcher and on the
// undici package's Agent, then the TLS runs' peers.
export const MEMORY_CLIENTS = ['ours', 'ours+agent', 'undici', 'eventsource', 'floor']
export const TLS_TRANSPORTS = ['https', 'h2']
// The throughput benchmark's default: ours with and without diagnostics subscribers, every peer of
// issue 28's targets (those this Node supports: see `clientSupport`), and the floor.
export const E2E_CLIENTS = ['ours', 'ours+diagnostics', 'ours+batch', 'undici', 'undici8', 'node', 'eventsource', 'eventsource5', 'floor']

// The peers that come from a package with an engines range of its own.
const PEER_PACKAGES = { undici: 'undici', undici8: 'undici8', eventsource: 'eventsource', eventsource5: 'eventsource5' }

/**
 * Whether the running Node supports a client: { supported, why } (why: for the output, when not).
 * @param {string} id
 */
export function clientSupport (id) {
  if (id === 'node') {
    return nodeEventSourceFlags() === null
      ? { supported: false, why: `Node ${process.version} has no EventSource, not even behind --experimental-eventsource` }
      : { supported: true, why: null }
  }
  if (PEER_PACKAGES[id] === undefined) return { supported: true, why: null }
  const { engines, supported } = packageSupport(PEER_PACKAGES[id])
  return { supported, why: supported ? null : `needs Node ${engines} (its engines field), this is ${process.version}` }
}

/**
 * The clients of a default list this Node supports, and a line for each left out. A list given with
 * --clients is taken as it is (`explicit`): a left-out peer can be run on purpose.
 */
export function supportedClients (ids, explicit = false) {
  if (explicit) return { ids, skipped: [] }
  const skipped = []
  const kept = ids.filter((id) => {
    const s = clientSupport(id)
    if (!s.supported) skipped.push({ id, why: s.why })
    return s.supported
  })
  return { ids: kept, skipped }
}

/** The flags a client's process needs (the runtime's own EventSource: --experimental-eventsource). */
export function clientExecArgv (id) {
  return id === 'node' ? nodeEventSourceFlags() ?? [] : []
}

// A subscriber as an APM tool's would be, at its cheapest: it keeps the last message (so that the
// optimiser cannot leave the message unbuilt) and does nothing else.
let lastMessage = null // eslint-disable-line no-unused-vars -- written and never read, on purpose (above)
const keep = (message) => { lastMessage = message }

function subscribeToDiagnostics () {
  for (const name of ['create', 'connect', 'open', 'message', 'error', 'close']) dc.subscribe(`whatwg-eventsource:${name}`, keep)
  dc.tracingChannel('whatwg-eventsource:attempt').subscribe({ start: keep, end: keep, asyncStart: keep, asyncEnd: keep, error: keep })
}

/**
 * What a runner measures: each client over each transport. Over cleartext HTTP/1.1 a variant is named
 * after its client (the result files before --tls); with --tls, `<transport>:<client>` (https:ours,
 * h2:undici...).
 * @param {string[]} clientIds
 * @param {boolean} tls
 * @param {string[]} transports with tls, of TLS_TRANSPORTS
 * @returns {{ clients: string[], variantOf: Record<string, { id: string, client: string, transport: string }>,
 *   labels: Record<string, string>, oursOf: (id: string) => string }} clients: the variants' ids;
 *   labels: their names in the output; oursOf: the variant of `ours` on the same transport, which the
 *   others are compared with
 */
export function measuredVariants (clientIds, tls, transports) {
  const variants = (tls ? transports : ['http']).flatMap((transport) =>
    clientIds.map((client) => ({ id: tls ? `${transport}:${client}` : client, client, transport })))
  const variantOf = Object.fromEntries(variants.map((v) => [v.id, v]))
  return {
    clients: variants.map((v) => v.id),
    variantOf,
    labels: Object.fromEntries(variants.map((v) => [v.id, clientLabel(v.client, v.transport)])),
    oursOf: (id) => tls ? `${variantOf[id].transport}:ours` : 'ours'
  }
}

// The tests' self-signed certificate for 127.0.0.1 (test/fixtures/tls): the benchmark server's, and
// what every TLS client here trusts.
export function tlsFixture () {
  const dir = new URL('../../test/fixtures/tls/', import.meta.url)
  return { key: readFileSync(new URL('key.pem', dir)), cert: readFileSync(new URL('cert.pem', dir)) }
}

export function clientLabel (id, transport = 'http') {
  const over = transport === 'http' ? '' : ` over ${transport === 'h2' ? 'h2' : 'HTTPS/1.1'}`
  switch (id) {
    case 'ours': return `whatwg-eventsource@${require('../../package.json').version}${over}`
    case 'ours+diagnostics': return `whatwg-eventsource@${require('../../package.json').version} + diagnostics subscribers${over}`
    case 'ours+batch': return `whatwg-eventsource@${require('../../package.json').version}, init.onBatch${over}`
    case 'ours+agent': return `whatwg-eventsource@${require('../../package.json').version} on undici@${require('undici/package.json').version}'s Agent${over}`
    case 'undici': return `undici@${require('undici/package.json').version} EventSource${over}`
    case 'undici8': return `undici@${require('undici8/package.json').version} EventSource${over}`
    case 'node': {
      const flags = nodeEventSourceFlags()
      return `Node ${process.version} EventSource (undici ${process.versions.undici}${flags?.length ? `, ${flags.join(' ')}` : ''})${over}`
    }
    case 'eventsource': return `eventsource@${require('eventsource/package.json').version}${over}`
    case 'eventsource5': return `eventsource@${require('eventsource5/package.json').version}${over}`
    case 'floor': return transport === 'h2' ? 'floor: node:http2 stream' : `floor: node:${transport} GET`
    default: throw new Error(`unknown client ${id}`)
  }
}

/**
 * Loads a client. For the three EventSources: { EventSource, init } (init: the second constructor
 * argument). For the floor: { get(url, onResponse) }, a GET whose response has statusCode,
 * setEncoding() and 'data'/'end' events, and whose request has destroy() and 'error'.
 * @param {string} id
 * @param {{ transport?: 'http' | 'https' | 'h2', sources?: number }} [options] sources: how many
 *   connections the process opens at most (the pipelining of undici's h2 Agent)
 */
export async function loadClient (id, { transport = 'http', sources = 1 } = {}) {
  if (transport === 'http') {
    switch (id) {
      case 'ours': return { EventSource: require('../../lib/entries/index.js').EventSource }
      case 'ours+diagnostics':
        subscribeToDiagnostics()
        return { EventSource: require('../../lib/entries/index.js').EventSource }
      case 'ours+agent': return { EventSource: require('../../lib/entries/index.js').EventSource, init: { dispatcher: new (require('undici').Agent)() } }
      // (The runner gives init.onBatch, and sets no onmessage: ./throughput-client.mjs.)
      case 'ours+batch': return { EventSource: require('../../lib/entries/index.js').EventSource, batch: true }
      case 'undici': return { EventSource: require('undici').EventSource }
      case 'undici8': return { EventSource: require('undici8').EventSource }
      case 'node': return { EventSource: runtimeEventSource() }
      case 'eventsource': return { EventSource: require('eventsource').EventSource }
      case 'eventsource5': return { EventSource: (await import('eventsource5')).EventSource }
      case 'floor': return { get: require('node:http').get }
      default: throw new Error(`unknown client ${id}`)
    }
  }
  const { cert: ca } = tlsFixture()
  if (id === 'floor') return { get: transport === 'h2' ? http2Get(ca) : (url, onResponse) => require('node:https').get(url, { ca }, onResponse) }
  if (id === 'ours' && transport === 'h2') return { EventSource: require('../../lib/entries/index.js').EventSource, init: { http2: { connect: { ca } } } }
  if (id === 'node' || id === 'ours+agent') throw new Error(`${id} is measured over cleartext HTTP/1.1 only`)
  // undici 8's EventSource on an Agent of undici 8; everything else on undici 7's.
  const undici = require(id === 'undici8' ? 'undici8' : 'undici')
  // Thousands of TLS handshakes at once take longer on a loaded machine than undici's connect timeout
  // (10 s) and our connectTimeout (30 s): neither is what is measured here.
  const connect = { ca, timeout: 600_000 }
  const agent = transport === 'h2'
    ? new undici.Agent({ allowH2: true, connections: 1, pipelining: sources, connect })
    : new undici.Agent({ connect })
  switch (id) {
    case 'ours': return { EventSource: require('../../lib/entries/index.js').EventSource, init: { dispatcher: agent, connectTimeout: 0 } }
    case 'undici':
    case 'undici8': return { EventSource: undici.EventSource, init: { node: { dispatcher: agent } } }
    case 'eventsource':
    case 'eventsource5': return {
      EventSource: id === 'eventsource' ? require('eventsource').EventSource : (await import('eventsource5')).EventSource,
      init: { fetch: (url, init) => undici.fetch(url, { ...init, dispatcher: agent }) }
    }
    default: throw new Error(`unknown client ${id}`)
  }
}

// The runtime's own EventSource: a global only with --experimental-eventsource (clientExecArgv).
function runtimeEventSource () {
  if (typeof globalThis.EventSource !== 'function') throw new Error(`no global EventSource on ${process.version}: run with ${nodeEventSourceFlags()?.join(' ') ?? '(no flag gives one)'}`)
  return globalThis.EventSource
}

// The h2 floor: one node:http2 session per origin, a stream per GET.
function http2Get (ca) {
  const http2 = require('node:http2')
  const sessions = new Map()
  return (url, onResponse) => {
    const { origin, pathname, search } = new URL(url)
    let session = sessions.get(origin)
    if (session === undefined || session.closed || session.destroyed) {
      session = http2.connect(origin, { ca, maxSessionMemory: 1024 })
      session.on('error', () => {})
      sessions.set(origin, session)
    }
    const stream = session.request({ ':path': pathname + search })
    stream.once('response', (headers) => {
      stream.statusCode = headers[':status']
      onResponse(stream)
    })
    return stream
  }
}
