'use strict'

// A child process for the memory-bound tests (test/reliability/reliability-memory.test.cjs), run with --expose-gc
// by runChild() (test/helpers/child.cjs) against a server in the parent. It prints one JSON line: its
// report. "Memory" is heapUsed plus external (Buffers, and the long strings Node decodes outside the
// heap), after two full GCs.
//
//   node --expose-gc memory.js stalled <url> <events>
//     A `for await` loop takes one event of <url> (a body of <events> equal events) and then stops
//     reading. Meanwhile a control EventSource reads the same body to its end: by then the stalled
//     one has had all the time it needs to decode everything too. Its queue and the memory growth are
//     reported; then it reads the rest, and whether every event arrived is reported.
//
//   node --expose-gc memory.js slow <url> <events> <sampleEvery>
//     A `for await` loop slower than the decoder: it waits for a 1 ms timer every 32 events (32 KiB),
//     about 30 MB/s at most, where zlib decodes hundreds. Memory is sampled every <sampleEvery> events.
//
//   MEMORY_TRANSPORT=fetch: stalled and slow with `fetch: globalThis.fetch` (the fetch transport, whose
//   decoding and buffering are Node's fetch's), the control source too.
//
//   node --expose-gc memory.js parser <shape> <maxEventSize>
//     An EventSourceParser fed a hostile stream (one of SHAPES, in 64 KiB chunks) up to the last chunk
//     before it throws ERR_EVENTSOURCE_EVENT_TOO_LARGE (found by a first parser); the memory it then
//     holds is reported.
//
//   node --expose-gc memory.js many-lines <parser> <lines>
//     An event of <lines> one-byte data lines (`data:x`), in chunks of about 64 KiB, not yet ended by its
//     blank line: the memory the parser then holds is reported, with the event's bytes (two a line: the
//     value and its LF). <parser>: byte (EventSourceParser) or drop-in (createParser() of
//     whatwg-eventsource/parser, fed strings); each is one parser for every runtime. A comment with an é
//     leads each chunk: the byte parser decodes its values one by one (an ASCII chunk is decoded whole, and
//     an event's data copied out of such texts now and then). Then the blank line: whether the event
//     arrived whole is reported.
//
//   node --expose-gc memory.js idle-parsers <count> <shape>
//     <count> parsers, each given one event and then nothing more (an idle connection's parser); the
//     memory they then hold is reported, per parser. shape `split`: its lines came in two chunks each;
//     `long-id`: its 36-character ID came in a 16 KiB chunk (a comment pads it).

const { EventSource, EventSourceParser } = require('../..')

const [mode, ...rest] = process.argv.slice(2)
const CHUNK = 64 * 1024

function memoryAfterGc () {
  global.gc()
  global.gc()
  const { heapUsed, external } = process.memoryUsage()
  return heapUsed + external
}

// Loaded before the first measurement: undici is otherwise loaded by the first EventSource, and would
// count as growth.
require('undici')
require('node:zlib')

// With MEMORY_TRANSPORT=fetch, the EventSources here take the fetch transport, with Node's fetch.
const TRANSPORT = process.env.MEMORY_TRANSPORT === 'fetch' ? { fetch: globalThis.fetch } : {}

// Node's fetch is loaded on its first call: made before the first measurement, for the same reason.
async function warmUp (url) {
  if (TRANSPORT.fetch !== undefined) await (await fetch(url)).body.cancel()
}

// The message iterator's default highWaterMark, in events.
const HIGH_WATER_MARK = 1000

/** Resolves once `source` has dispatched `count` messages (whatwg-eventsource:message). */
function dispatchedAtLeast (source, count) {
  const dc = require('node:diagnostics_channel')
  let dispatched = 0
  return new Promise((resolve) => {
    const onMessage = (message) => {
      if (message.source !== source || ++dispatched < count) return
      dc.unsubscribe('whatwg-eventsource:message', onMessage)
      resolve()
    }
    dc.subscribe('whatwg-eventsource:message', onMessage)
  })
}

