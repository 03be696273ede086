// The parsers the parser benchmark (./parser.bench.mjs) times, and how each is fed; shared with
// test/benchmarks/bench-fixtures.test.cjs, which checks that every one of them parses every fixture to its model.
//
// Byte form: ours (EventSourceParser) against the peers issue 28 names:
//   undici7             undici@7's EventSourceStream, the parser inside undici 7's EventSource (and
//                       Node 24's): require('undici/lib/web/eventsource/eventsource-stream.js')
//   undici8             undici@8's EventSourceStream (the chunk-list rewrite; inside Node 26's
//                       EventSource), from the devDependency alias undici8 (npm:undici@^8):
//                       require('undici8/lib/web/eventsource/eventsource-stream.js')
//   eventsource-parser  eventsource-parser@4's createParser, fed strings from one streaming TextDecoder
// Neither undici exports its EventSourceStream; the file path inside the package is stable across 7
// and 8 and their package.json has no `exports` map that would hide it. Every peer is timed on every
// Node where it loads: undici 8 (engines >=22.19) and eventsource-parser 4 (>=22.12) on Node 20 too,
// a pure parser needing nothing newer; the benchmark prints each one's engines range.
//
// String form: our drop-in for eventsource-parser (whatwg-eventsource/parser) against
// eventsource-parser itself, the same strings fed to both.
//
// An implementation: { id, name, count(input) → events, collect(input) → { events, retries, retryNote } }.
// count() is the timed form; collect() feeds the same way and records what a consumer sees.

import { createRequire } from 'node:module'
import { packageSupport } from './engines.mjs'

const require = createRequire(import.meta.url)

export const OURS = 'whatwg-eventsource'
export const DROP_IN = 'whatwg-eventsource/parser'

// id → the package (under node_modules) it is loaded from, and what it is.
const PEER_PACKAGES = {
  undici7: { pkg: 'undici', what: 'EventSourceStream', label: 'undici 7 EventSourceStream' },
  undici8: { pkg: 'undici8', what: 'EventSourceStream', label: 'undici 8 EventSourceStream' },
  'eventsource-parser': { pkg: 'eventsource-parser', what: '', label: 'eventsource-parser 4' }
}
export const PARSER_PEERS = Object.keys(PEER_PACKAGES)

/** Each peer's name in the output and the JSON, its version and its engines range. */
export function peerInfo (id) {
  const { pkg, what } = PEER_PACKAGES[id]
  const support = packageSupport(pkg)
  // The alias undici8 is published as undici: the name says which undici, by its version.
  const published = pkg.startsWith('undici') ? 'undici' : pkg
  return { id, name: `${published}@${support.version}${what ? ` ${what}` : ''}`, ...support }
}

/**
 * The column of a peer's name as stored in a result file, old files included
 * ("undici@7.30.2 EventSourceStream" → undici7), or null for a name that is none of the peers.
 */
export function peerColumn (name) {
  const undici = /^undici@(\d+)\./.exec(name)
  if (undici !== null) return PEER_PACKAGES[`undici${undici[1]}`] ? `undici${undici[1]}` : null
  return name.startsWith('eventsource-parser@') ? 'eventsource-parser' : null
}

/** A column's heading in tables: "undici 8 EventSourceStream". */
export const peerLabel = (id) => PEER_PACKAGES[id].label

const noop = () => {}
const STREAM = { stream: true }

function undiciSettings () {
  return { lastEventId: '', origin: 'http://127.0.0.1', reconnectionTime: 3000 }
}

function ours (EventSourceParser, keepAlive) {
  const kept = { parser: null }
  return {
    id: 'ours',
    name: OURS,
    count (chunks) {
      let n = 0
      const parser = new EventSourceParser({ onEvent () { n++ }, onRetry: noop })
      for (let i = 0; i < chunks.length; i++) parser.write(chunks[i])
      parser.end()
      if (keepAlive) kept.parser = parser
      return n
    },
    collect (chunks) {
      const events = []
      const retries = []
      const parser = new EventSourceParser({
        onEvent (type, data, lastEventId) { events.push({ type, data, lastEventId }) },
        onRetry (ms) { retries.push(ms) }
      })
      for (const chunk of chunks) parser.write(chunk)
      parser.end()
      return { events, retries, retryNote: 'per retry line' }
    }
  }
}

