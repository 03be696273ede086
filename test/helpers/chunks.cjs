'use strict'

// Cutting one input into chunks, every way the tests replay it: every chunking of a small input,
// random chunkings from a seeded PRNG or from fast-check, fixed sizes. Every chunking of the same bytes
// must give the same callbacks in the same order: the parser may not depend on where the transport
// cut the stream.

/** Bytes of a fixture input: a string (UTF-8), an array of byte values, or a Uint8Array. */
function toBytes (input) {
  if (typeof input === 'string') return Buffer.from(input, 'utf8')
  return Buffer.from(input)
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
 * Cuts `bytes` at the given offsets (ascending; an offset may repeat, or be 0 or the length: an
 * empty chunk).
 * @param {Uint8Array} bytes
 * @param {number[]} cuts
 * @param {{ forms?: boolean, rotate?: number }} [options] forms (the default): copies in the three
 *   forms above, `rotate` shifting which chunk gets which; false: views of `bytes` (subarray), no copy
 * @returns {Uint8Array[]}
 */
function split (bytes, cuts, { forms = true, rotate = 0 } = {}) {
  const chunks = []
  let start = 0
  for (const at of [...cuts, bytes.length]) {
    chunks.push(forms ? makeChunk(bytes, start, at, (chunks.length + rotate) % 3) : bytes.subarray(start, at))
    start = at
  }
  return chunks
}

/**
 * Cut points of every chunking the vectors are replayed at:
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
  for (let size = 1; size <= length; size++) yield { name: `chunk size ${size}`, cuts: sizeCuts(length, size) }
  for (let i = 0; i <= length; i++) yield { name: `split at ${i}`, cuts: [i] }
  if (length <= 16) {
    for (let i = 1; i < length; i++) {
      for (let j = i + 1; j < length; j++) yield { name: `split at ${i}, ${j}`, cuts: [i, j] }
    }
  }
}

/**
 * Every chunking of `bytes` listed by cutSets, in rotating forms.
 * @param {Uint8Array} bytes
 * @returns {Generator<{ name: string, chunks: Uint8Array[] }>}
 */
function * everySplit (bytes) {
  let n = 0
  for (const { name, cuts } of cutSets(bytes.length)) yield { name, chunks: split(bytes, cuts, { rotate: n++ }) }
}

/**
 * Cuts a string at the given offsets (UTF-16 units, ascending, repeats for empty chunks), as a
 * TextDecoderStream or a careless producer may: a cut can split a surrogate pair or a CRLF.
 * @param {string} text
 * @param {number[]} cuts
 * @returns {string[]}
 */
function splitString (text, cuts) {
  const chunks = []
  let start = 0
  for (const at of [...cuts, text.length]) {
    chunks.push(text.slice(start, at))
    start = at
  }
  return chunks
}

/** Cut points every `size` bytes. */
function sizeCuts (length, size) {
  const cuts = []
  for (let at = size; at < length; at += size) cuts.push(at)
  return cuts
}

/**
 * Cut points for chunks of `min` to `max` bytes, sizes drawn from `random` (a test/helpers/prng.cjs
 * generator), so the same seed cuts the same way.
 */
function randomCuts (length, random, { min = 1, max }) {
  const cuts = []
  for (let at = min + random.int(max - min + 1); at < length; at += min + random.int(max - min + 1)) cuts.push(at)
  return cuts
}

/** Chunks of `min` to `max` bytes (see randomCuts), views of `bytes` unless `forms`. */
function randomSplit (bytes, random, { min = 1, max, forms = false }) {
  return split(bytes, randomCuts(bytes.length, random, { min, max }), { forms })
}

/** Printable form of bytes for failure messages: hex plus a JSON string of the latin1 view. */
function describeBytes (bytes) {
  const buffer = Buffer.from(bytes)
  return `hex ${buffer.toString('hex')} / ${JSON.stringify(buffer.toString('latin1'))}`
}

/** Chunk sizes for failure messages, run-length encoded: "1x140" rather than 140 ones. */
function describeSizes (chunks) {
  const runs = []
  for (const { length } of chunks) {
    const last = runs.at(-1)
    if (last && last[0] === length) last[1]++
    else runs.push([length, 1])
  }
  return runs.map(([size, n]) => n === 1 ? String(size) : `${size}x${n}`).join(' + ')
}

/**
 * What a parser that joined its incomplete line with each new piece (pending + piece) would copy, in
 * units of the pieces' length (bytes or characters): the bound a linear parser must stay far below.
 * @param {ArrayLike<unknown>[]} pieces chunks or feeds, in order
 */
function quadraticCopies (pieces) {
  let copied = 0
  let pending = 0
  for (const piece of pieces) {
    copied += pending + piece.length
    pending += piece.length
  }
  return copied
}

/**
 * A WHATWG ReadableStream that yields each of `chunks` (strings as UTF-8) as one read, then is done: chunk
 * boundaries the test chooses, for a parser stream or EventSource.fromReadableStream().
 * @param {Array<string | Uint8Array>} chunks
 * @returns {ReadableStream<Uint8Array>}
 */
function readableStreamOf (chunks) {
  return new ReadableStream({
    start (controller) {
      for (const chunk of chunks) controller.enqueue(toBytes(chunk))
      controller.close()
    }
  })
}

module.exports = {
  toBytes,
  readableStreamOf,
  split,
  splitString,
  cutSets,
  everySplit,
  sizeCuts,
  randomCuts,
  randomSplit,
  describeBytes,
  describeSizes,
  quadraticCopies
}
