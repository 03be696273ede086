'use strict'

// fast-check arbitraries for event streams, for the parser-vs-reference-model property
// (test/fuzz/property.cjs). Two shapes of stream, so that both the grammar's structure and what lies
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
// The second half makes the same kinds of streams as strings, for the eventsource-parser drop-in.

const fc = require('fast-check')
const { sizeCuts } = require('../helpers/chunks.cjs')

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
// How often each kind of line comes: mostly data and blank lines, as in real streams.
const LINE_WEIGHTS = { data: 30, blank: 25, event: 8, id: 8, retry: 6, comment: 8, unknown: 8, noise: 3 }
const weightedLine = (kinds) => fc.oneof(...Object.entries(LINE_WEIGHTS).map(([kind, weight]) => ({ weight, arbitrary: kinds[kind] })))
const line = weightedLine(lines)
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

// ---- Strings, for the eventsource-parser drop-in against eventsource-parser ----
// The same two shapes of stream, as strings: what a TextDecoderStream hands over. Values hold the
// characters the drop-in treats apart (surrogate pairs, which a cut may split; U+FEFF and the BOM's
// bytes read as Latin-1; NUL; colons and spaces; characters that look like line ends and are not), and
// now and then a long run; unknown and near-miss field names (which eventsource-parser reports, or drops
// unreported when a cut leaves them incomplete); retry values of every length; lone surrogates, which
// both pass through as they are.

const text = (...pieces) => fc.constantFrom(...pieces)
const textAtom = text(
  'a', 'b', 'z', '0', '7', ' ', '  ', ':', ': ', '\t', 'data', 'id', '\u0000', 'é', '€', 'ÿ', '中', '😀', '🚀🌍',
  '\ufeff', '\ufffd', '\xEF', '\xBB\xBF', '\xEF\xBB\xBF', '\u0085', '\u2028', '\u000b', '\u000c', '\ud800', '\udfff'
)
const textRun = fc.tuple(fc.integer({ min: 1, max: 400 }), text('a', ':', ' ', 'é', '😀'))
  .map(([length, piece]) => piece.repeat(length))
const textValue = (max) => fc.tuple(
  fc.oneof({ weight: 19, arbitrary: fc.constant('') }, { weight: 1, arbitrary: textRun }),
  fc.array(textAtom, { maxLength: max })
).map(([run, atoms]) => run + atoms.join(''))
const textSeparator = text(':', ':', ': ', ':  ', '')
const textUnknownName = text('Data', 'DATA', 'datax', 'dat', 'da', 'd', 'data ', 'ids', 'i', 'id ', 'eventsX', 'even',
  'e', 'event ', 'retr', 'retryx', 'r', 'reTry', 'foo', 'x', 'dataxx', '\ufeffdata', ' data', 'd😀', 'é',
  'an-unknown-field-name-longer-than-twenty')
const textField = (name, max) => fc.tuple(name, textSeparator, textValue(max)).map((parts) => parts.join(''))
const textDigits = fc.oneof(
  { weight: 12, arbitrary: fc.tuple(text('', '', '', '0', '00'), fc.stringMatching(/^[0-9]{1,15}$/)).map(([zeros, d]) => zeros + d) },
  // Past 15 digits a double is no longer exact: both must round the same way.
  { weight: 2, arbitrary: fc.stringMatching(/^[1-9][0-9]{15,30}$/) },
  { weight: 1, arbitrary: fc.constant('9' + '0123456789'.repeat(40)) }
)
const textLines = {
  data: textField(text('data'), 6),
  event: textField(text('event'), 3),
  id: textField(text('id'), 3),
  retry: fc.tuple(textSeparator, fc.oneof(
    { weight: 6, arbitrary: textDigits },
    { weight: 3, arbitrary: fc.oneof(text('', ' 5', '5 ', '-1', '1.5', '1e3', '٣', '0x10'), textValue(2)) }
  )).map(([separator, value]) => 'retry' + separator + value),
  comment: textValue(6).map((value) => ':' + value),
  unknown: textField(textUnknownName, 3),
  blank: fc.constant(''),
  noise: fc.array(text('\n', '\r', ':', ' ', '\u0000', 'a', 'd', '\xEF', '\ufeff', '😀', 'é'), { maxLength: 7 }).map((a) => a.join(''))
}
const textLine = weightedLine(textLines)
const textLineEnd = text('\n', '\r', '\r\n')
// A BOM, decoded or as its bytes read as Latin-1 (eventsource-parser drops either), sometimes twice,
// sometimes only its first bytes.
const textBoms = text('', '', '', '\ufeff', '\ufeff', '\xEF\xBB\xBF', '\ufeff\ufeff', '\xEF\xBB\xBF\ufeff', '\ufeff\xEF\xBB\xBF', '\xEF', '\xEF\xBB')