// undici 7 and 8 alike: write() with `push` overridden, as in undici's own benchmark and EventSource,
// so no Readable buffering. The stream reads lastEventId and origin from eventSourceSettings.
//
// Each implementation's timed function is its own code (a function literal of its own), never one
// closure made twice by a shared factory: V8 keeps type feedback per function literal, so undici 7's
// and 8's streams timed through one literal would make its call sites polymorphic for both, a cost
// neither pays in an EventSource. So the timed functions that share a body are written once, as text,
// and compiled anew for each implementation; collect() (not timed) is shared.
function ownLiteral (names, body, values) {
  // eslint-disable-next-line no-new-func -- a function literal of its own per implementation (above)
  return new Function(...names, body)(...values)
}

const UNDICI_COUNT = `
  const kept = { stream: null }
  return function count (chunks) {
    let n = 0
    const stream = new EventSourceStream({ push () { n++; return true }, eventSourceSettings: undiciSettings() })
    for (let i = 0; i < chunks.length; i++) stream.write(chunks[i])
    if (keepAlive) kept.stream = stream
    return n
  }`

const undiciCount = (EventSourceStream, keepAlive) =>
  ownLiteral(['EventSourceStream', 'keepAlive', 'undiciSettings'], UNDICI_COUNT, [EventSourceStream, keepAlive, undiciSettings])

function undiciStream (id, name, EventSourceStream, keepAlive) {
  return {
    id,
    name,
    count: undiciCount(EventSourceStream, keepAlive),
    collect (chunks) {
      const events = []
      const retries = []
      // undici has no retry callback: it stores the value in eventSourceSettings when it dispatches.
      const settings = undiciSettings()
      let reconnectionTime = settings.reconnectionTime
      Object.defineProperty(settings, 'reconnectionTime', {
        get () { return reconnectionTime },
        set (ms) { reconnectionTime = ms; retries.push(ms) },
        enumerable: true
      })
      const stream = new EventSourceStream({
        push (e) { events.push({ type: e.type, data: e.options.data, lastEventId: e.options.lastEventId }); return true },
        eventSourceSettings: settings
      })
      for (const chunk of chunks) stream.write(chunk)
      return { events, retries, retryNote: 'stored in eventSourceSettings at dispatch' }
    }
  }
}

// eventsource-parser takes strings: decoded with one streaming TextDecoder (which also drops a BOM).
function eventsourceParser (name, createParser, keepAlive) {
  const kept = { parser: null }
  return {
    id: 'eventsource-parser',
    name,
    count (chunks) {
      let n = 0
      const parser = createParser({ onEvent () { n++ }, onRetry: noop })
      const decoder = new TextDecoder()
      for (let i = 0; i < chunks.length; i++) parser.feed(decoder.decode(chunks[i], STREAM))
      const tail = decoder.decode()
      if (tail !== '') parser.feed(tail)
      if (keepAlive) kept.parser = parser
      return n
    },
    collect (chunks) {
      const events = []
      const retries = []
      // Its events carry the id of their own block only; the last event ID (which persists across
      // events, as EventSource exposes it) is tracked through onId.
      let lastEventId = ''
      const parser = createParser({
        onId (id) { lastEventId = id },
        onEvent (e) { events.push({ type: e.event ?? 'message', data: e.data, lastEventId }) },
        onRetry (ms) { retries.push(ms) }
      })
      const decoder = new TextDecoder()
      for (const chunk of chunks) parser.feed(decoder.decode(chunk, STREAM))
      const tail = decoder.decode()
      if (tail !== '') parser.feed(tail)
      return { events, retries, retryNote: 'per retry line' }
    }
  }
}

