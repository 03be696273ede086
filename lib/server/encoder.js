// Events to the bytes of an event stream: the inverse of the parser (HTML 9.2.6, "Parsing an event stream"),
// tested against it and against eventsource-parser and undici (test/server/encoder-roundtrip.test.cjs).
//
// What the format cannot carry is refused rather than written: a CR or LF in `event` or `id` would end the
// field's line and start another one the author never meant (`id: 1\n\ndata: injected`), and a NUL in `id`
// makes a client ignore the whole field. `data` and `comment` are split on every line end (CRLF, CR, LF) into
// lines of their own, which is how the format carries a multi-line value; a client joins them with LF, so
// a value's CR and CRLF come back as LF, the one thing about a value that does not round-trip. Every value
// is written after `: `, so a leading space of its own is kept (the parser drops one space only). An event
// ends with its blank line, so an event never leaks fields into the next one, and no stream written here
// starts with a BOM: every line starts with a field name or a colon.
//
// Batches are written straight into one buffer: a first pass checks every event and measures its UTF-8
// length, the second writes it, with no string built per field or per line.

import { allocUnsafe, utf8Length, utf8Write } from '#bytes'
import { codes as argumentCodes } from '../errors/arguments.js'

const { ERR_INVALID_ARG_TYPE, ERR_INVALID_ARG_VALUE, ERR_OUT_OF_RANGE } = argumentCodes

const LF = 0x0a
const CR = 0x0d
const SPACE = 0x20
const COLON = 0x3a

// The field names, with their colon and space, as bytes.
const DATA = [0x64, 0x61, 0x74, 0x61, COLON, SPACE]
const EVENT = [0x65, 0x76, 0x65, 0x6e, 0x74, COLON, SPACE]
const ID = [0x69, 0x64, COLON, SPACE]
const RETRY = [0x72, 0x65, 0x74, 0x72, 0x79, COLON, SPACE]
const COMMENT = [COLON, SPACE]

/**
 * Checks an event, and returns the length of its encoding in bytes.
 * @param {import('../../types/server').ServerSentEvent} event
 * @param {number} index the event's in a batch, -1 for one event: what an error calls it ("events[3]", "event")
 */
function measure (event, index) {
  if (event === null || typeof event !== 'object') {
    throw new ERR_INVALID_ARG_TYPE(nameOf(index, ''), 'of type object', event)
  }
  const { data, event: type, id, retry, comment } = event
  let size = 1 // the blank line
  let fields = 0
  if (comment !== undefined) {
    size += multiline(comment, index, '.comment', COMMENT.length)
    fields++
  }
  if (type !== undefined) {
    size += singleLine(type, index, '.event', EVENT.length, false)
    fields++
  }
  if (id !== undefined) {
    size += singleLine(id, index, '.id', ID.length, true)
    fields++
  }
  if (retry !== undefined) {
    if (typeof retry !== 'number') throw new ERR_INVALID_ARG_TYPE(nameOf(index, '.retry'), 'of type number', retry)
    if (!Number.isSafeInteger(retry) || retry < 0) {
      throw new ERR_OUT_OF_RANGE(nameOf(index, '.retry'), 'a non-negative integer (milliseconds)', retry)
    }
    size += RETRY.length + `${retry}`.length + 1
    fields++
  }
  if (data !== undefined) {
    size += multiline(data, index, '.data', DATA.length)
    fields++
  }
  if (fields === 0) {
    throw new ERR_INVALID_ARG_VALUE(nameOf(index, ''), event, 'has none of data, event, id, retry and comment')
  }
  return size
}

// What an error calls a field: `event.id`, `events[3].id`; built only for an error, not per event.
function nameOf (index, field) {
  return index === -1 ? `event${field}` : `events[${index}]${field}`
}

// The bytes of a one-line field: prefix, value, LF.
function singleLine (value, index, field, prefix, isId) {
  if (typeof value !== 'string') throw new ERR_INVALID_ARG_TYPE(nameOf(index, field), 'of type string', value)
  if (hasLineEnd(value)) {
    throw new ERR_INVALID_ARG_VALUE(nameOf(index, field), value,
      'must not contain a line end (CR or LF): it would start another field')
  }
  if (isId && value.includes('\0')) {
    throw new ERR_INVALID_ARG_VALUE(nameOf(index, field), value, 'must not contain NUL: a client ignores such an id')
  }
  return prefix + utf8Length(value) + 1
}

// The bytes of a value split into lines: per line its prefix and LF; the line ends of the value are not written.
// Each indexOf only moves forward, so a long value costs one pass whatever its line ends.
function multiline (value, index, field, prefix) {
  if (typeof value !== 'string') throw new ERR_INVALID_ARG_TYPE(nameOf(index, field), 'of type string', value)
  let lines = 1
  let ends = 0
  let lf = value.indexOf('\n')
  let cr = value.indexOf('\r')
  while (lf !== -1 || cr !== -1) {
    lines++
    ends++
    if (cr !== -1 && (lf === -1 || cr < lf)) {
      // CRLF: one line end of two characters
      if (lf === cr + 1) {
        ends++
        lf = value.indexOf('\n', lf + 1)
      }
      cr = value.indexOf('\r', cr + 1)
    } else {
      lf = value.indexOf('\n', lf + 1)
    }
  }
  return utf8Length(value) - ends + lines * (prefix + 1)
}

