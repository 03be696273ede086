'use strict'

// Linear work whatever the chunking, proved without a clock: while the parser runs, the byte-copying
// primitives are wrapped and counted (Uint8Array#set for copies, Buffer.allocUnsafe for allocations,
// subarray for the views it keeps; test/helpers/byte-meter.cjs). A parser that appends each chunk to a pending buffer copies a
// dripped line once per write: O(N^2) bytes, which these bounds reject, as the naive splitter
// below shows with the same meter.

const t = require('tap')
const { Buffer } = require('node:buffer')
const { EventSourceParser } = require('../..')
const { prng, randomSplit, quadraticCopies } = require('../helpers/index.cjs')
const { meterByteWork: meter } = require('../helpers/byte-meter.cjs')
const { meterStringWork: meterStrings } = require('../helpers/string-meter.cjs')

// A bound of 3 bytes copied (or allocated) per input byte: each byte of a dripped line is copied
// once into the parser's scratch buffer and once into the joined line.
const FACTOR = 3

// The methods metered, to check afterwards that each was put back.
const originals = {
  set: Uint8Array.prototype.set,
  allocUnsafe: Buffer.allocUnsafe,
  u8Subarray: Uint8Array.prototype.subarray,
  bufferSubarray: Buffer.prototype.subarray
}

/** Cuts `bytes` into views of min..max bytes each, from a seeded PRNG (made before metering starts). */
function drip (bytes, min, max, seed = 1) {
  return randomSplit(bytes, prng(seed), { min, max })
}

/** `bytes` as chunks of `size` bytes (made before metering starts). */
function chunksOf (bytes, size) {
  const chunks = []
  for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.subarray(i, i + size))
  return chunks
}

function dataLine (size) {
  return Buffer.concat([Buffer.from('data:'), Buffer.alloc(size, 0x78), Buffer.from('\n\n')])
}

function run (chunks, options = {}) {
  const events = []
  const parser = new EventSourceParser({ ...options, onEvent (type, data) { events.push(data) } })
  const counts = meter(() => {
    for (const chunk of chunks) parser.write(chunk)
  })
  return { events, counts, parser }
}

// The O(N^2) way: append every chunk to the pending bytes, then cut complete lines off the front.
function naiveSplitter (chunks) {
  let pending = new Uint8Array(0)
  const lines = []
  return meter(() => {
    for (const chunk of chunks) {
      const joined = new Uint8Array(pending.length + chunk.length)
      joined.set(pending)
      joined.set(chunk, pending.length)
      pending = joined
      let lf
      while ((lf = pending.indexOf(0x0a)) !== -1) {
        lines.push(pending.slice(0, lf))
        pending = pending.slice(lf + 1)
      }
    }
  })
}

t.test('a 256 KiB data line dripped in 1-8 byte slices costs linear copying', async (t) => {
  const input = dataLine(256 * 1024)
  const chunks = drip(input, 1, 8)
  const { events, counts } = run(chunks)
  t.equal(events.length, 1)
  t.equal(events[0].length, 256 * 1024)
  t.ok(counts.copied <= FACTOR * input.length, `copied ${counts.copied} bytes for ${input.length}`)
  t.ok(counts.allocated <= FACTOR * input.length, `allocated ${counts.allocated} bytes for ${input.length}`)
  // Quadratic appending would copy the pending prefix at every write.
  const quadratic = quadraticCopies(chunks)
  t.ok(quadratic > 1000 * FACTOR * input.length, `pending + chunk would copy ${quadratic} bytes`)
})

t.test('the meter rejects the naive pending + chunk approach', async (t) => {
  // Small enough to run the quadratic splitter quickly, large enough to fail the bound by far.
  const input = dataLine(16 * 1024)
  const chunks = drip(input, 1, 8, 7)
  const naive = naiveSplitter(chunks)
  t.ok(naive.copied > 100 * FACTOR * input.length, `naive copied ${naive.copied} bytes for ${input.length}`)
  const { events, counts } = run(chunks)
  t.equal(events[0].length, 16 * 1024)
  t.ok(counts.copied <= FACTOR * input.length, `parser copied ${counts.copied} bytes for ${input.length}`)
})

t.test('a dripped line is held in scratch buffers, not one object per chunk', async (t) => {
  // No line end yet: what the parser allocates and the views it keeps are its memory for the line.
  const size = 64 * 1024
  const input = Buffer.concat([Buffer.from('data:'), Buffer.alloc(size, 0x78)])
  const { counts, parser } = run(drip(input, 1, 1))
  t.ok(counts.allocated <= input.length + 4096, `allocated ${counts.allocated} bytes for ${input.length}`)
  t.ok(counts.views <= input.length / 4096 + 2, `${counts.views} views for ${input.length} one-byte chunks`)
  t.ok(counts.copied <= input.length, `copied ${counts.copied} bytes`)
  // The line still completes with every byte.
  const tail = meter(() => parser.write(Buffer.from('\n\n')))
  t.ok(tail.copied <= input.length + 2, 'the line is joined once')
})

t.test('tiny chunks are copied, not kept: the caller may reuse them', async (t) => {
  // Deterministic evidence that no reference to a tiny chunk survives the write(): overwriting each
  // chunk right after it is written does not change the event. What the parser holds for the line
  // is then only its scratch bytes, counted above.
  const value = 'v'.repeat(20000)
  const input = Buffer.from(`data:${value}\n\n`)
  const events = []
  const parser = new EventSourceParser({ onEvent (type, data) { events.push(data) } })
  for (const view of drip(input, 1, 127, 5)) {
    const chunk = new Uint8Array(view)
    parser.write(chunk)
    chunk.fill(0x21)
  }
  t.same(events, [value])
})

