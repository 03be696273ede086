'use strict'

// EventSourceParser: bytes of a text/event-stream in, events out.
// https://html.spec.whatwg.org/multipage/server-sent-events.html#parsing-an-event-stream
// https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation
//
// This is the hot path. It knows nothing of HTTP, timers or EventTarget: the consumer gets primitives
// through callbacks. What keeps it fast and linear in the bytes, whatever the chunking:
// - one byte loop per write() finds line ends (indexOf takes over on long lines); a line inside one
//   chunk is never copied, only decoded;
// - a line that spans chunks is kept as a list of pieces and joined once, when its end arrives
//   (appending each chunk to a pending buffer would copy the line once per write: O(N^2) for a
//   long line dripped in small chunks);
// - field names, `retry` digits and the NUL check of `id` are read from the bytes; only values the
//   consumer can see are decoded, and an ASCII chunk is decoded once, its values being slices;
// - event state is a few primitive fields reset in place after each dispatch.

// Buffer's functions on Node, Bun and Deno; their equivalents on web APIs elsewhere (lib/platform/bytes-node.js,
// lib/platform/bytes-web.js, chosen by package.json's "imports").
const { utf8Slice, asciiSlice, indexOf, isAscii, isUint8Array, allocUnsafe } = require('#bytes')
const {
  LF, CR, SPACE, COLON, NUL, DIGIT_0, DIGIT_9, BOM, DEFAULT_MAX_EVENT_SIZE, kDropIn, kClearEvent, kDataLength, kEventEmpty,
  kWriteText
} = require('../constants')
const {
  codes: { ERR_INVALID_ARG_TYPE, ERR_EVENTSOURCE_EVENT_TOO_LARGE, ERR_EVENTSOURCE_WRITE_AFTER_END }, fromCallerOf
} = require('../errors')
const { unshared } = require('./unshared-string')
const {
  validateObject, validateFunction, validateOptionalFunction, validateString, validateLimit
} = require('../validators')

// The value in bytes [start, end), decoded as UTF-8 with U+FFFD for invalid sequences. `text` is the
// chunk already decoded when it is all ASCII (see write()): then a value is a slice of it, which costs
// far less than a call into the decoder per value. A long ASCII value is copied by asciiSlice (on Node,
// latin1Slice), which skips UTF-8 validation (several times faster on Node 20).
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

// Whether a whole chunk holds an LF or a CR.
function hasLineEnd (chunk) {
  return indexOf.call(chunk, LF, 0) !== -1 || indexOf.call(chunk, CR, 0) !== -1
}

// What a decoded value of `byteLength` bytes costs for maxEventSize: its bytes, or two bytes per UTF-16
// unit when V8 stores it so (a character above U+00FF). A value of fewer units than bytes has
// multi-byte characters; one of as many is ASCII, unless it holds U+FFFD, which bytes that are not
// UTF-8 decode to, one per byte. indexOf() answers at once for a one-byte string, which cannot hold it.
function valueCost (value, byteLength) {
  if (value.length !== byteLength) return byteLength >= 2 * value.length ? byteLength : 2 * value.length
  return byteLength !== 0 && value.indexOf('\ufffd') !== -1 ? 2 * byteLength : byteLength
}

// The last event ID string, when it is the ID buffer again (a new stream, or the one given to the
// constructor): it may cost two bytes per unit, and its bytes are not known.
function idStringCost (id) {
  return 2 * id.length
}

// An ASCII chunk at least this long is decoded once, as a whole. Values then hold a slice of that
// string: an event kept by the consumer keeps at most its chunk's text alive (so does
// eventsource-parser, which decodes every chunk whole).
const TEXT_CHUNK = 128
// A shorter chunk that starts a line (nothing pending) is decoded whole too, when it is ASCII: one
// event per chunk, as LLM token streams send them, then costs one call into the decoder, which its
// value needed anyway, and String#indexOf finds its line ends (see shortText()).
const SHORT_TEXT_CHUNK = 16
const LONG_VALUE = 1024
// After this many bytes of a line, Buffer#indexOf finds its end: a native scan wins on long lines,
// while its call costs more than the plain loop on short ones (measured: STYLE.md E-bench C).
const LONG_LINE = 128
// Pending pieces up to this long are copied byte by byte: cheaper than a subarray view and set().
const COPY_MAX = 64

