// The lines of the eventsource-parser drop-in (./string-parser.js): a known field matched on the code
// units of a string, where the line lies in the feed (no string is cut out for a name), and the
// ParseErrors it reports, with eventsource-parser's messages.

import { COLON, SPACE } from '../../constants.js'
import { ParseError } from './parse-error.js'

// Whether the line at `pos` of `text` starts with `data:`, letter by letter: the test of the most common
// line, which String#startsWith() with a name that is not a constant costs more than (a call, not inlined).
function isDataField (text, pos) {
  return text.charCodeAt(pos + 4) === COLON && text.charCodeAt(pos) === 0x64 && text.charCodeAt(pos + 1) === 0x61 &&
    text.charCodeAt(pos + 2) === 0x74 && text.charCodeAt(pos + 3) === 0x61
}

// A field's value: from `from`, where its name's colon is (a name alone has none: the value is empty), to
// `end`, one leading space removed. (Past `end`, slice() gives the empty value.)
function valueOf (text, from, end) {
  if (++from < end && text.charCodeAt(from) === SPACE) from++
  return text.slice(from, end)
}

// eventsource-parser's report of a field the standard ignores: the name up to the first colon (the
// whole line without one), the value after it, and the line.
function unknownFieldError (line) {
  const colon = line.indexOf(':')
  const field = colon === -1 ? line : line.slice(0, colon)
  const value = colon === -1 ? '' : valueOf(line, colon, line.length)
  const shown = field.length > 20 ? `${field.slice(0, 20)}…` : field
  return new ParseError(`Unknown field "${shown}"`, { type: 'unknown-field', field, value, line })
}

// A `retry` value that is not all digits: its value and its line.
function invalidRetryError (value, line) {
  return new ParseError(`Invalid \`retry\` value: "${value}"`, { type: 'invalid-retry', value, line })
}

// What is buffered went past maxBufferSize.
function overflowError (maxBufferSize) {
  return new ParseError(`Buffered data exceeded max buffer size of ${maxBufferSize} characters`, {
    type: 'max-buffer-size-exceeded'
  })
}

export { isDataField, valueOf, unknownFieldError, invalidRetryError, overflowError }
