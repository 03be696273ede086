'use strict'

// fast-check arbitraries for event streams, for the parser-vs-reference-model property
// (test/fuzz/property.js). Two shapes of stream, so that both the grammar's structure and what lies
// outside it are covered:
// - lines: field lines of every kind (data, event, id, retry with digits of every length, comments,
//   unknown and near-miss field names, blank lines, raw noise), values built from the bytes the grammar
//   cares about (colons, spaces, NUL, BOMs, multi-byte and invalid or truncated UTF-8) and now and then
//   thousands of bytes long (outgrowing the parser's 4 KiB scratch buffer when dripped), one line-end
//   style per stream or a mix, and an ending that is clean, mid-event, an unterminated line or a lone CR;
// - pieces: any sequence of those pieces and line ends, structure or not.
// Each starts with zero, one or two BOMs. A case is one stream, or several with a reset() between
// them (a reconnection), sometimes with an initial lastEventId; each stream is cut into chunks by a
// plan: whole, every byte, runs of small or large sizes, steps that leave empty chunks, or fractions
// of its length. Everything shrinks: a failure is reported as a minimal case.

const fc = require('fast-check')
const { sizeCuts } = require('../helpers/chunks')

// Every piece is a Buffer, and pieces are joined with Buffer.concat: generating is most of what a case
// costs, and spreading arrays of numbers was most of that.
const bytesOf = (piece) => Buffer.from(piece)
const constants = (...pieces) => fc.constantFrom(...pieces.map(bytesOf))
const EMPTY = Buffer.alloc(0)
const COLON = bytesOf(':')
const CR = bytesOf('\r')
const RETRY = bytesOf('retry')

// Pieces of values: ASCII, the bytes the grammar cares about, valid multi-byte characters, and
// invalid or truncated sequences (raw byte arrays).
const atom = constants(
  'a', 'b', 'z', '0', '7', ' ', '  ', ':', ': ', '\t', 'data', 'id', '\u0000', 'é', '€', '😀', '\ufeff', '\ufffd',
  [0x80], [0xbf], [0xff], [0xfe], [0xc3], [0xc0, 0x80], [0xe2, 0x82], [0xf0, 0x9f, 0x98], [0xed, 0xa0, 0x80],
  [0xef, 0xbb], [0xef, 0xbb, 0xbf], [0xf4, 0x90, 0x80, 0x80]
)

// Now and then a long run of one byte: pieces of 128 bytes or more are kept by reference, and a line
// dripped byte by byte outgrows the parser's 4 KiB scratch buffer.
const longRun = fc.tuple(fc.integer({ min: 100, max: 5100 }), fc.constantFrom(0x61, 0x3a, 0x20))
  .map(([length, byte]) => Buffer.alloc(length, byte))

const value = (max) => fc.tuple(
  fc.oneof({ weight: 49, arbitrary: fc.constant(EMPTY) }, { weight: 1, arbitrary: longRun }),
  fc.array(atom, { maxLength: max })
).map(([run, atoms]) => Buffer.concat([run, ...atoms]))

// Up to 15 digits stay exact in a double; 400 digits overflow to Infinity either way.
const digits = fc.oneof(
  { weight: 19, arbitrary: fc.tuple(fc.constantFrom('', '', '', '', '0', '00'), fc.stringMatching(/^[0-9]{1,15}$/)).map(([zeros, d]) => zeros + d) },
  { weight: 1, arbitrary: fc.constant('9' + '0123456789'.repeat(40)) }
)
const separator = constants(':', ':', ': ', ':  ', '')
const unknownName = constants('Data', 'DATA', 'datax', 'dat', 'd', 'ids', 'i', 'eventsX', 'even', 'retr', 'retryx',
  'foo', 'x', 'dataxx', '\ufeffdata', ' data')
const field = (name, max) => fc.tuple(name, separator, value(max)).map((parts) => Buffer.concat(parts))

const lines = {
  data: field(constants('data'), 6),
  event: field(constants('event'), 3),
  id: field(constants('id'), 3),
  retry: fc.tuple(separator, fc.oneof(
    { weight: 7, arbitrary: digits.map(bytesOf) },
    { weight: 3, arbitrary: fc.oneof(constants('', ' 5', '5 ', '-1', '1.5', '1e3'), value(2)) }
  )).map(([sep, v]) => Buffer.concat([RETRY, sep, v])),
  comment: value(6).map((v) => Buffer.concat([COLON, v])),
  unknown: field(unknownName, 3),
  blank: fc.constant(EMPTY),
  // Raw bytes, line ends included: whatever structure they make, both sides must agree.
  noise: fc.array(fc.constantFrom(0x0a, 0x0d, 0x3a, 0x20, 0x00, 0x61, 0xef, 0xbb, 0xbf, 0x80, 0xc3), { maxLength: 7 }).map(bytesOf)
}
const line = fc.oneof(
  { weight: 30, arbitrary: lines.data },
  { weight: 25, arbitrary: lines.blank },
  { weight: 8, arbitrary: lines.event },
  { weight: 8, arbitrary: lines.id },
  { weight: 6, arbitrary: lines.retry },
  { weight: 8, arbitrary: lines.comment },
  { weight: 8, arbitrary: lines.unknown },
  { weight: 3, arbitrary: lines.noise }
)
const lineEnd = constants('\n', '\r', '\r\n')
const BOMS = constants([], [], [0xef, 0xbb, 0xbf], [0xef, 0xbb, 0xbf], [0xef, 0xbb, 0xbf, 0xef, 0xbb, 0xbf])