async function stalled () {
  const url = rest[0]
  const total = Number(rest[1])
  const report = { mode, total }
  await warmUp(url)
  const base = memoryAfterGc()
  const es = new EventSource(url, { reconnectionTime: 60_000, ...TRANSPORT })
  // The stalled source's queue is full once it has dispatched the first event and a highWaterMark's
  // worth more (or the whole body): counted on the message channel, so the report waits for that and
  // not for however long the control source happens to take.
  const full = dispatchedAtLeast(es, Math.min(total, HIGH_WATER_MARK + 1))
  let errors = 0
  es.addEventListener('error', () => { errors++ })
  const events = es[Symbol.asyncIterator]()
  const first = await events.next()
  const expected = first.value.data
  let read = 1
  let controlEvents = 0
  for await (const event of new EventSource(url, TRANSPORT)) {
    if (event.data !== expected) report.controlMismatch = true
    if (++controlEvents === total) break
  }
  report.controlEvents = controlEvents
  await full
  report.queued = events.size
  report.queuedBytes = events.bytes
  report.growth = memoryAfterGc() - base
  report.rss = process.memoryUsage().rss
  // The end of the body comes after its last decoded byte: not while those wait.
  report.errorsWhileStalled = errors
  while (read < total) {
    const { value, done } = await events.next()
    if (done) break
    if (value.data !== expected) report.mismatch = true
    read++
  }
  report.read = read
  await events.return()
  return report
}

async function slow () {
  const url = rest[0]
  const total = Number(rest[1])
  const sampleEvery = Number(rest[2])
  const report = { mode, total, samples: [] }
  await warmUp(url)
  const base = memoryAfterGc()
  const es = new EventSource(url, { reconnectionTime: 60_000, ...TRANSPORT })
  let read = 0
  let expected = null
  for await (const event of es) {
    expected ??= event.data
    if (event.data !== expected) report.mismatch = true
    if (++read % sampleEvery === 0) report.samples.push(memoryAfterGc() - base)
    if (read === total) break
    if (read % 32 === 0) await new Promise((resolve) => setTimeout(resolve, 1))
  }
  report.read = read
  report.maxGrowth = Math.max(...report.samples)
  return report
}

// Streams that each make the parser hold as much as it can per counted byte: SHAPES[name](limit)
// returns `chunk(i)`, the i-th 64 KiB chunk, a fresh Buffer, as a socket would hand it over.
function repeated (line, encoding = 'latin1') {
  return () => {
    const template = Buffer.from(line.repeat(Math.floor(CHUNK / line.length)), encoding)
    return () => Buffer.from(template)
  }
}
const SHAPES = {
  // The data buffer grows by one join per line: cons strings cost more than the bytes.
  'empty-lines': repeated('data:\n'),
  'short-lines': repeated('data: 12345\n'),
  // The same in chunks that are not ASCII (a comment with an é leads each): values are decoded one by
  // one, and the data buffer is never copied whole.
  'short-lines-utf8': () => {
    const template = Buffer.from(`: \u00e9\n${'data: 12345\n'.repeat(5400)}`, 'utf8')
    return () => Buffer.from(template)
  },
  'empty-lines-utf8': () => {
    const template = Buffer.from(`: \u00e9\n${'data:\n'.repeat(10800)}`, 'utf8')
    return () => Buffer.from(template)
  },
  // One line that never ends: held as raw pieces.
  'long-line': () => (i) => i === 0 ? Buffer.from('data: ') : Buffer.alloc(CHUNK, 0x78),
  // A type and an ID of almost the limit each, then data.
  fields: (limit) => {
    const value = limit - 64
    const head = Buffer.from(`event: ${'t'.repeat(value)}\nid: ${'i'.repeat(value)}\ndata: `)
    return (i) => {
      const start = i * CHUNK
      if (start >= head.length) return Buffer.alloc(CHUNK, 0x78)
      const chunk = Buffer.alloc(CHUNK, 0x78)
      head.copy(chunk, 0, start, Math.min(head.length, start + CHUNK))
      return chunk
    }
  },
  // One short data line per chunk, the rest of the chunk a comment: each data value is a slice of its
  // chunk's decoded text, which would keep all 64 KiB of it alive.
  pinned: () => {
    const template = Buffer.alloc(CHUNK, 0x70)
    template.write('\ndata: 0123456789abcdefghij\n:')
    return () => Buffer.from(template)
  },
  // Values V8 stores at two bytes per character: ASCII with one character above U+00FF, and bytes
  // that are not UTF-8 (each becomes U+FFFD).
  wide: repeated(`data: \u20ac${'x'.repeat(100)}\n`, 'utf8'),
  invalid: repeated(`data: ${'\xff'.repeat(100)}\n`)
}

