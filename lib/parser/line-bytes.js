// What the byte parser (./parser.js) reads of a line's or a chunk's bytes before it interprets them:
// whether a line is a `data:` field, whether a chunk holds a line end, and from what length a line is
// long, for the two paths that long lines take.

import { indexOf } from '#bytes'
import { LF, CR, COLON } from '../constants.js'

// Whether the line [start, end) of `bytes` is a `data` field with a colon (`data:`).
function isDataField (bytes, start, end) {
  return end - start > 4 && bytes[start] === 0x64 && bytes[start + 4] === COLON && bytes[start + 1] === 0x61 &&
    bytes[start + 2] === 0x74 && bytes[start + 3] === 0x61
}

// Whether a whole chunk holds an LF or a CR.
function hasLineEnd (chunk) {
  return indexOf.call(chunk, LF, 0) !== -1 || indexOf.call(chunk, CR, 0) !== -1
}

// After this many bytes of a line, Buffer#indexOf finds its end: a native scan wins on long lines,
// while its call costs more than the plain loop on short ones (measured: STYLE.md E-bench C).
const LONG_LINE = 128
// A `data:` line this long that spans chunks has its value decoded piece by piece, not joined
// (EventStreamParser's #joinedLine()).
const LONG_DATA_LINE = 16 * 1024

export { isDataField, hasLineEnd, LONG_LINE, LONG_DATA_LINE }
