// Workloads for benchmarks/parser.bench.mjs, shared with test/benchmarks/bench-fixtures.test.cjs.
//
// Each builder returns the stream as a list of Buffer chunks (Buffer is a Uint8Array; Node sockets and
// undici's dispatcher hand out Buffers) together with the events a conforming parser must produce,
// worked out from the generator's own model rather than by running any parser. The benchmark feeds
// the same chunk list to every implementation and checks all of them against that model before
// timing; the test checks our parser against it and against pinned digests.

import { createHash } from 'node:crypto'

const BOM = Buffer.from([0xef, 0xbb, 0xbf])

// mulberry32: a small seeded PRNG, so slice sizes and payload bytes are the same on every run.
export function prng (seed) {
  let a = seed >>> 0
  return function next () {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

function split (buf, size) {
  const out = []
  for (let i = 0; i < buf.length; i += size) out.push(buf.subarray(i, i + size))
  return out
}

// Slices of `min`..`max` bytes, sizes drawn from a seeded PRNG.
function splitRandom (buf, min, max, seed) {
  const next = prng(seed)
  const out = []
  for (let i = 0; i < buf.length;) {
    const size = min + Math.floor(next() * (max - min + 1))
    out.push(buf.subarray(i, i + size))
    i += size
  }
  return out
}

// Printable ASCII from a seeded PRNG (no CR, LF or anything the grammar cares about inside a value).
function asciiPayload (length, seed) {
  const next = prng(seed)
  const alphabet = Buffer.from('abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 {}[]",.:-_')
  const out = Buffer.allocUnsafe(length)
  for (let i = 0; i < length; i++) out[i] = alphabet[Math.floor(next() * alphabet.length)]
  return out.toString('latin1')
}

// The undici workload (250 events: id, event, retry, two 64-byte data lines), with a choice of line end.
const EVENTS_250 = 250
function events250 (eol = '\n') {
  let text = ''
  const events = []
  const retries = []
  for (let i = 0; i < EVENTS_250; i++) {
    const type = `message-${i % 4}`
    const retry = 1000 + (i % 5)
    const a = `${i}:`.padEnd(64, 'x')
    const b = `${i}:`.padEnd(64, 'y')
    text += `id: ${i}${eol}event: ${type}${eol}retry: ${retry}${eol}data: ${a}${eol}data: ${b}${eol}${eol}`
    events.push({ type, data: `${a}\n${b}`, lastEventId: String(i) })
    retries.push(retry)
  }
  return { bytes: Buffer.from(text), events, retries }
}

// eventsource-parser's huge-line-drip: one 256 KiB data line in seeded 1-8 byte slices, the line end
// only in the last bytes.
function hugeLineDrip () {
  const value = asciiPayload(256 * 1024, 0x5eed)
  const bytes = Buffer.from(`data: ${value}\n\n`)
  return { bytes, chunks: splitRandom(bytes, 1, 8, 0xd41f), events: [{ type: 'message', data: value, lastEventId: '' }], retries: [] }
}

// Many tiny events in one chunk.
function tinyEvents () {
  const n = 10000
  const bytes = Buffer.from('data: x\n\n'.repeat(n))
  return { bytes, chunks: [bytes], events: Array.from({ length: n }, () => ({ type: 'message', data: 'x', lastEventId: '' })), retries: [] }
}

// An LLM token stream: one small JSON event per chunk, as chat-completion servers send them.
function llmTokens () {
  const n = 5000
  const line = 'data: {"choices":[{"delta":{"content":"tok"}}]}\n\n'
  const one = Buffer.from(line)
  const bytes = Buffer.from(line.repeat(n))
  // Separate chunk objects, as a socket would deliver them.
  const chunks = Array.from({ length: n }, (_, i) => bytes.subarray(i * one.length, (i + 1) * one.length))
  const data = line.slice(6, -2)
  return { bytes, chunks, events: Array.from({ length: n }, () => ({ type: 'message', data, lastEventId: '' })), retries: [] }
}

// One 1 MiB event (a single data line) in 64 KiB chunks.
function bigEvent () {
  const value = asciiPayload(1024 * 1024, 0xb16)
  const bytes = Buffer.from(`id: big\nevent: blob\ndata: ${value}\n\n`)
  return { bytes, chunks: split(bytes, 64 * 1024), events: [{ type: 'blob', data: value, lastEventId: 'big' }], retries: [] }
}

// Multi-byte UTF-8 (2-, 3- and 4-byte characters) in data, event and id values, split every 7 bytes
// so that many characters straddle a chunk boundary.
function utf8Text () {
  const words = ['héllo', 'wörld', 'naïve', 'ça', 'Ελληνικά', 'русский', '中文字符', '日本語テキスト', '한국어', 'emoji😀', '🚀🌍✨', 'ℝ∑∞≠', 'Ω']
  const next = prng(0x7e47)
  let text = ''
  const events = []
  for (let i = 0; i < 200; i++) {
    const parts = []
    for (let w = 0; w < 12; w++) parts.push(words[Math.floor(next() * words.length)])
    const line1 = parts.slice(0, 6).join(' ')
    const line2 = parts.slice(6).join(' ')
    const type = i % 3 === 0 ? 'ünïcødé' : 'message'
    const id = `ид-${i}-🔑`
    text += `id: ${id}\n`
    if (type !== 'message') text += `event: ${type}\n`
    text += `data: ${line1}\ndata: ${line2}\n\n`
    events.push({ type, data: `${line1}\n${line2}`, lastEventId: id })
  }
  const bytes = Buffer.from(text)
  return { bytes, chunks: split(bytes, 7), events, retries: [] }
}

/**
 * Builds every fixture. Each: { name, bytes (total stream bytes), chunks (Buffer[]), events
 * ({ type, data, lastEventId }[], expected in order), retries (number[], expected in order) }.
 * @returns {Array<{ name: string, bytes: number, chunks: Buffer[], events: object[], retries: number[] }>}
 */
export function buildFixtures () {
  const out = []
  const add = (name, model, chunks) => {
    const total = chunks.reduce((n, c) => n + c.length, 0)
    out.push({ name, bytes: total, chunks, events: model.events, retries: model.retries })
  }

  const lf = events250('\n')
  const bom = Buffer.concat([BOM, lf.bytes])
  add('250 events, single chunk', lf, [lf.bytes])
  add('250 events, 256-byte chunks', lf, split(lf.bytes, 256))
  add('250 events, 64-byte chunks', lf, split(lf.bytes, 64))
  add('250 events, 8-byte chunks', lf, split(lf.bytes, 8))
  add('250 events, 1-byte chunks', lf, split(lf.bytes, 1))
  add('250 events, BOM + 8-byte chunks', lf, split(bom, 8))
  add('250 events, BOM + 1-byte chunks', lf, split(bom, 1))

  const drip = hugeLineDrip()
  add('256 KiB line, 1-8-byte slices', drip, drip.chunks)
  const tiny = tinyEvents()
  add('10,000 tiny events, single chunk', tiny, tiny.chunks)
  const llm = llmTokens()
  add('5,000 LLM-token events, 1 per chunk', llm, llm.chunks)

  const crlf = events250('\r\n')
  add('250 events CRLF, 64-byte chunks', crlf, split(crlf.bytes, 64))
  add('250 events CRLF, 1-byte chunks', crlf, split(crlf.bytes, 1))
  const cr = events250('\r')
  add('250 events CR, 64-byte chunks', cr, split(cr.bytes, 64))
  add('250 events CR, 1-byte chunks', cr, split(cr.bytes, 1))

  const big = bigEvent()
  add('1 MiB event, 64 KiB chunks', big, big.chunks)
  const utf8 = utf8Text()
  add('UTF-8 text, 7-byte chunks', utf8, utf8.chunks)
  return out
}

/**
 * A content digest of a parse: the events in order (type, data, lastEventId) and the retry values in
 * order. Two parses with the same digest produced the same observable output.
 * @param {{ type: string, data: string, lastEventId: string }[]} events
 * @param {number[]} retries
 * @returns {string} sha256, hex
 */
export function digest (events, retries) {
  const hash = createHash('sha256')
  for (const e of events) hash.update(JSON.stringify([e.type, e.data, e.lastEventId])).update('\n')
  hash.update(`retries:${retries.join(',')}`)
  return hash.digest('hex')
}