function hasLineEnd (value) {
  return value.includes('\n') || value.includes('\r')
}

function writeBytes (buffer, offset, bytes) {
  for (let i = 0; i < bytes.length; i++) buffer[offset + i] = bytes[i]
  return offset + bytes.length
}

// Writes prefix, value, LF; returns the offset after.
function writeLine (buffer, offset, prefix, value) {
  offset = writeBytes(buffer, offset, prefix)
  offset += utf8Write(buffer, value, offset)
  buffer[offset] = LF
  return offset + 1
}

// Writes a value as lines, each with the prefix: its UTF-8 is written once, at the end of the room it will take
// (`end`), then each line is moved to its place, prefix first. A line never starts before the bytes it is moved
// from: a value's line takes prefix + line + LF and came from line + its line end (CR, LF or CRLF), and the
// prefix is longer than the one extra byte of a CRLF. CR and LF are single bytes in UTF-8, never inside a
// character, so the line ends are found in the bytes.
function writeLines (buffer, offset, end, prefix, value) {
  if (!hasLineEnd(value)) return writeLine(buffer, offset, prefix, value)
  const length = utf8Length(value)
  let from = end - length
  utf8Write(buffer, value, from)
  const last = end
  for (;;) {
    let stop = from
    while (stop < last && buffer[stop] !== LF && buffer[stop] !== CR) stop++
    offset = writeBytes(buffer, offset, prefix)
    buffer.copyWithin(offset, from, stop)
    offset += stop - from
    buffer[offset++] = LF
    if (stop === last) return offset
    from = stop + 1 < last && buffer[stop] === CR && buffer[stop + 1] === LF ? stop + 2 : stop + 1
    // A line end as the value's last character leaves one empty line after it.
    if (from === last) {
      offset = writeBytes(buffer, offset, prefix)
      buffer[offset++] = LF
      return offset
    }
  }
}

// Writes a checked event of `size` bytes at `offset`; returns the offset after it.
function write (buffer, offset, event, size) {
  const end = offset + size
  const { data, event: type, id, retry, comment } = event
  if (comment !== undefined) {
    // The comment's lines end where the fields after it start: measured again, as the event is short of a
    // second table of sizes.
    offset = writeLines(buffer, offset, offset + multiline(comment, -1, '', COMMENT.length), COMMENT, comment)
  }
  if (type !== undefined) offset = writeLine(buffer, offset, EVENT, type)
  if (id !== undefined) offset = writeLine(buffer, offset, ID, id)
  if (retry !== undefined) offset = writeLine(buffer, offset, RETRY, `${retry}`)
  if (data !== undefined) offset = writeLines(buffer, offset, end - 1, DATA, data)
  buffer[offset] = LF
  return offset + 1
}

/**
 * The bytes of one event.
 * @param {import('../../types/server').ServerSentEvent} event
 * @returns {Uint8Array} a Buffer on Node
 */
function encodeEvent (event) {
  const size = measure(event, -1)
  const buffer = allocUnsafe(size)
  write(buffer, 0, event, size)
  return buffer
}

/**
 * The bytes of several events, in one buffer. Nothing is written unless every event is valid.
 * @param {Iterable<import('../../types/server').ServerSentEvent>} events
 * @returns {Uint8Array}
 */
function encodeEvents (events) {
  const list = Array.isArray(events) ? events : toList(events)
  const sizes = new Array(list.length)
  let total = 0
  for (let i = 0; i < list.length; i++) total += sizes[i] = measure(list[i], i)
  const buffer = allocUnsafe(total)
  let offset = 0
  for (let i = 0; i < list.length; i++) offset = write(buffer, offset, list[i], sizes[i])
  return buffer
}

function toList (events) {
  if (events === null || typeof events !== 'object' || typeof events[Symbol.iterator] !== 'function') {
    throw new ERR_INVALID_ARG_TYPE('events', 'an iterable of events', events)
  }
  return [...events]
}

/**
 * The text of one event, for code that writes strings. The same checks and lines as encodeEvent().
 * @param {import('../../types/server').ServerSentEvent} event
 */
function formatEvent (event) {
  measure(event, -1)
  const { data, event: type, id, retry, comment } = event
  let text = ''
  if (comment !== undefined) text += `: ${comment.split(LINE_END).join('\n: ')}\n`
  if (type !== undefined) text += `event: ${type}\n`
  if (id !== undefined) text += `id: ${id}\n`
  if (retry !== undefined) text += `retry: ${retry}\n`
  if (data !== undefined) text += `data: ${data.split(LINE_END).join('\ndata: ')}\n`
  return `${text}\n`
}

const LINE_END = /\r\n|\r|\n/

export { encodeEvent, encodeEvents, formatEvent }