const textLinesStream = fc.tuple(
  textBoms,
  fc.array(fc.tuple(textLine, textLineEnd), { maxLength: 23 }),
  fc.oneof({ weight: 7, arbitrary: fc.constant(null) }, { weight: 3, arbitrary: textLineEnd }),
  fc.oneof(fc.constant(''), textLines.data, textLines.data.map((d) => d + '\r'), textLines.unknown, text('\n', 'data', 'retry: 5'))
).map(([bom, body, style, ending]) => bom + body.map(([l, end]) => l + (style ?? end)).join('') + ending)

const textPiece = fc.oneof(
  { weight: 6, arbitrary: text('data', 'event', 'id', 'retry', ':', ': ', ' ', 'x', 'message', '7', '42') },
  { weight: 2, arbitrary: text('Data', 'dat', 'datax', 'ids', 'retryx', 'é', '€', '😀', '\u0000', '\ufeff', '\ufffd', '\xEF\xBB\xBF') },
  { weight: 3, arbitrary: text('\n', '\r', '\r\n', '\n\n', '\r\r', '\r\n\r\n') },
  { weight: 1, arbitrary: fc.stringMatching(/^[0-9]{1,20}$/) },
  // Any well-formed string: fast-check's strings of full code points.
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 4 }) }
)
const textPiecesStream = fc.tuple(textBoms, fc.array(textPiece, { maxLength: 40 })).map(([bom, pieces]) => bom + pieces.join(''))

const textStream = fc.oneof({ weight: 3, arbitrary: textLinesStream }, { weight: 2, arbitrary: textPiecesStream })

// How the caller sets the parser up: which callbacks (without onComment, incomplete comments are
// dropped; without onError nothing is reported), a maxBufferSize now and then (mostly small, so that it
// trips), reset({ consume }) between streams and at the end, and now and then a reset() from inside a
// callback.
const CALLBACKS = ['onId', 'onRetry', 'onComment', 'onError']
const dropInOptions = fc.record({
  callbacks: fc.oneof({ weight: 3, arbitrary: fc.constant(CALLBACKS) }, { weight: 1, arbitrary: fc.subarray(CALLBACKS) }),
  maxBufferSize: fc.oneof(
    { weight: 7, arbitrary: fc.constant(undefined) },
    { weight: 2, arbitrary: fc.integer({ min: 0, max: 60 }) },
    { weight: 1, arbitrary: fc.integer({ min: 60, max: 3000 }) }
  ),
  consume: fc.boolean(),
  end: fc.boolean(),
  resetAt: fc.oneof({ weight: 9, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 12 }) })
})

// A case: one string stream, or several with reset() between them, each with its cut plan (on UTF-16
// units: a cut may split a surrogate pair or a CRLF), and the options.
const dropInCase = fc.record({
  streams: fc.oneof(
    { weight: 4, arbitrary: fc.array(fc.tuple(textStream, cutPlan), { minLength: 1, maxLength: 1 }) },
    { weight: 1, arbitrary: fc.array(fc.tuple(textStream, cutPlan), { minLength: 2, maxLength: 4 }) }
  ),
  options: dropInOptions
})

module.exports = { stream, cutPlan, cutsOf, testCase, textStream, dropInCase }