// Pieces of a pending line shorter than this are copied into a shared scratch buffer rather than
// kept by reference: a line dripped one byte per chunk then costs its bytes in memory, not one
// object per byte. Longer pieces are kept as views of the caller's chunk.
const SMALL_PIECE = 128
const SCRATCH_SIZE = 4096

// What the buffered fields cost in memory, for maxEventSize (measured with 200,000 lines of each shape,
// Node 20 and 24). A value costs its bytes; one that is not ASCII may be stored at two bytes per UTF-16
// unit, and then costs that (see valueCost). The first data line of an event is the data buffer itself: its value and
// LF, at least DATA_LINE_COST, what a small string costs with its header. Each further line joins it
// as `data + '\n' + value`: two V8 cons strings of 32 bytes and the value (a 32-byte slice, or a
// 16-byte header and up to 8 bytes of alignment before its characters): at least DATA_JOIN_COST. An
// empty value makes one cons string: DATA_LINE_COST. A long value counts its bytes, its overhead being
// small beside them. Counting 32 for every line let 2 M short lines under a 64 MiB limit take 231 MiB.
const DATA_LINE_COST = 32
const DATA_JOIN_COST = 96
// How many bytes of chunk text the data buffer may keep alive beyond its own length (see #unpin()).
const PIN_SLACK = 64 * 1024

// Known field names are at most 5 bytes long ("event", "retry"), so the colon that ends one is
// within the first 6 bytes of its line.
const MAX_FIELD_NAME = 5
// Up to 15 digits, the value summed digit by digit is exact in a double (below 2^53).
const EXACT_DIGITS = 15

// The constructor's options, checked: a bad one throws with a stack that starts at the user's call.
function validOptions (options, entry) {
  try {
    validateObject(options, 'options')
    validateFunction(options.onEvent, 'options.onEvent')
    validateOptionalFunction(options.onRetry, 'options.onRetry')
    validateOptionalFunction(options.onComment, 'options.onComment')
    if (options.maxEventSize !== undefined) validateLimit(options.maxEventSize, 'options.maxEventSize', { min: 1, allowInfinity: true })
    if (options.lastEventId !== undefined) validateString(options.lastEventId, 'options.lastEventId')
  } catch (err) {
    throw fromCallerOf(err, entry)
  }
  return options
}

class EventSourceParser {
  // Consumer callbacks.
  #onEvent
  #onRetry
  #onComment
  #maxEventSize

  // Stream state. #bomPending: the first bytes may still be a BOM; #bomMatched: how many of its
  // bytes have been seen. #crPending: the previous chunk ended with CR, so a leading LF belongs to it.
  #bomPending = true
  #bomMatched = 0
  #crPending = false
  #ended = false
  #error = null
  #generation = 0

  // The pending line: pieces (views or scratch copies) in order, and their total length.
  #pieces = []
  #pendingLength = 0
  #scratch = null
  #scratchUsed = 0
  #scratchStart = 0

  // Event state (HTML 9.2.6): data buffer, event type buffer, last event ID buffer.
  // The data buffer is kept without its trailing LF; #dataLines tells "no data" from "empty data".
  #data = ''
  #dataLines = 0
  #eventType = ''
  #idBuffer = ''
  #lastEventId = ''
  // What the buffers of the current event cost in memory (see DATA_LINE_COST): the data buffer, the
  // event type buffer and the last event ID buffer, which carries over from one event to the next.
  // The limit applies to this plus the raw bytes of the line being read.
  #eventSize = 0
  #idCost = 0
  // How many bytes of chunk texts the data buffer may have kept alive since it was last copied (see
  // #unpin(); not reset at dispatch: counting texts of an earlier event only makes a copy come sooner).
  #pinned = 0

