// The parsers of benchmarks/parser-strings.bench.mjs, each in its two forms:
// - feed: `createParser({ onEvent, onRetry })`, every string through `feed()`;
// - stream: `new EventSourceParserStream()`, every string written into its writable side while its
//   readable side is read, as `response.body.pipeThrough(new TextDecoderStream()).pipeThrough(...)`
//   hands it strings and a consumer reads its events.
// The drop-in (whatwg-eventsource/parser, whatwg-eventsource/parser/stream) and eventsource-parser 4
// and 3 (the devDependency alias eventsource-parser3) are driven by the same code.
//
// count(strings): the timed form, returns the number of events. collect(strings): the same feeding with
// every callback recorded, in order, for the record-for-record comparison before timing.
//
// What stays alive between calls (the benchmark runs a full GC before each; ../parser.bench.mjs says
// why something must): the feed form keeps its previous iteration's parser. The stream form keeps one
// stream open from its first call on, its event half-read, its reader waiting: a stream that has ended
// drops its transformer (the spec clears a TransformStream's algorithms when it closes), so keeping the
// last stream would not keep a parser alive, and after each GC the drop-in's code specialized on its
// parser's classes was deoptimized ("weak objects" under --trace-deopt) while eventsource-parser's
// closures lost less: 1.2x the peer's time at the minimum on UTF-8 text in 64-character feeds, against
// 1.0x without the GCs. A process reading an SSE response has such an open stream.

import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const noop = () => {}

export const DROP_IN = 'whatwg-eventsource/parser'

// A ParseError as a record: its type and message, and what it names.
const errorRecord = (e) => ['error', e.type, e.message, e.field, e.value, e.line]

/**
 * One parser's two forms.
 * @param {string} name
 * @param {Function} createParser
 * @param {typeof TransformStream} EventSourceParserStream
 */
function implementation (name, createParser, EventSourceParserStream) {
  const kept = { feed: null, stream: null, open: null }
  return {
    name,
    feed: {
      count (strings) {
        let n = 0
        const parser = createParser({ onEvent () { n++ }, onRetry: noop })
        for (let i = 0; i < strings.length; i++) parser.feed(strings[i])
        kept.feed = parser
        return n
      },
      collect (strings) {
        const records = []
        const parser = createParser({
          onEvent (e) { records.push(['event', e.id, e.event, e.data]) },
          onId (id) { records.push(['id', id]) },
          onRetry (ms) { records.push(['retry', ms]) },
          onComment (text) { records.push(['comment', text]) },
          onError (e) { records.push(errorRecord(e)) }
        })
        for (const s of strings) parser.feed(s)
        return records
      }
    },
    stream: {
      async count (strings) {
        kept.open ??= openStream(EventSourceParserStream)
        const stream = new EventSourceParserStream()
        const events = countEvents(stream.readable)
        await writeAll(stream.writable, strings)
        kept.stream = stream
        return events
      },
      async collect (strings) {
        const records = []
        const stream = new EventSourceParserStream({
          onId (id) { records.push(['id', id]) },
          onRetry (ms) { records.push(['retry', ms]) },
          onComment (text) { records.push(['comment', text]) },
          onError (e) { records.push(errorRecord(e)) }
        })
        const events = []
        const read = (async () => {
          for await (const e of stream.readable) events.push(['event', e.id, e.event, e.data])
        })()
        await writeAll(stream.writable, strings)
        await read
        // The callbacks run as the strings are written, the events come out through the readable
        // side's queue: two lists, each in order.
        return [...records, ['events'], ...events]
      }
    }
  }
}

// A stream left open: one event written up to its data line, its reader waiting for it.
function openStream (EventSourceParserStream) {
  const stream = new EventSourceParserStream()
  const writer = stream.writable.getWriter()
  writer.write('id: 1\nevent: open\ndata: x\n')
  const reader = stream.readable.getReader()
  return { stream, writer, reader, read: reader.read() }
}

// Writes every string as a pipe into the stream would, one after the other: a write resolves once the
// parser has taken its string (the writable side holds one; writing all at once would queue hundreds
// of thousands of writes there, and reading `desiredSize` to wait only when needed deoptimized after
// every GC, "wrong map", in Node's own code).
async function writeAll (writable, strings) {
  const writer = writable.getWriter()
  for (let i = 0; i < strings.length; i++) await writer.write(strings[i])
  await writer.close()
}

async function countEvents (readable) {
  const reader = readable.getReader()
  let n = 0
  while (!(await reader.read()).done) n++
  return n
}

/**
 * The drop-in and the peers asked for: '4' (eventsource-parser, the devDependency) and '3'
 * (eventsource-parser3). Returns [dropIn, ...peers], each { name, version, feed, stream }.
 * @param {string[]} peerMajors
 */
export async function loadImplementations (peerMajors) {
  const { createParser } = require('../../lib/entries/parser.js')
  const { EventSourceParserStream } = require('../../lib/entries/parser-stream.js')
  const out = [{ ...implementation(DROP_IN, createParser, EventSourceParserStream), version: require('../../package.json').version }]
  for (const major of peerMajors) {
    const pkg = major === '4' ? 'eventsource-parser' : `eventsource-parser${major}`
    const version = require(`${pkg}/package.json`).version
    if (!version.startsWith(`${major}.`)) throw new Error(`${pkg} is ${version}, not ${major}.x`)
    const { createParser: peerCreate } = await import(pkg)
    const { EventSourceParserStream: PeerStream } = await import(`${pkg}/stream`)
    out.push({ ...implementation(`eventsource-parser@${version}`, peerCreate, PeerStream), version })
  }
  return out
}
