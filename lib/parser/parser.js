// EventStreamParser: bytes of a text/event-stream in, events out (EventSourceParser, the public class, is
// this with its options checked: ./event-source-parser.js). One text for every runtime: Node, Bun and Deno
// run it on Buffer's functions, browsers and workers on TextDecoder (lib/platform/bytes-node.js and
// bytes-web.js, `#bytes`).
// https://html.spec.whatwg.org/multipage/server-sent-events.html#parsing-an-event-stream
// https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation
//
// This is the hot path. It knows nothing of HTTP, timers or EventTarget: the consumer gets primitives
// through callbacks. What keeps it fast and linear in the bytes, whatever the chunking:
// - an ASCII chunk is decoded once (./values.js), its values being slices of that text, and when it holds
//   no CR, String#indexOf finds its line ends; any other chunk is scanned byte by byte;
// - a line inside one chunk is never copied, only decoded; a line that spans chunks is kept as pieces, large
//   ones by reference and small ones copied into a scratch buffer, and joined once when it ends (appending
//   each chunk to one buffer would copy a line dripped in small chunks once per write: O(N^2)); a long ASCII
//   `data:` line is decoded piece by piece instead, and a chunk that cannot end a long line is added to it
//   without being decoded or scanned;
// - field names, `retry` digits and the NUL check of `id` are read from the bytes;
// - event state is a few primitive fields reset in place after each dispatch.
// Each of these pays on benchmarks/parser.bench.mjs, in a browser too, where the decoder is TextDecoder.

import { asciiSlice, indexOf, isAscii, isUint8Array, allocUnsafe } from '#bytes'
import { LF, CR, SPACE, COLON, NUL, BOM, DEFAULT_MAX_EVENT_SIZE } from '../constants.js'
import {
  FIELD_UNKNOWN, FIELD_DATA, FIELD_EVENT, FIELD_ID, FIELD_RETRY, EXACT_DIGITS, digitValue, retryValue, TAIL_LINES,
  appendData, joinTail
} from './field-rules.js'
import { codes as argumentsCodes } from '../errors/arguments.js'
import { codes as parserCodes } from '../errors/parser.js'
import { unshared } from './unshared-string.js'
import { TEXT_CHUNK, SHORT_TEXT_CHUNK, chunkText, decode, valueCost, idStringCost } from './values.js'
const { ERR_INVALID_ARG_TYPE } = argumentsCodes
const { ERR_EVENTSOURCE_EVENT_TOO_LARGE, ERR_EVENTSOURCE_WRITE_AFTER_END } = parserCodes

// #bomMatched once the start of the stream is decided (a BOM dropped, or none there).
const BOM_DECIDED = -1
// How many bytes of chunk text the data buffer may keep alive beyond its own length (see #unpin()).
const PIN_SLACK = 64 * 1024
// A pending line this long is long: a chunk without a line end is added to it as it is (see write()).
// Pieces of a pending line this long are kept by reference; shorter ones are copied into a scratch buffer,
// so that a line dripped one byte per chunk costs its bytes in memory, not an object per byte.
const LONG_LINE = 128
const SCRATCH_SIZE = 4096
// A pending line this long, when it is an ASCII `data:` line, has its value decoded piece by piece: joining
// it would cost two fresh allocations as large as the line, its buffer and its value.
const LONG_DATA_LINE = 16 * 1024
// The scratch buffer no parser holds: given back when a line ends, taken by the next line that spans chunks, so
// that a stream of short lines cut by chunk boundaries (a socket's small reads) allocates none per line, and a
// parser between lines, as an idle connection's is, holds none.
let spare = null
// The end of a line that the end of the stream stands for (end(), with incompleteEvent 'dispatch').
const NO_BYTES = new Uint8Array(0)

// Whether the line [start, end) of `bytes` is a `data` field with a colon (`data:`), by far the most
// common line: matched before any other.
function isDataField (bytes, start, end) {
  return end - start > 4 && bytes[start + 4] === COLON && bytes[start] === 0x64 && bytes[start + 1] === 0x61 &&
    bytes[start + 2] === 0x74 && bytes[start + 3] === 0x61
}