/**
 * Ours and the peers of `peers` (ids of PARSER_PEERS), in that order, for the byte form.
 * @param {{ peers?: string[], keepAlive?: boolean }} [options] keepAlive: each implementation keeps its
 *   previous iteration's parser alive (./parser.bench.mjs says why)
 */
export async function byteImplementations ({ peers = PARSER_PEERS, keepAlive = true } = {}) {
  const out = [ours(require('../lib/parser/event-source-parser.js').EventSourceParser, keepAlive)]
  for (const id of peers) {
    const info = peerInfo(id)
    if (id === 'eventsource-parser') {
      out.push(eventsourceParser(info.name, (await import('eventsource-parser')).createParser, keepAlive))
    } else if (PEER_PACKAGES[id]) {
      const { EventSourceStream } = require(`${PEER_PACKAGES[id].pkg}/lib/web/eventsource/eventsource-stream.js`)
      out.push(undiciStream(id, info.name, EventSourceStream, keepAlive))
    } else {
      throw new Error(`unknown parser peer ${id} (peers: ${PARSER_PEERS.join(', ')})`)
    }
  }
  return out
}

// The string form: fed strings as a TextDecoderStream hands them over (see toStrings). The timed
// function of each is its own literal, as for undici above.
const STRING_COUNT = `
  const kept = { parser: null }
  return function count (strings) {
    let n = 0
    const parser = create({ onEvent () { n++ }, onRetry: noop })
    for (let i = 0; i < strings.length; i++) parser.feed(strings[i])
    if (keepAlive) kept.parser = parser
    return n
  }`

const stringCount = (create, keepAlive) => ownLiteral(['create', 'keepAlive', 'noop'], STRING_COUNT, [create, keepAlive, noop])

function stringImplementation (id, name, create, count) {
  return {
    id,
    name,
    count,
    collect (strings) {
      const events = []
      const retries = []
      // eventsource-parser's events carry their own block's id only: the last event ID is tracked
      // through onId, and a missing type is "message".
      let lastEventId = ''
      const parser = create({
        onId (id) { lastEventId = id },
        onEvent (e) { events.push({ type: e.event ?? 'message', data: e.data, lastEventId }) },
        onRetry (ms) { retries.push(ms) }
      })
      for (const s of strings) parser.feed(s)
      return { events, retries, retryNote: 'per retry line' }
    }
  }
}

/** The string form: our drop-in, then eventsource-parser. */
export async function stringImplementations ({ keepAlive = true } = {}) {
  const dropIn = require('../lib/entries/parser.js').createParser
  const esp = (await import('eventsource-parser')).createParser
  return [
    stringImplementation('drop-in', DROP_IN, dropIn, stringCount(dropIn, keepAlive)),
    stringImplementation('eventsource-parser', peerInfo('eventsource-parser').name, esp, stringCount(esp, keepAlive))
  ]
}

/**
 * A fixture's chunks as the strings a TextDecoderStream hands over (a character cut by a chunk boundary
 * comes with the chunk that completes it), the BOM kept (ignoreBOM) for both parsers to drop.
 */
export function toStrings (chunks) {
  const decoder = new TextDecoder('utf-8', { ignoreBOM: true })
  const out = chunks.map((chunk) => decoder.decode(chunk, STREAM))
  const tail = decoder.decode()
  if (tail !== '') out.push(tail)
  return out
}

/** The first event where `got` and `want` differ, described, or null. */
export function firstDifference (got, want) {
  const n = Math.max(got.length, want.length)
  for (let i = 0; i < n; i++) {
    const g = got[i]
    const w = want[i]
    if (g === undefined || w === undefined || g.type !== w.type || g.data !== w.data || g.lastEventId !== w.lastEventId) {
      const show = (e) => e === undefined ? '(none)' : JSON.stringify({ ...e, data: e.data.length > 60 ? `${e.data.slice(0, 60)}… (${e.data.length} chars)` : e.data })
      return `event #${i}: expected ${show(w)}, got ${show(g)}`
    }
  }
  return null
}