function parser () {
  const [shape, limitText] = rest
  const maxEventSize = Number(limitText)
  const make = SHAPES[shape]
  if (make === undefined) throw new Error(`unknown shape ${shape}`)
  const chunk = make(maxEventSize)
  const onEvent = () => { throw new Error('no event expected') }
  // First find the chunk that overflows...
  const probe = new EventSourceParser({ onEvent, maxEventSize })
  let overflowAt = -1
  for (let i = 0; overflowAt === -1; i++) {
    try {
      probe.write(chunk(i))
    } catch (err) {
      if (err.code !== 'ERR_EVENTSOURCE_EVENT_TOO_LARGE') throw err
      overflowAt = i
    }
  }
  // ...then feed a fresh parser everything before it.
  const base = memoryAfterGc()
  const measured = new EventSourceParser({ onEvent, maxEventSize })
  for (let i = 0; i < overflowAt; i++) measured.write(chunk(i))
  const growth = memoryAfterGc() - base
  globalThis.measured = measured
  return { mode, shape, maxEventSize, chunks: overflowAt, growth, ratio: growth / maxEventSize }
}

// A parser of each kind, fed chunks of text as it takes them (bytes, or strings), with no limit.
const MANY_LINES_PARSERS = {
  byte: (onData) => {
    const parser = new EventSourceParser({ onEvent: (type, data) => onData(data), maxEventSize: Infinity })
    return (text) => parser.write(Buffer.from(text))
  },
  'drop-in': (onData) => {
    const parser = require('../../lib/entries/parser.js').createParser({ onEvent: (event) => onData(event.data) })
    // A fresh string per feed, as a decoder hands them out.
    return (text) => parser.feed(Buffer.from(text).toString())
  }
}

function manyLines () {
  const [kind, linesText] = rest
  const lines = Number(linesText)
  const make = MANY_LINES_PARSERS[kind]
  if (make === undefined) throw new Error(`unknown parser ${kind}`)
  const line = 'data:x\n'
  const perChunk = Math.floor(CHUNK / line.length)
  const template = `: \u00e9\n${line.repeat(perChunk)}`
  let data = null
  const base = memoryAfterGc()
  const feed = make((value) => { data = value })
  for (let fed = 0; fed < lines; fed += perChunk) feed(fed + perChunk <= lines ? template : line.repeat(lines - fed))
  const growth = memoryAfterGc() - base
  const bytes = 2 * lines
  feed('\n')
  const whole = data !== null && data.length === bytes - 1 && data.startsWith('x\nx') && data.endsWith('x\nx')
  return { mode, kind, lines, bytes, growth, ratio: growth / bytes, whole }
}

const IDLE_SHAPES = {
  split: [Buffer.from('id: 1\ndata: a line cut'), Buffer.from(' in two\n\n')],
  'long-id': [Buffer.from(`:${'p'.repeat(16 * 1024 - 60)}\nid: 123e4567-e89b-12d3-a456-426614174000\ndata: x\n\n`)]
}

function idleParsers () {
  const count = Number(rest[0])
  const chunks = IDLE_SHAPES[rest[1]]
  if (chunks === undefined) throw new Error(`unknown shape ${rest[1]}`)
  let events = 0
  const onEvent = () => { events++ }
  const parsers = []
  const base = memoryAfterGc()
  for (let i = 0; i < count; i++) {
    const parser = new EventSourceParser({ onEvent })
    // A chunk of its own for each parser, as each connection's is.
    for (const chunk of chunks) parser.write(Buffer.from(chunk))
    parsers.push(parser)
  }
  const growth = memoryAfterGc() - base
  globalThis.parsers = parsers
  return { mode, shape: rest[1], count, events, growth, perParser: growth / count }
}

const MODES = { stalled, slow, parser, 'idle-parsers': idleParsers, 'many-lines': manyLines }
const main = MODES[mode]
if (main === undefined || typeof global.gc !== 'function') {
  process.stdout.write(JSON.stringify({ error: `usage: node --expose-gc ${__filename} ${Object.keys(MODES).join('|')} ...` }) + '\n')
  process.exitCode = 2
} else {
  Promise.resolve().then(main).then((report) => {
    process.stdout.write(JSON.stringify(report) + '\n')
  }, (err) => {
    process.stdout.write(JSON.stringify({ error: err.stack }) + '\n')
    process.exitCode = 1
  })
}
