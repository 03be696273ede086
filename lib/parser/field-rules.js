// The standard's interpretation of a field, the part of it that does not depend on what the parser
// reads: bytes (./parser.js) or UTF-16 strings (string-parser.js of lib/compat/eventsource-parser/).
// https://html.spec.whatwg.org/multipage/server-sent-events.html#processField
//
// Everything here takes numbers (code units) or strings already cut out of the input, never the
// input itself: a helper that read from "a Uint8Array or a string" would make the byte parser's loop
// polymorphic. The four field names are ASCII, so their UTF-8 bytes and UTF-16 code units are the same
// numbers, and one table serves both parsers.

import { DIGIT_0, DIGIT_9 } from '../constants.js'
import { unshared } from './unshared-string.js'

// Field kinds; FIELD_UNKNOWN for any other name ("the field is ignored").
const FIELD_UNKNOWN = 0
const FIELD_DATA = 1
const FIELD_EVENT = 2
const FIELD_ID = 3
const FIELD_RETRY = 4

// Each kind's name, compared literally: no case folding. Not frozen: V8's optimizing compiler reads an
// element of a frozen array it holds as a constant through a generic keyed load, where a plain array's is
// a bounds check and a load, on the string parser's path of every line cut between two feeds.
const FIELD_NAMES = ['', 'data', 'event', 'id', 'retry']

// Up to this many digits, a value summed digit by digit is exact in a double (below 2^53).
const EXACT_DIGITS = 15

// The only kind a field whose name starts with code unit `code` can be: no two names share a first
// letter, so a parser switches on it and compares the rest.
function fieldStartingWith (code) {
  switch (code) {
    case 0x64: return FIELD_DATA // d
    case 0x65: return FIELD_EVENT // e
    case 0x69: return FIELD_ID // i
    case 0x72: return FIELD_RETRY // r
    default: return FIELD_UNKNOWN
  }
}

// The value of an ASCII digit, or -1 for any other code unit.
function digitValue (code) {
  return code >= DIGIT_0 && code <= DIGIT_9 ? code - DIGIT_0 : -1
}

// `retry`: "If the field value consists of only ASCII digits", the reconnection time it gives; else
// -1 (the field is ignored). An empty value is not a number, as in Chromium and Firefox. A value of
// more digits than a double holds exactly is read once, rounded as parseInt() rounds (it may be
// Infinity: clamping it to what a timer takes is the caller's business).
function retryValue (value) {
  const length = value.length
  if (length === 0) return -1
  let ms = 0
  for (let i = 0; i < length; i++) {
    const digit = digitValue(value.charCodeAt(i))
    if (digit === -1) return -1
    ms = ms * 10 + digit
  }
  return length > EXACT_DIGITS ? parseInt(value, 10) : ms
}

// `id`: "If the field value does not contain U+0000 NULL, then set the last event ID buffer to the
// field value." In UTF-8 the byte 0x00 is U+0000 and nothing else, so a byte parser may also test
// the bytes before decoding.
function isAcceptedId (value) {
  return value.indexOf('\0') === -1
}

// `data`: "Append the field value to the data buffer, then append a single U+000A LINE FEED (LF)",
// with the last LF removed at dispatch: the buffer is kept without it, and `lines` (how many data
// lines came before) tells an empty first line from none.
function appendData (data, lines, value) {
  return lines === 0 ? value : `${data}\n${value}`
}

// Joining strings makes a rope in V8, as in the other engines: constant time, but each join holds cons
// strings (two a line here, and a header when a short value is a copy), up to JOIN_COST bytes a line
// that are not the event's, and ropes that live long survive every young-generation GC, each of which
// copies them again. So a parser keeps the data buffer in two parts, a head and the rope of its last
// lines, and every TAIL_LINES lines moves the rope to the head: as it is when its joins hold at most half
// its characters (it has 2 x JOIN_COST x TAIL_LINES of them or more), else flattened first (copied into
// one string by unshared()). However many lines an event has, the joins its head holds stay within half
// its characters, those of the rope within TAIL_LINES x JOIN_COST bytes, and each character is copied
// at most once.
const JOIN_COST = 96
const TAIL_LINES = 256

// The head of a data buffer with `tail`, the rope of its last lines, moved to it (see above).
function joinTail (head, tail) {
  return head + (tail.length < 2 * JOIN_COST * TAIL_LINES ? unshared(tail) : tail)
}

export {
  FIELD_UNKNOWN,
  FIELD_DATA,
  FIELD_EVENT,
  FIELD_ID,
  FIELD_RETRY,
  FIELD_NAMES,
  EXACT_DIGITS,
  fieldStartingWith,
  digitValue,
  retryValue,
  isAcceptedId,
  TAIL_LINES,
  appendData,
  joinTail
}
