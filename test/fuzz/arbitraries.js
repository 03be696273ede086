'use strict'

// fast-check arbitraries for event streams: sequences of lines built from the pieces the grammar
// cares about (field names, colons, spaces, every line end, BOMs, NULs, digits, multi-byte and
// invalid UTF-8), cut into chunks anywhere. Shared by test/parser-fuzz.test.js and test/fuzz/run.js.

const fc = require('fast-check')

const bytes = (text) => [...Buffer.from(text)]

// Pieces of a line. Strings are taken as UTF-8; arrays are raw bytes (some of them invalid UTF-8).
const piece = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('data', 'event', 'id', 'retry', ':', ': ', ' ', 'x', 'message', '7', '42') },
  { weight: 2, arbitrary: fc.constantFrom('Data', 'dat', 'datax', 'ids', 'retryx', 'é', '€', '😀', '\u0000', '\ufeff', '\ufffd') },
  { weight: 2, arbitrary: fc.constantFrom('\n', '\r', '\r\n', '\n\n', '\r\r', '\r\n\r\n') },
  { weight: 1, arbitrary: fc.constantFrom([0x80], [0xff], [0xc3], [0xe2, 0x82], [0xf0, 0x9f, 0x98], [0xef, 0xbb], [0xed, 0xa0, 0x80]) },
  { weight: 1, arbitrary: fc.stringMatching(/^[0-9]{1,12}$/) },
  { weight: 1, arbitrary: fc.string({ maxLength: 6 }) }
)

// A whole stream: an optional BOM (sometimes two), then pieces.
const stream = fc.tuple(fc.constantFrom([], [], [], [0xef, 0xbb, 0xbf], [0xef, 0xbb, 0xbf, 0xef, 0xbb, 0xbf]), fc.array(piece, { maxLength: 40 }))
  .map(([bom, pieces]) => Uint8Array.from([...bom, ...pieces.flatMap((p) => typeof p === 'string' ? bytes(p) : p)]))

// Cut points, as fractions of the stream length, so they shrink along with the stream.
const cuts = fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 12 })

function cutAt (input, fractions) {
  const points = [...new Set(fractions.map((f) => Math.floor(f * input.length)))].sort((a, b) => a - b)
  const chunks = []
  let start = 0
  for (const point of points) {
    chunks.push(input.subarray(start, point))
    start = point
  }
  chunks.push(input.subarray(start))
  return chunks
}

module.exports = { stream, cuts, cutAt }