// Mostly one line-end style per stream, as servers send, sometimes a mix. The end: clean, mid-event,
// an unterminated line, or a lone CR.
const linesStream = fc.tuple(
  BOMS,
  fc.array(fc.tuple(line, lineEnd), { maxLength: 23 }),
  fc.oneof({ weight: 7, arbitrary: fc.constant(null) }, { weight: 3, arbitrary: lineEnd }),
  fc.oneof(fc.constant(EMPTY), lines.data, lines.data.map((d) => Buffer.concat([d, CR])), constants('\n'))
).map(([bom, body, style, ending]) => Buffer.concat([bom, ...body.flatMap(([l, end]) => [l, style ?? end]), ending]))

// Pieces of a line, structure or not. Strings are taken as UTF-8; arrays are raw bytes.
const piece = fc.oneof(
  { weight: 6, arbitrary: constants('data', 'event', 'id', 'retry', ':', ': ', ' ', 'x', 'message', '7', '42') },
  { weight: 2, arbitrary: constants('Data', 'dat', 'datax', 'ids', 'retryx', 'é', '€', '😀', '\u0000', '\ufeff', '\ufffd') },
  { weight: 2, arbitrary: constants('\n', '\r', '\r\n', '\n\n', '\r\r', '\r\n\r\n') },
  { weight: 1, arbitrary: constants([0x80], [0xff], [0xc3], [0xe2, 0x82], [0xf0, 0x9f, 0x98], [0xef, 0xbb], [0xed, 0xa0, 0x80]) },
  { weight: 1, arbitrary: fc.stringMatching(/^[0-9]{1,12}$/).map(bytesOf) },
  { weight: 1, arbitrary: fc.string({ maxLength: 6 }).map(bytesOf) }
)
const piecesStream = fc.tuple(BOMS, fc.array(piece, { maxLength: 40 })).map(([bom, pieces]) => Buffer.concat([bom, ...pieces]))

const stream = fc.oneof({ weight: 3, arbitrary: linesStream }, { weight: 2, arbitrary: piecesStream })

// How a stream is cut.
const cutPlan = fc.oneof(
  fc.constant({ kind: 'whole' }),
  fc.constant({ kind: 'every byte' }),
  fc.record({ kind: fc.constant('sizes'), sizes: fc.array(fc.integer({ min: 1, max: 8 }), { minLength: 1, maxLength: 16 }) }),
  fc.record({ kind: fc.constant('sizes'), sizes: fc.array(fc.integer({ min: 1, max: 300 }), { minLength: 1, maxLength: 8 }) }),
  // A step of 0 repeats a cut: an empty chunk.
  fc.record({ kind: fc.constant('steps'), steps: fc.array(fc.integer({ min: 0, max: 19 }), { minLength: 1, maxLength: 16 }) }),
  // Fractions of the length, so that the cuts shrink along with the stream.
  fc.record({ kind: fc.constant('fractions'), fractions: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 12 }) })
)

/** The cut points of `plan` for a stream of `length` bytes (ascending; repeats are empty chunks). */
function cutsOf (plan, length) {
  if (plan.kind === 'whole') return []
  if (plan.kind === 'every byte') return sizeCuts(length, 1)
  if (plan.kind === 'fractions') {
    return [...new Set(plan.fractions.map((f) => Math.floor(f * length)))].sort((a, b) => a - b)
  }
  // The sizes (or steps) are used in turn until the stream is cut up; steps that are all 0 once.
  const sizes = plan.kind === 'sizes'
  const steps = sizes ? plan.sizes : plan.steps
  const last = sizes ? length - 1 : length
  const stalls = steps.every((step) => step === 0)
  const cuts = []
  let i = sizes ? 1 : 0
  for (let at = sizes ? steps[0] : 0; at <= last; at += steps[i++ % steps.length]) {
    cuts.push(at)
    if (stalls && cuts.length === steps.length) break
  }
  return cuts
}

// A case: one stream, or several with reset() between them, each with its cut plan; sometimes an
// initial last event ID.
const testCase = fc.record({
  streams: fc.oneof(
    { weight: 4, arbitrary: fc.array(fc.tuple(stream, cutPlan), { minLength: 1, maxLength: 1 }) },
    { weight: 1, arbitrary: fc.array(fc.tuple(stream, cutPlan), { minLength: 2, maxLength: 4 }) }
  ),
  options: fc.oneof({ weight: 9, arbitrary: fc.constant({}) }, { weight: 1, arbitrary: fc.constantFrom('', 'x', 'é').map((id) => ({ lastEventId: id })) })
})

module.exports = { stream, cutPlan, cutsOf, testCase }