t.test('a long line in large chunks is kept by reference and joined once', async (t) => {
  // Not ASCII (the last character), so joined: a long ASCII data line is decoded piece by piece instead.
  const input = Buffer.concat([Buffer.from('data:'), Buffer.alloc(1024 * 1024, 0x78), Buffer.from('é\n\n')])
  const chunks = drip(input, 128, 600, 3)
  const { events, counts } = run(chunks)
  t.equal(events[0].length, 1024 * 1024 + 1)
  t.equal(counts.allocations, 1, 'one allocation: the joined line')
  t.ok(counts.allocated <= input.length, `allocated ${counts.allocated} bytes`)
  t.ok(counts.copied <= input.length, `copied ${counts.copied} bytes: each byte once`)
  t.ok(counts.views <= chunks.length + 2, `${counts.views} views for ${chunks.length} chunks`)
})

t.test('a long ASCII data line in large chunks is decoded piece by piece, never joined', async (t) => {
  const input = dataLine(1024 * 1024)
  const chunks = drip(input, 128, 600, 3)
  const { events, counts } = run(chunks)
  t.ok(events[0] === 'x'.repeat(1024 * 1024), 'the value')
  t.equal(counts.allocations, 0, 'no buffer for the line')
  t.equal(counts.copied, 0, 'no byte copied but by the decoder')
  t.ok(counts.views <= chunks.length + 2, `${counts.views} views for ${chunks.length} chunks`)
})

t.test('many short events dripped in 1-8 byte slices cost linear copying', async (t) => {
  const parts = []
  for (let i = 0; i < 8192; i++) parts.push(`id: ${i}\nevent: tick\ndata: ${'y'.repeat(i % 40)}\r\n\r\n`)
  const input = Buffer.from(parts.join(''))
  const { events, counts } = run(drip(input, 1, 8, 11))
  t.equal(events.length, 8192)
  t.ok(counts.copied <= FACTOR * input.length, `copied ${counts.copied} bytes for ${input.length}`)
  t.ok(counts.allocated <= FACTOR * input.length, `allocated ${counts.allocated} bytes for ${input.length}`)
  // Short lines never outgrow one scratch buffer, and it is reused after each line.
  t.ok(counts.largeAllocations <= 1, `${counts.largeAllocations} allocation(s) of 1 KiB or more`)
})

// An event of many short data lines: the strings that join its lines are bounded by flattening them now
// and then (lib/parser/field-rules.js, joinTail()), which must copy each character a bounded number of
// times, not the whole data buffer each time. Strings are copied by String#slice (values cut out of an
// ASCII chunk's text, and unshared(), which flattens), counted with test/helpers/string-meter.cjs.
t.test('an event of 200,000 one-byte data lines costs linear copying, its data flattened in bounded steps', async (t) => {
  const lines = 200_000
  const ascii = Buffer.from(`${'data:x\n'.repeat(lines)}\n`)
  // A comment with an é every 4 KiB: no chunk is ASCII, so values are decoded one by one.
  const utf8 = Buffer.from(`${`: \u00e9\n${'data:x\n'.repeat(585)}`.repeat(Math.ceil(lines / 585))}\n`)
  const shapes = {
    'ASCII, 64 KiB chunks': chunksOf(ascii, 64 * 1024),
    'not ASCII, 64 KiB chunks': chunksOf(utf8, 64 * 1024),
    'dripped in 1-8 byte slices': drip(ascii, 1, 8, 5)
  }
  for (const [name, chunks] of Object.entries(shapes)) {
    const input = chunks.reduce((sum, chunk) => sum + chunk.length, 0)
    let result
    const strings = meterStrings(() => { result = run(chunks) })
    const { events, counts } = result
    const count = name.startsWith('not') ? 585 * Math.ceil(lines / 585) : lines
    t.same(events.map((data) => data === 'x\n'.repeat(count).slice(0, -1)), [true], `${name}: the event, whole`)
    t.ok(strings.sliced <= 2 * input, `sliced ${strings.sliced} characters for ${input} bytes`)
    t.ok(counts.copied <= FACTOR * input, `copied ${counts.copied} bytes for ${input}`)
  }
})

t.test('a line dripped over more than one scratch buffer keeps its byte order', async (t) => {
  // 10 000 distinct bytes across three 4 KiB scratch buffers, with large pieces in between.
  const value = Buffer.from(Array.from({ length: 10000 }, (_, i) => 'abcdefghijklmnopqrstuvwxyz'[i % 26]).join(''))
  const input = Buffer.concat([Buffer.from('data:'), value, Buffer.from('\n\n')])
  const chunks = []
  for (let at = 0, n = 0; at < input.length; n++) {
    const size = n % 50 === 49 ? 300 : 1 + (n % 7)
    chunks.push(input.subarray(at, at + size))
    at += size
  }
  const { events } = run(chunks)
  t.same(events, [value.toString()])
})

t.test('the meter is restored after use', async (t) => {
  t.equal(Uint8Array.prototype.set, originals.set)
  t.equal(Buffer.allocUnsafe, originals.allocUnsafe)
  t.equal(Uint8Array.prototype.subarray, originals.u8Subarray)
  t.equal(Buffer.prototype.subarray, originals.bufferSubarray)
})