  // The eventsource-parser drop-in (lib/parser-drop-in.js) sees more than the standard's interpretation
  // reports: whether this block set an ID, the event type as given, the lines it ignores, the length of
  // its data buffer. Its hooks, or null; off the common path (one check per blank line).
  #dropIn = null
  #idSeen = false

  /**
   * @param {object} options
   * @param {(type: string, data: string, lastEventId: string) => void} options.onEvent
   * @param {(ms: number) => void} [options.onRetry] called as soon as a valid `retry` line is parsed
   * @param {(text: string) => void} [options.onComment] called with the text after `:` (one leading space removed)
   * @param {number} [options.maxEventSize] the limit on what one event holds in memory: its data so far
   *   (value bytes plus one per data line, at least 32 for the first line and 96 for each further one
   *   with a value, 32 for one without),
   *   its event type and the ID buffer (their value bytes), plus the raw bytes of the line being read,
   *   complete or not; a value that is not ASCII counts two bytes per UTF-16 unit when that is more;
   *   Infinity disables
   * @param {string} [options.lastEventId] the last event ID string to start from
   */
  constructor (options) {
    const { onEvent, onRetry, onComment, maxEventSize = DEFAULT_MAX_EVENT_SIZE, lastEventId = '' } = validOptions(options, new.target)
    this.#onEvent = onEvent
    this.#onRetry = onRetry ?? null
    this.#onComment = onComment ?? null
    this.#maxEventSize = maxEventSize
    this.#idBuffer = this.#lastEventId = lastEventId
    this.#eventSize = this.#idCost = idStringCost(lastEventId)
    const dropIn = options[kDropIn]
    if (dropIn !== undefined) {
      this.#dropIn = dropIn
      // The drop-in drops a BOM itself, as eventsource-parser does, from the strings it is fed.
      this.#bomPending = false
      // It sets no maxEventSize; when it limits the data buffer instead (eventsource-parser's
      // maxBufferSize), every line is past this limit and asks it first (see #overLimit).
      if (dropIn.limitsData) this.#maxEventSize = -Infinity
    }
  }

  /** The last event ID string: the id buffer as of the last dispatch. Survives reset(). */
  get lastEventId () {
    return this.#lastEventId
  }

