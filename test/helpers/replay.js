'use strict'

// Replaying one input under many chunkings. Every chunking of the same bytes must give the same
// callbacks in the same order: the parser may not depend on where the transport cut the stream.

const { EventSourceParser } = require('../..')

/** Bytes of a fixture input: a string (UTF-8), an array of byte values, or a Uint8Array. */
function toBytes (input) {
  if (typeof input === 'string') return Buffer.from(input, 'utf8')
  return Buffer.from(input)
}

/**
 * Cut points of every chunking the fixtures are replayed at, as arrays of offsets strictly inside
 * (or, for the empty-chunk cases, at the ends of) [0, length]:
 * - every fixed chunk size 1..length;
 * - every 2-way split, including the ones that leave an empty chunk at either end;
 * - every 3-way split when length <= 16.
 * @param {number} length
 * @returns {Generator<{ name: string, cuts: number[] }>}
 */
function * cutSets (length) {
  if (length === 0) {
    yield { name: 'empty input', cuts: [] }
    return
  }
  for (let size = 1; size <= length; size++) {
    const cuts = []
    for (let at = size; at < length; at += size) cuts.push(at)
    yield { name: `chunk size ${size}`, cuts }
  }
  for (let i = 0; i <= length; i++) yield { name: `split at ${i}`, cuts: [i] }
  if (length <= 16) {
    for (let i = 1; i < length; i++) {
      for (let j = i + 1; j < length; j++) yield { name: `split at ${i}, ${j}`, cuts: [i, j] }
    }
  }
}

// Chunks come in three forms, rotated so every position sees each: a Buffer, a plain Uint8Array,
// and a Uint8Array view at an offset into a larger buffer whose other bytes are line ends, so a
// parser that reads outside the view (or ignores byteOffset when decoding) breaks a line.
function makeChunk (bytes, start, end, form) {
  const length = end - start
  if (form === 0) return Buffer.from(bytes.subarray(start, end))
  if (form === 1) {
    const plain = new Uint8Array(length)
    plain.set(bytes.subarray(start, end))
    return plain
  }
  const backing = new Uint8Array(length + 6).fill(0x0a)
  backing[1] = 0x0d
  backing[length + 4] = 0x0d
  backing.set(bytes.subarray(start, end), 3)
  return backing.subarray(3, 3 + length)
}

/**
 * Cuts `bytes` at the given offsets.
 * @param {Uint8Array} bytes
 * @param {number[]} cuts ascending offsets
 * @param {number} [rotate] shifts which chunk gets which form
 * @returns {Uint8Array[]}
 */
function split (bytes, cuts, rotate = 0) {
  const chunks = []
  let start = 0
  for (const at of [...cuts, bytes.length]) {
    chunks.push(makeChunk(bytes, start, at, (chunks.length + rotate) % 3))
    start = at
  }
  return chunks
}

/**
 * Every chunking of `bytes` listed by cutSets.
 * @param {Uint8Array} bytes
 * @returns {Generator<{ name: string, chunks: Uint8Array[] }>}
 */
function * chunkings (bytes) {
  let n = 0
  for (const { name, cuts } of cutSets(bytes.length)) {
    yield { name, chunks: split(bytes, cuts, n++) }
  }
}

/**
 * Parses `chunks` as one stream (end() at the end) and records every callback in order:
 * ['event', type, data, lastEventId], ['retry', ms], ['comment', text].
 * With `streams`, an array of chunk arrays, reset() separates them, as on reconnection.
 * @param {Uint8Array[]} chunks
 * @param {object} [options] extra parser options (lastEventId, maxEventSize)
 * @returns {Array<Array<string | number>>}
 */
function parseAll (chunks, options = {}) {
  return parseStreams([chunks], options)
}

function parseStreams (streams, options = {}) {
  const records = []
  const parser = new EventSourceParser({
    ...options,
    onEvent (type, data, lastEventId) { records.push(['event', type, data, lastEventId]) },
    onRetry (ms) { records.push(['retry', ms]) },
    onComment (text) { records.push(['comment', text]) }
  })
  streams.forEach((chunks, i) => {
    if (i > 0) parser.reset()
    for (const chunk of chunks) parser.write(chunk)
  })
  parser.end()
  return records
}

/** Printable form of bytes for failure messages: hex plus a JSON string of the latin1 view. */
function describeBytes (bytes) {
  const buffer = Buffer.from(bytes)
  return `hex ${buffer.toString('hex')} / ${JSON.stringify(buffer.toString('latin1'))}`
}

module.exports = { toBytes, cutSets, split, chunkings, parseAll, parseStreams, describeBytes }