class EventStreamParser {
  // Consumer callbacks.
  #onEvent
  #onRetry
  #onComment
  #maxEventSize
  #dispatchesIncompleteEvent

  // Stream state. #bomMatched: how many bytes of a leading BOM have been seen, or BOM_DECIDED.
  // #crPending: the previous chunk ended with CR, so a leading LF belongs to it.
  #bomMatched = 0
  #crPending = false
  #ended = false
  #error = null
  #generation = 0

  // The line being read, when it spans chunks: #pendingLength bytes, in #pieces (views of callers' chunks or
  // sealed parts of #scratch; null until there is one), then [#scratchStart, #scratchUsed) of #scratch.
  #pendingLength = 0
  #pieces = null
  #scratch = null
  #scratchStart = 0
  #scratchUsed = 0
  // Event state (HTML 9.2.6): data buffer, event type buffer, last event ID buffer.
  // The data buffer is kept without its trailing LF, as #head + #data: #data the rope of its last lines,
  // #head the lines before them (field-rules.js, joinTail()). #dataLines tells "no data" from "empty data".
  #head = ''
  #data = ''
  #dataLines = 0
  #eventType = ''
  #idBuffer
  #lastEventId
  // What the buffers of the current event cost (./values.js): the data, event type and last event ID buffers (the
  // last carries over from one event to the next). The limit applies to this plus the raw bytes of the line read.
  #eventSize
  #idCost
  // How many bytes of chunk texts the data buffer may have kept alive since it was last copied (see
  // #unpin(); not reset at dispatch: counting texts of an earlier event only makes a copy come sooner).
  #pinned = 0

  // `options` as EventSourceParser's (types/index.d.ts), taken as given; what maxEventSize counts: ./values.js.
  constructor (options) {
    const {
      onEvent, onRetry, onComment, maxEventSize = DEFAULT_MAX_EVENT_SIZE, lastEventId = '', incompleteEvent
    } = options
    this.#onEvent = onEvent
    this.#onRetry = onRetry ?? null
    this.#onComment = onComment ?? null
    this.#maxEventSize = maxEventSize
    this.#dispatchesIncompleteEvent = incompleteEvent === 'dispatch'
    this.#idBuffer = this.#lastEventId = lastEventId
    this.#eventSize = this.#idCost = idStringCost(lastEventId)
  }

  /** The last event ID string: the id buffer as of the last dispatch. Survives reset(). */
  get lastEventId () {
    return this.#lastEventId
  }