  /**
   * Parses the next bytes of the stream. Callbacks run synchronously, in stream order.
   * Pieces of an unfinished line may be kept by reference until the line ends: do not modify a
   * chunk after writing it.
   * @param {Uint8Array} chunk
   */
  write (chunk) {
    if (!isUint8Array(chunk)) throw new ERR_INVALID_ARG_TYPE('chunk', 'an instance of Buffer or Uint8Array', chunk)
    if (this.#ended) throw new ERR_EVENTSOURCE_WRITE_AFTER_END()
    if (this.#error !== null) throw this.#error
    const length = chunk.length
    if (length === 0) return
    if (length >= TEXT_CHUNK && this.#pendingLength >= LONG_LINE && !hasLineEnd(chunk)) {
      // More of a long line, which this chunk does not end: keep it as it is. A native search ruled
      // out a line end; decoding the chunk or scanning it byte by byte would be wasted.
      this.#stash(chunk, 0, length)
      return
    }
    this.#parse(chunk, length, length >= SHORT_TEXT_CHUNK ? this.#chunkText(chunk, length) : null, false)
  }

  // The text of a whole chunk of at least SHORT_TEXT_CHUNK bytes, when it is ASCII and worth decoding
  // whole, else null.
  #chunkText (chunk, length) {
    if (length >= TEXT_CHUNK) return isAscii(chunk) ? asciiSlice.call(chunk, 0, length) : null
    return this.#pendingLength === 0 ? shortText(chunk, length) : null
  }

  // The drop-in's write(): bytes [0, length) of `bytes`, its encoding buffer (reused from one write to
  // the next: the drop-in writes only complete lines, so nothing of it is kept), and `text`, the
  // string they encode when it is ASCII, else null: values are slices of it whatever its length.
  // `crFree`: the drop-in knows there is no CR in them.
  [kWriteText] (bytes, length, text, crFree) {
    this.#parse(bytes, length, text, crFree)
  }

  // Parses bytes [0, length) of `chunk`. `text` is their text when they are ASCII and decoded whole;
  // `crFree` says they hold no CR, when that is known.
  #parse (chunk, length, text, crFree) {
    // end() or reset() called from a callback abandons the rest of this chunk.
    const generation = this.#generation
    let pos = 0
    if (this.#bomPending || this.#crPending) {
      pos = this.#resume(chunk, length)
    }
    let lineStart = pos
    // An ASCII chunk without CR: String#indexOf finds its line ends in the text, at memchr speed and
    // without a call into C++ per line.
    if (text !== null && (crFree || text.indexOf('\r', pos) === -1)) {
      let end = text.indexOf('\n', lineStart)
      // Only the first line can complete a pending one; the rest skip that check.
      if (end !== -1 && this.#pendingLength !== 0) {
        this.#joinedLine(chunk, lineStart, end)
        if (this.#generation !== generation) return
        lineStart = end + 1
        end = text.indexOf('\n', lineStart)
      }
      while (end !== -1) {
        if (end === lineStart) {
          this.#dispatch()
        } else {
          this.#line(chunk, lineStart, end, text)
          // A line followed by a blank line, as the last line of most events is: dispatch without
          // searching for that blank line's end, which is the next byte.
          if (text.charCodeAt(end + 1) === LF && this.#generation === generation) {
            end++
            this.#dispatch()
          }
        }
        if (this.#generation !== generation) return
        lineStart = end + 1
        end = text.indexOf('\n', lineStart)
      }
      if (lineStart < length) this.#stash(chunk, lineStart, length)
      if (this.#dataLines !== 0) this.#unpin(text)
      return
    }
    // Any other chunk: a byte loop finds the line ends. (Inline, as the text loop above: a chunk of a
    // few bytes, a long line dripped in, would pay for a method call.)
    // Where indexOf last found a CR from (-1: not yet): looked up once per chunk, not once per line.
    let nextCR = -1
    while (pos < length) {
      // Scan the first LONG_LINE bytes of the line byte by byte...
      const limit = lineStart + LONG_LINE < length ? lineStart + LONG_LINE : length
      let byte = 0
      for (; pos < limit; pos++) {
        byte = chunk[pos]
        // Most bytes are above CR; one comparison lets them through.
        if (byte <= CR && (byte === LF || byte === CR)) break
      }
      if (pos === limit) {
        if (limit === length) break
        // ...and the rest of a long line with indexOf.
        // (indexOf searches the whole buffer, which may go on past `length`.)
        let nextLF = indexOf.call(chunk, LF, pos)
        if (nextLF === -1 || nextLF > length) nextLF = length
        if (nextCR < pos) {
          nextCR = indexOf.call(chunk, CR, pos)
          if (nextCR === -1 || nextCR > length) nextCR = length
        }
        pos = nextLF < nextCR ? nextLF : nextCR
        if (pos === length) break
        byte = chunk[pos]
      }
      this.#lineEnd(chunk, lineStart, pos, text)
      if (this.#generation !== generation) return
      if (byte === CR) {
        // CRLF is one line end, even when the LF is in the next chunk.
        if (pos + 1 === length) this.#crPending = true
        else if (chunk[pos + 1] === LF) pos++
      }
      lineStart = ++pos
    }
    if (lineStart < length) this.#stash(chunk, lineStart, length)
    if (text !== null && this.#dataLines !== 0) this.#unpin(text)
  }

  /**
   * Ends the stream. An event without its closing blank line is discarded, and so is an unterminated
   * last line (HTML 9.2.6: "any pending data must be discarded"). A CR at the very end was already
   * taken as a line end. Calling end() again does nothing.
   */
  end () {
    this.#clearStream()
    this.#ended = true
  }

  /**
   * Starts a new stream, as on reconnection: the BOM may appear again, all buffers are cleared, and
   * the last event ID string is kept. Browsers (Chromium's EventSourceParser, Firefox) seed the new
   * stream's last event ID buffer with it, so an event without an `id` field keeps the previous ID.
   */
  reset () {
    this.#clearStream()
    this.#ended = false
    this.#error = null
  }

  #clearStream () {
    this.#generation++
    this.#bomPending = this.#dropIn === null
    this.#bomMatched = 0
    this.#crPending = false
    this.#pieces = []
    this.#pendingLength = 0
    this.#scratch = null
    this.#scratchUsed = 0
    this.#scratchStart = 0
    this.#idBuffer = this.#lastEventId
    this.#idCost = idStringCost(this.#lastEventId)
    this.#pinned = 0
    this.#idSeen = false
    this.#clearEvent()
  }

  #clearEvent () {
    this.#data = ''
    this.#dataLines = 0
    this.#eventType = ''
    this.#eventSize = this.#idCost
  }

  // Out of line, once per write at most, when an event is still open at the end of an ASCII chunk:
  // its data buffer may hold slices of the chunk's text (an ASCII chunk is decoded whole, see write()),
  // which keep all of that text alive after the write, the bytes of lines that are not data too. Once
  // the texts kept this way outweigh both the data and PIN_SLACK, the data is copied out of them:
  // memory stays within twice what is counted plus PIN_SLACK, and the copies cost no more than the
  // text written since the last one (linear work). The slack spares the common case, an event cut in
  // two by a chunk boundary, a copy per chunk.
  #unpin (text) {
    const pinned = this.#pinned += text.length
    if (pinned > PIN_SLACK && pinned > this.#data.length) {
      this.#data = unshared(this.#data)
      this.#pinned = 0
    }
  }

  // Out of line: the leading BOM check and a CR left pending by the previous chunk. Returns where
  // the stream content of `chunk` starts.
  #resume (chunk, length) {
    let pos = 0
    if (this.#bomPending) {
      // Decide byte by byte: a BOM may arrive one byte per chunk.
      while (pos < length && this.#bomMatched < BOM.length) {
        if (chunk[pos] !== BOM[this.#bomMatched]) break
        this.#bomMatched++
        pos++
      }
      if (this.#bomMatched === BOM.length) {
        this.#bomPending = false
      } else if (pos < length) {
        // Not a BOM after all: the bytes matched so far are the start of the first line.
        this.#bomPending = false
        if (this.#bomMatched > 0) this.#stash(Uint8Array.from(BOM), 0, this.#bomMatched)
      }
      return pos
    }
    this.#crPending = false
    return chunk[0] === LF ? 1 : 0
  }

  // A line ends at `end`: it is what is pending plus bytes [lineStart, end) of `chunk`.
  #lineEnd (chunk, lineStart, end, text) {
    if (this.#pendingLength !== 0) this.#joinedLine(chunk, lineStart, end)
    else if (end === lineStart) this.#dispatch()
    else this.#line(chunk, lineStart, end, text)
  }

  // Keeps bytes [start, end) of `chunk` as the next piece of the pending line.
  #stash (chunk, start, end) {
    const length = end - start
    this.#pendingLength += length
    if (this.#pendingLength + this.#eventSize > this.#maxEventSize) this.#overflow()
    if (length >= SMALL_PIECE) {
      this.#sealScratch()
      this.#pieces.push(start === 0 && end === chunk.length ? chunk : chunk.subarray(start, end))
      return
    }
    if (this.#scratch === null || this.#scratchUsed + length > this.#scratch.length) {
      this.#sealScratch()
      this.#scratch = allocUnsafe(SCRATCH_SIZE)
      this.#scratchUsed = this.#scratchStart = 0
    }
    this.#copyToScratch(chunk, start, end)
  }

  #copyToScratch (chunk, start, end) {
    const scratch = this.#scratch
    if (end - start > COPY_MAX) {
      scratch.set(start === 0 && end === chunk.length ? chunk : chunk.subarray(start, end), this.#scratchUsed)
      this.#scratchUsed += end - start
      return
    }
    let used = this.#scratchUsed
    for (let i = start; i < end; i++) scratch[used++] = chunk[i]
    this.#scratchUsed = used
  }

  // Turns the unsealed part of the scratch buffer into a piece, so later pieces follow it in order.
  #sealScratch () {
    if (this.#scratchUsed > this.#scratchStart) {
      this.#pieces.push(this.#scratch.subarray(this.#scratchStart, this.#scratchUsed))
      this.#scratchStart = this.#scratchUsed
    }
  }

  // The pending pieces plus bytes [start, end) of `chunk` make one line: join them once.
  #joinedLine (chunk, start, end) {
    const scratch = this.#scratch
    if (this.#pieces.length === 0 && end - start <= COPY_MAX && this.#scratchUsed + (end - start) <= SCRATCH_SIZE) {
      // The common case of a short line cut in two: the pending part is all in the scratch buffer,
      // so complete it there and parse it in place. Values are decoded before the buffer is reused.
      const lineStart = this.#scratchStart
      this.#copyToScratch(chunk, start, end)
      const lineEnd = this.#scratchUsed
      this.#pendingLength = 0
      this.#scratchUsed = this.#scratchStart = 0
      this.#line(scratch, lineStart, lineEnd, null)
      return
    }
    this.#sealScratch()
    const pieces = this.#pieces
    const total = this.#pendingLength + (end - start)
    const line = allocUnsafe(total)
    let offset = 0
    for (let i = 0; i < pieces.length; i++) {
      line.set(pieces[i], offset)
      offset += pieces[i].length
    }
    if (end > start) line.set(chunk.subarray(start, end), offset)
    this.#pieces = []
    this.#pendingLength = 0
    // The scratch buffer's sealed bytes now live in `line`; start it over.
    this.#scratchUsed = this.#scratchStart = 0
    this.#line(line, 0, total, null)
  }

  // Interprets one non-empty line, bytes [start, end) of `bytes`, terminator excluded (HTML 9.2.6).
  // `text` is the decoded chunk when `bytes` is an ASCII chunk, else null.
  #line (bytes, start, end, text) {
    // The limit counts the whole line, as it did while the line was pending, so whether an event is
    // too large does not depend on where the chunks were cut.
    if (end - start + this.#eventSize > this.#maxEventSize && this.#overLimit()) return
    const first = bytes[start]
    // `data:` first: by far the most common line.
    if (first === 0x64 && end - start > 4 && bytes[start + 4] === COLON && bytes[start + 1] === 0x61 &&
        bytes[start + 2] === 0x74 && bytes[start + 3] === 0x61) {
      this.#appendData(bytes, start + 5 < end && bytes[start + 5] === SPACE ? start + 6 : start + 5, end, text)
      return
    }
    if (first === COLON) {
      if (this.#onComment !== null) {
        this.#onComment(decode(bytes, start + 1 < end && bytes[start + 1] === SPACE ? start + 2 : start + 1, end, text))
      }
      return
    }
    this.#field(bytes, start, end, text, first)
  }

  // Any other field line: split at the first colon (a line without one is all field name, with an
  // empty value), then match the name on its bytes; anything else is an unknown field and is ignored.
  #field (bytes, start, end, text, first) {
    let nameEnd = end
    let valueStart = end
    const scanEnd = Math.min(end, start + MAX_FIELD_NAME + 1)
    for (let i = start + 1; i < scanEnd; i++) {
      if (bytes[i] === COLON) {
        nameEnd = i
        valueStart = i + 1 < end && bytes[i + 1] === SPACE ? i + 2 : i + 1
        break
      }
    }
    const nameLength = nameEnd - start
    switch (first) {
      case 0x64: // d: data, without a colon (`data:` was handled by #line)
        if (nameLength === 4 && bytes[start + 1] === 0x61 && bytes[start + 2] === 0x74 && bytes[start + 3] === 0x61) {
          this.#appendData(bytes, valueStart, end, text)
          return
        }
        break
      case 0x65: // e: event
        if (nameLength === 5 && bytes[start + 1] === 0x76 && bytes[start + 2] === 0x65 &&
            bytes[start + 3] === 0x6e && bytes[start + 4] === 0x74) {
          // A type it replaces is freed, but still counted: a repeated `event:` line is rare, and
          // counting it costs an event nothing on the common path.
          const type = this.#eventType = decode(bytes, valueStart, end, text)
          this.#eventSize += text !== null ? end - valueStart : valueCost(type, end - valueStart)
          return
        }
        break
      case 0x69: // i: id
        if (nameLength === 2 && bytes[start + 1] === 0x64) {
          this.#setId(bytes, valueStart, end, text)
          return
        }
        break
      case 0x72: // r: retry
        if (nameLength === 5 && bytes[start + 1] === 0x65 && bytes[start + 2] === 0x74 &&
            bytes[start + 3] === 0x72 && bytes[start + 4] === 0x79) {
          if (!this.#setRetry(bytes, valueStart, end) && this.#dropIn !== null) this.#invalidRetry(bytes, start, valueStart, end, text)
          return
        }
    }
    // Any other name: "the field is ignored". The drop-in reports it (eventsource-parser's onError).
    if (this.#dropIn !== null) this.#unknownField(bytes, start, end, text)
  }

  // An unknown field's name and value, split at its first colon wherever it is (#field only looked as
  // far as a known name reaches), and its line, decoded for the drop-in.
  #unknownField (bytes, start, end, text) {
    const colon = indexOf.call(bytes, COLON, start)
    const line = decode(bytes, start, end, text)
    if (colon === -1 || colon >= end) {
      this.#dropIn.unknownField(line, '', line)
      return
    }
    const valueStart = colon + 1 < end && bytes[colon + 1] === SPACE ? colon + 2 : colon + 1
    this.#dropIn.unknownField(decode(bytes, start, colon, text), decode(bytes, valueStart, end, text), line)
  }

  // "Append the field value to the data buffer, then append a single U+000A LINE FEED (LF)."
  // The LF is counted here and added before the next value instead, so dispatch need not strip it.
  #appendData (bytes, start, end, text) {
    const value = decode(bytes, start, end, text)
    // A value from an ASCII chunk's text is ASCII: only others can cost two bytes per unit.
    const cost = text === null ? valueCost(value, end - start) + 1 : end - start + 1
    if (this.#dataLines++ === 0) {
      this.#data = value
      this.#eventSize += cost > DATA_LINE_COST ? cost : DATA_LINE_COST
    } else if (start === end) {
      // `data + '\n' + ''` is one cons string: `+ ''` makes none.
      this.#data = this.#data + '\n'
      this.#eventSize += DATA_LINE_COST
    } else {
      this.#data = this.#data + '\n' + value
      this.#eventSize += cost > DATA_JOIN_COST ? cost : DATA_JOIN_COST
    }
  }

  // "If the field value does not contain U+0000 NULL, then set the last event ID buffer to the field
  // value." A NUL byte in UTF-8 is exactly U+0000, so the check needs no decoding.
  #setId (bytes, start, end, text) {
    for (let i = start; i < end; i++) {
      if (bytes[i] === NUL) return
    }
    const id = this.#idBuffer = decode(bytes, start, end, text)
    this.#idSeen = true
    // It replaces the ID buffer's value, which may live on as the last event ID string until the next
    // dispatch: that one was counted for the event that set it.
    const cost = text !== null ? end - start : valueCost(id, end - start)
    this.#eventSize += cost - this.#idCost
    this.#idCost = cost
  }

