// The values of an event-stream line, for ./parser.js: which chunks are decoded whole, a value decoded
// from its bytes, and what it costs under maxEventSize. Nothing here keeps state.

import { utf8Slice, asciiSlice, isAscii } from '#bytes'

// An ASCII value at least this long is copied by asciiSlice (see decode()).
const LONG_VALUE = 1024

// The value in bytes [start, end), decoded as UTF-8 with U+FFFD for invalid sequences. `text` is the
// chunk already decoded when it is all ASCII: then a value is a slice of it, far cheaper than a call into
// the decoder per value. A long ASCII value is copied by asciiSlice (on Node, latin1Slice), which skips
// UTF-8 validation.
function decode (bytes, start, end, text) {
  if (text !== null) return text.slice(start, end)
  if (end - start >= LONG_VALUE && isAscii(bytes.subarray(start, end))) return asciiSlice.call(bytes, start, end)
  return utf8Slice.call(bytes, start, end)
}

// The text of a short chunk when it is ASCII, else null. It is decoded as UTF-8 first, without the
// isAscii() call a long chunk gets: as many UTF-16 units as bytes means no multi-byte character, and
// then only a byte that is not UTF-8 can have become a non-ASCII unit: U+FFFD, which indexOf() rules
// out at once in a one-byte string. A chunk that was not ASCII cost one short decode for nothing.
function shortText (chunk, length) {
  const text = utf8Slice.call(chunk, 0, length)
  return text.length === length && text.indexOf('\ufffd') === -1 ? text : null
}

// An ASCII chunk at least this long is decoded once, as a whole. Values then hold a slice of that
// string: an event kept by the consumer keeps at most its chunk's text alive (so does
// eventsource-parser, which decodes every chunk whole).
const TEXT_CHUNK = 128
// A shorter chunk is decoded whole too, when it is ASCII: one event per chunk, as LLM token streams
// send them, then costs one call into the decoder, which its value needed anyway, and String#indexOf
// finds its line ends (see shortText()). So does the end of a line cut in two, and the events after it.
const SHORT_TEXT_CHUNK = 16

// The text of a whole chunk of at least SHORT_TEXT_CHUNK bytes, when it is ASCII and worth decoding
// whole, else null.
function chunkText (chunk, length) {
  if (length >= TEXT_CHUNK) return isAscii(chunk) ? asciiSlice.call(chunk, 0, length) : null
  return shortText(chunk, length)
}

// What an event costs for maxEventSize is what it holds: each value's cost and one byte for each data
// line's LF; the parser adds the raw bytes of the line being read. String headers and the strings that
// join data lines (kept within a fraction of the data's bytes: field-rules.js, joinTail()) are not counted.

// What a decoded value of `byteLength` bytes costs: its bytes, or two bytes per UTF-16 unit when V8
// stores it so (a character above U+00FF). A value of fewer units than bytes has multi-byte characters;
// one of as many is ASCII, unless it holds U+FFFD, which bytes that are not UTF-8 decode to, one per
// byte. indexOf() answers at once for a one-byte string, which cannot hold it.
function valueCost (value, byteLength) {
  if (value.length !== byteLength) return byteLength >= 2 * value.length ? byteLength : 2 * value.length
  return byteLength !== 0 && value.indexOf('\ufffd') !== -1 ? 2 * byteLength : byteLength
}

// The last event ID string, when it is the ID buffer again (a new stream, or the one given to the
// constructor): it may cost two bytes per unit, and its bytes are not known.
function idStringCost (id) {
  return 2 * id.length
}

export { TEXT_CHUNK, SHORT_TEXT_CHUNK, chunkText, decode, valueCost, idStringCost }