  // Parses the next bytes of the stream. Callbacks run synchronously, in stream order. Pieces of an
  // unfinished line may be kept by reference until the line ends: do not modify a chunk after writing it.
  write (chunk) {
    if (!isUint8Array(chunk)) throw new ERR_INVALID_ARG_TYPE('chunk', 'an instance of Buffer or Uint8Array', chunk)
    if (this.#ended) throw new ERR_EVENTSOURCE_WRITE_AFTER_END()
    if (this.#error !== null) throw this.#error
    const length = chunk.length
    if (length === 0) return
    if (length >= TEXT_CHUNK && this.#pendingLength >= LONG_LINE &&
        indexOf.call(chunk, LF, 0) === -1 && indexOf.call(chunk, CR, 0) === -1) {
      // More of a long line, which this chunk does not end (a native search says so): decoding the chunk
      // or scanning it byte by byte would be wasted.
      this.#stash(chunk, 0, length)
      return
    }
    const text = length >= SHORT_TEXT_CHUNK ? chunkText(chunk, length) : null
    this.#parse(chunk, length, text)
    // The ID buffer and last event ID outlive this chunk: as slices of its text (./unshared-string.js) they
    // would keep it all alive, an idle connection's for good. A shorter text may stay: copying after every
    // chunk cost small chunks with long IDs much of their parse time.
    if (length >= 4096) {
      this.#lastEventId = unshared(this.#lastEventId)
      this.#idBuffer = unshared(this.#idBuffer)
    }
  }

  // Parses bytes [0, length) of `chunk`. `text` is their text when they are ASCII and decoded whole.
  #parse (chunk, length, text) {
    // end() or reset() called from a callback abandons the rest of this chunk.
    const generation = this.#generation
    let lineStart = 0
    if (this.#bomMatched !== BOM_DECIDED || this.#crPending) lineStart = this.#resume(chunk, length)
    if (text !== null && text.indexOf('\r', lineStart) === -1) {
      // An ASCII chunk without CR: String#indexOf finds its line ends in the text, at memchr speed and
      // without a call into C++ per line. (A loop of its own: sharing the byte loop's per-line checks
      // slowed streams of small events.)
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
        } else if (chunk[end + 1] !== LF) {
          // (The byte, not text.charCodeAt(): past a chunk's end, that makes V8 stop inlining it here.)
          this.#line(chunk, lineStart, end, text)
        } else {
          // A line followed by a blank line, as the last of most events: dispatched without a search.
          if (this.#dataLines !== 0 || !this.#dataEvent(chunk, lineStart, end, text)) {
            this.#line(chunk, lineStart, end, text)
            if (this.#generation === generation) this.#dispatch()
          }
          end++
        }
        if (this.#generation !== generation) return
        lineStart = end + 1
        end = text.indexOf('\n', lineStart)
      }
    } else {
      // Any other chunk: a byte loop finds the line ends.
      let pos = lineStart
      while (pos < length) {
        let byte = 0
        for (; pos < length; pos++) {
          byte = chunk[pos]
          // Most bytes are above CR; one comparison lets them through.
          if (byte <= CR && (byte === LF || byte === CR)) break
        }
        if (pos === length) break
        // A line ends at `pos`: what is pending, if anything, plus bytes [lineStart, pos). (Here, not in a method
        // of its own: that would be one more frame between the socket and a listener.)
        if (this.#pendingLength !== 0) this.#joinedLine(chunk, lineStart, pos)
        else if (pos === lineStart) this.#dispatch()
        else this.#line(chunk, lineStart, pos, text)
        if (this.#generation !== generation) return
        if (byte === CR) {
          // CRLF is one line end, even when the LF is in the next chunk.
          if (pos + 1 === length) this.#crPending = true
          else if (chunk[pos + 1] === LF) pos++
        }
        lineStart = ++pos
      }
    }
    if (lineStart < length) this.#stash(chunk, lineStart, length)
    if (text !== null && this.#dataLines !== 0) this.#unpin(text)
  }

  // One `data:` line and the blank line after it, nothing else of the event before (as LLM token streams send):
  // dispatched at once, its value a slice of the chunk's text, the event's buffers never written; false, having
  // done nothing, for any other line. (Out of line: inline, it slowed other lines.) "Nothing else" is read from the
  // cost: it is its ID's when no type was set, not even one emptied later (whose cost the dispatch would not clear).
  #dataEvent (chunk, start, end, text) {
    if (this.#eventSize !== this.#idCost || !isDataField(chunk, start, end) ||
        end - start + this.#eventSize > this.#maxEventSize) return false
    this.#lastEventId = this.#idBuffer
    this.#onEvent('message', text.slice(chunk[start + 5] === SPACE ? start + 6 : start + 5, end), this.#lastEventId)
    return true
  }

  // Ends the stream. An event without its closing blank line is discarded, and so is an unterminated last line
  // (HTML 9.2.6: "any pending data must be discarded"), unless options.incompleteEvent is 'dispatch' (an extension,
  // for streams that end where their producer stopped, as an LLM answer does): then that line is read, and the event
  // dispatched as a blank line would. A CR at the very end was already taken as a line end. Calling end() again
  // does nothing.
  end () {
    try {
      if (this.#dispatchesIncompleteEvent && !this.#ended && this.#error === null) {
        const generation = this.#generation
        if (this.#pendingLength !== 0) this.#joinedLine(NO_BYTES, 0, 0)
        if (this.#generation === generation) this.#dispatch()
      }
    } finally {
      this.#clearStream()
      this.#ended = true
    }
  }

  // Starts a new stream, as on reconnection: the BOM may appear again, all buffers are cleared, and the
  // last event ID string is kept. Browsers (Chromium's EventSourceParser, Firefox) seed the new stream's
  // last event ID buffer with it, so an event without an `id` field keeps the previous ID.
  reset () {
    this.#clearStream()
    this.#ended = false
    this.#error = null
  }

  #clearStream () {
    this.#generation++
    this.#bomMatched = 0
    this.#crPending = false
    this.#dropPending()
    this.#idBuffer = this.#lastEventId
    this.#idCost = idStringCost(this.#lastEventId)
    this.#pinned = 0
    this.#clearEvent()
  }

  #clearEvent () {
    this.#head = ''
    this.#data = ''
    this.#dataLines = 0
    this.#eventType = ''
    this.#eventSize = this.#idCost
  }

  // Out of line, once per write at most, when an event is still open at the end of an ASCII chunk: its data buffer
  // may hold slices of the chunk's text, which keep all of that text alive. Once the texts kept this way outweigh
  // both the data and PIN_SLACK, the data is copied out of them: memory stays within twice what is counted plus
  // PIN_SLACK, and the copies cost no more than the text written since the last one. The slack spares the common
  // case, an event cut in two by a chunk boundary, a copy per chunk.
  #unpin (text) {
    const pinned = this.#pinned += text.length
    if (pinned > PIN_SLACK && pinned > this.#head.length + this.#data.length) {
      this.#data = unshared(this.#head + this.#data)
      this.#head = ''
      this.#pinned = 0
    }
  }

  // Out of line: the leading BOM check and a CR left pending by the previous chunk. Returns where
  // the stream content of `chunk` starts.
  #resume (chunk, length) {
    let pos = 0
    if (this.#bomMatched !== BOM_DECIDED) {
      // Decide byte by byte: a BOM may arrive one byte per chunk.
      while (pos < length && this.#bomMatched < BOM.length && chunk[pos] === BOM[this.#bomMatched]) {
        this.#bomMatched++
        pos++
      }
      if (this.#bomMatched === BOM.length) {
        this.#bomMatched = BOM_DECIDED
      } else if (pos < length) {
        // Not a BOM after all: the bytes matched so far are the start of the first line.
        if (this.#bomMatched > 0) this.#stash(Uint8Array.from(BOM), 0, this.#bomMatched)
        this.#bomMatched = BOM_DECIDED
      }
      return pos
    }
    this.#crPending = false
    return chunk[0] === LF ? 1 : 0
  }

  // Keeps bytes [start, end) of `chunk` as the next piece of the pending line, within maxEventSize.
  #stash (chunk, start, end) {
    const length = end - start
    if ((this.#pendingLength += length) + this.#eventSize > this.#maxEventSize) this.#overflow()
    if (length >= LONG_LINE) {
      this.#seal()
      ;(this.#pieces ??= []).push(chunk.subarray(start, end))
      return
    }
    let scratch = this.#scratch
    if (scratch === null || this.#scratchUsed + length > SCRATCH_SIZE) {
      this.#seal()
      scratch = this.#scratch = spare ?? allocUnsafe(SCRATCH_SIZE)
      spare = null
      this.#scratchStart = this.#scratchUsed = 0
    }
    // A few bytes: copied one by one, cheaper than a view and set().
    let used = this.#scratchUsed
    for (let i = start; i < end; i++) scratch[used++] = chunk[i]
    this.#scratchUsed = used
  }

  // Turns the unsealed part of the scratch buffer into a piece, so that later pieces follow it in order.
  #seal () {
    if (this.#scratchUsed > this.#scratchStart) {
      ;(this.#pieces ??= []).push(this.#scratch.subarray(this.#scratchStart, this.#scratchUsed))
      this.#scratchStart = this.#scratchUsed
    }
  }

  // Nothing pending; the scratch buffer goes back to the spare, for this parser's next line or another's.
  #dropPending () {
    if (this.#scratch !== null) spare = this.#scratch
    this.#scratch = this.#pieces = null
    this.#pendingLength = this.#scratchStart = this.#scratchUsed = 0
  }

  // The pending line plus bytes [start, end) of `chunk` make one line, parsed once it is joined. Bytes are
  // read from the pieces before a callback can run, so the scratch buffer goes back to the spare first.
  #joinedLine (chunk, start, end) {
    const length = this.#pendingLength + end - start
    if (length + this.#eventSize > this.#maxEventSize) this.#overflow()
    const scratch = this.#scratch
    if (this.#pieces === null && end - start < LONG_LINE && this.#scratchUsed + end - start <= SCRATCH_SIZE) {
      // The common case of a short line cut in two: completed in the scratch buffer, and parsed there.
      const lineStart = this.#scratchStart
      this.#stash(chunk, start, end)
      const lineEnd = this.#scratchUsed
      this.#dropPending()
      this.#line(scratch, lineStart, lineEnd, null)
      return
    }
    this.#seal()
    const pieces = this.#pieces
    this.#dropPending()
    const first = pieces[0]
    // (Its first piece must hold the byte after the colon: a space there is not part of the value.)
    if (length >= LONG_DATA_LINE && first.length > 5 && isDataField(first, 0, first.length)) {
      // Each piece decoded on its own and appended: V8 keeps the text a rope of the pieces, and no buffer of
      // the whole line is made. Only when every piece is ASCII: a character may straddle two pieces.
      const last = chunk.subarray(start, end)
      if (isAscii(last) && pieces.every(isAscii)) {
        const skip = first[5] === SPACE ? 6 : 5
        let value = asciiSlice.call(first, skip, first.length)
        for (let i = 1; i < pieces.length; i++) value += asciiSlice.call(pieces[i], 0, pieces[i].length)
        this.#addValue(value + asciiSlice.call(last, 0, last.length), length - skip)
        return
      }
    }
    const line = allocUnsafe(length)
    let offset = 0
    for (const piece of pieces) {
      line.set(piece, offset)
      offset += piece.length
    }
    line.set(chunk.subarray(start, end), offset)
    this.#line(line, 0, length, null)
  }

  // Interprets one non-empty line, bytes [start, end) of `bytes`, terminator excluded (HTML 9.2.6).
  // `text` is the decoded chunk when `bytes` is an ASCII chunk, else null.
  #line (bytes, start, end, text) {
    // The limit counts the whole line, as it did while the line was pending, so whether an event is
    // too large does not depend on where the chunks were cut.
    if (end - start + this.#eventSize > this.#maxEventSize) this.#overflow()
    if (isDataField(bytes, start, end)) {
      this.#addData(bytes, start + 5 < end && bytes[start + 5] === SPACE ? start + 6 : start + 5, end, text)
      return
    }
    if (bytes[start] === COLON) {
      if (this.#onComment !== null) {
        this.#onComment(decode(bytes, start + 1 < end && bytes[start + 1] === SPACE ? start + 2 : start + 1, end, text))
      }
      return
    }
    this.#field(bytes, start, end, text)
  }

  // Any other field line: its name matched on its bytes against field-rules.js's names, then a colon
  // or the end of the line (a name alone has an empty value); any other line is an unknown field.
  #field (bytes, start, end, text) {
    // FIELD_NAMES spelled out on their bytes, by first letter (test/parser/parser-field-rules.test.cjs holds them
    // to the same names): a loop over the names' codes made streams of `id`, `event` and `retry` lines slower.
    let kind = FIELD_UNKNOWN
    let nameEnd = start
    switch (bytes[start]) {
      case 0x64: // without a colon (`data:` was handled by #line)
        if (end - start >= 4 && bytes[start + 1] === 0x61 && bytes[start + 2] === 0x74 && bytes[start + 3] === 0x61) {
          kind = FIELD_DATA
          nameEnd = start + 4
        }
        break
      case 0x65:
        if (end - start >= 5 && bytes[start + 1] === 0x76 && bytes[start + 2] === 0x65 && bytes[start + 3] === 0x6e &&
            bytes[start + 4] === 0x74) {
          kind = FIELD_EVENT
          nameEnd = start + 5
        }
        break
      case 0x69:
        if (end - start >= 2 && bytes[start + 1] === 0x64) {
          kind = FIELD_ID
          nameEnd = start + 2
        }
        break
      case 0x72:
        if (end - start >= 5 && bytes[start + 1] === 0x65 && bytes[start + 2] === 0x74 && bytes[start + 3] === 0x72 &&
            bytes[start + 4] === 0x79) {
          kind = FIELD_RETRY
          nameEnd = start + 5
        }
    }
    // Any other name: "the field is ignored". A known one ends the line or is followed by its colon.
    if (kind === FIELD_UNKNOWN) return
    let valueStart = end
    if (nameEnd < end) {
      if (bytes[nameEnd] !== COLON) return
      valueStart = nameEnd + 1 < end && bytes[nameEnd + 1] === SPACE ? nameEnd + 2 : nameEnd + 1
    }
    if (kind === FIELD_DATA) {
      this.#addData(bytes, valueStart, end, text)
    } else if (kind === FIELD_RETRY) {
      this.#setRetry(bytes, valueStart, end, text)
    } else if (kind === FIELD_ID) {
      // "If the field value does not contain U+0000 NULL, then set the last event ID buffer to the field
      // value." A NUL byte in UTF-8 is exactly U+0000, so the check needs no decoding.
      for (let i = valueStart; i < end; i++) {
        if (bytes[i] === NUL) return
      }
      const id = this.#idBuffer = decode(bytes, valueStart, end, text)
      // It replaces the ID buffer's value, which may live on as the last event ID string until the next
      // dispatch: that one was counted for the event that set it.
      const cost = text !== null ? end - valueStart : valueCost(id, end - valueStart)
      this.#eventSize += cost - this.#idCost
      this.#idCost = cost
    } else {
      // A type it replaces is freed, but still counted: a repeated `event:` line is rare, and
      // counting it costs an event nothing on the common path.
      const type = this.#eventType = decode(bytes, valueStart, end, text)
      this.#eventSize += text !== null ? end - valueStart : valueCost(type, end - valueStart)
    }
  }

  // `retry`, as field-rules.js's retryValue() reads it, on the bytes: only ASCII digits make a reconnection
  // time (an empty value does not, as in Chromium and Firefox). Huge values are passed on as they are
  // (possibly Infinity); clamping them to what a timer takes is the consumer's business.
  #setRetry (bytes, start, end, text) {
    if (start === end) return
    let ms = 0
    for (let i = start; i < end; i++) {
      const digit = digitValue(bytes[i])
      if (digit === -1) return
      ms = ms * 10 + digit
    }
    // Past that many digits the sum was rounded at each step: read the number again, rounded once,
    // as parseInt() does.
    if (end - start > EXACT_DIGITS) ms = retryValue(decode(bytes, start, end, text))
    if (this.#onRetry !== null) this.#onRetry(ms)
  }

  // A data line's value, decoded: one from an ASCII chunk's text is ASCII, only others can cost two bytes per unit.
  #addData (bytes, start, end, text) {
    const value = decode(bytes, start, end, text)
    this.#addValue(value, text !== null ? end - start : valueCost(value, end - start))
  }

  // A data line's value, which costs `cost` (its LF excluded).
  #addValue (value, cost) {
    const lines = this.#dataLines++
    this.#data = appendData(this.#data, lines, value)
    this.#eventSize += cost + 1
    if (lines % TAIL_LINES !== TAIL_LINES - 1) return
    this.#head = joinTail(this.#head, this.#data)
    this.#data = ''
  }

  // HTML 9.2.6 "dispatch the event", steps 1-3 and the reset of the buffers. Building and firing a
  // MessageEvent is the consumer's part.
  #dispatch () {
    this.#lastEventId = this.#idBuffer
    if (this.#dataLines === 0) {
      this.#eventType = ''
      this.#eventSize = this.#idCost
      return
    }
    const type = this.#eventType === '' ? 'message' : this.#eventType
    const data = this.#head + this.#data
    this.#clearEvent()
    this.#onEvent(type, data, this.#lastEventId)
  }

  // The event (pending line included) grew past maxEventSize: drop what is buffered and fail until
  // reset(), so a hostile stream cannot grow memory and a caller cannot silently lose part of it.
  #overflow () {
    this.#clearStream()
    this.#error = new ERR_EVENTSOURCE_EVENT_TOO_LARGE(this.#maxEventSize)
    throw this.#error
  }
}

export { EventStreamParser }