  // "If the field value consists of only ASCII digits", the reconnection time; returns whether it
  // does. An empty value is not a number, as in Chromium and Firefox. Huge values are passed on as they
  // are (possibly Infinity); clamping them to what a timer takes is the consumer's business.
  #setRetry (bytes, start, end) {
    if (start === end) return false
    let ms = 0
    for (let i = start; i < end; i++) {
      const byte = bytes[i]
      if (byte < DIGIT_0 || byte > DIGIT_9) return false
      ms = ms * 10 + (byte - DIGIT_0)
    }
    // Past that many digits the sum was rounded at each step: read the number again, rounded once,
    // as Number() and parseInt() do.
    if (end - start > EXACT_DIGITS) ms = Number(asciiSlice.call(bytes, start, end))
    if (this.#onRetry !== null) this.#onRetry(ms)
    return true
  }

  // A `retry:` value that is not a number is ignored; the drop-in reports it (eventsource-parser's
  // onError), with its line.
  #invalidRetry (bytes, lineStart, start, end, text) {
    this.#dropIn.invalidRetry(decode(bytes, start, end, text), decode(bytes, lineStart, end, text))
  }

  // HTML 9.2.6 "dispatch the event", steps 1-3 and the reset of the buffers. Building and firing a
  // MessageEvent is the consumer's part.
  #dispatch () {
    this.#lastEventId = this.#idBuffer
    if (this.#dropIn !== null) {
      this.#dropInDispatch()
      return
    }
    if (this.#dataLines === 0) {
      this.#eventType = ''
      this.#eventSize = this.#idCost
      return
    }
    const type = this.#eventType === '' ? 'message' : this.#eventType
    const data = this.#data
    this.#clearEvent()
    this.#onEvent(type, data, this.#lastEventId)
  }

  // The drop-in's dispatch, as eventsource-parser's: the event type as given ('' when none), the data
  // (null when the block had no data line: eventsource-parser then reports its ID alone), and the ID
  // only when this block set one (eventsource-parser's IDs do not carry over from event to event).
  #dropInDispatch () {
    if (this.#maxEventSize === -Infinity && this.#dataLines !== 0 && this.#dropIn.dataOverLimit(this.#data.length, this.#dataLines === 1)) return
    const type = this.#eventType
    const data = this.#dataLines === 0 ? null : this.#data
    const id = this.#idSeen ? this.#idBuffer : undefined
    this.#idSeen = false
    this.#clearEvent()
    this.#dropIn.dispatch(type, data, id)
  }

  // The drop-in's reset() called from a callback: eventsource-parser then forgets the event being read
  // but goes on with the rest of the chunk, where our reset() drops it.
  [kClearEvent] () {
    this.#idSeen = false
    this.#clearEvent()
  }

  // The length of the data buffer in UTF-16 units, for the drop-in's maxBufferSize.
  get [kDataLength] () {
    return this.#data.length
  }

  // Whether no line of the event being read has set a field (data, event type or id) since the last
  // dispatch: the drop-in may then parse whole blocks on the string itself (lib/parser-drop-in.js).
  get [kEventEmpty] () {
    return this.#dataLines === 0 && this.#eventType === '' && !this.#idSeen
  }

  // A line would take the event past maxEventSize: fail (#overflow throws). The drop-in, which limits
  // the data buffer instead, is asked before each line whether the last one took it past its limit:
  // true when it stopped the write there.
  #overLimit () {
    if (this.#dropIn === null) this.#overflow()
    return this.#dropIn.dataOverLimit(this.#data.length, false)
  }

  // The event (pending line included) grew past maxEventSize: drop what is buffered and fail until
  // reset(), so a hostile stream cannot grow memory and a caller cannot silently lose part of it.
  #overflow () {
    this.#clearStream()
    this.#error = new ERR_EVENTSOURCE_EVENT_TOO_LARGE(this.#maxEventSize)
    throw this.#error
  }
}

module.exports = { EventSourceParser }
