// EventStreamParser, compact: the byte parser of ./parser.js without its fast paths, for browsers and
// workers (package.json's "imports" maps `#stream-parser` here for any runtime that does not match the
// `node` condition; Node, Bun and Deno get ./parser.js). Same interface, same callbacks in the same order,
// same limit counted the same way and reached at the same byte, same errors: test/parser/parser-compact.test.cjs
// holds the two to that on random streams, chunkings, limits and callbacks that reset or end.
// What it leaves out is what makes ./parser.js fast on Node: the ASCII chunk decoded once with values
// sliced from it (and the bookkeeping that keeps those slices from pinning the chunk), indexOf on long
// lines, the one-line event dispatched at once, the pending line kept as pieces in a scratch buffer.
// Here each value is decoded on its own (TextDecoder, in a browser), and a line that spans chunks is
// copied into one buffer that doubles as it grows: linear in the bytes, at most twice the line held.
// The trade, measured with esbuild (npm run size) and in Chromium 2026-11-26: a browser bundle of the
// EventSource 1,081 B smaller gzipped (10,484 -> 9,403), EventSourceParser's 1,111 B (3,576 -> 2,465);
// parsing takes 1.1x to 1.2x ./parser.js's time on long or non-ASCII values, 2x on LLM-token events in
// 1 KiB chunks and 8x on 9-byte events in 64 KiB chunks, where a TextDecoder call per value is most of
// it (250 ns per event, against 1.2 us to make and dispatch its MessageEvent there).
// https://html.spec.whatwg.org/multipage/server-sent-events.html#parsing-an-event-stream

import { utf8Slice, isUint8Array, allocUnsafe } from '#bytes'
import { LF, CR, SPACE, COLON, NUL, BOM, DEFAULT_MAX_EVENT_SIZE } from '../constants.js'
import {
  FIELD_CODES, FIELD_DATA, FIELD_EVENT, FIELD_ID, FIELD_RETRY, TAIL_LINES, fieldStartingWith, retryValue, appendData, joinTail
} from './field-rules.js'
import { codes as argumentsCodes } from '../errors/arguments.js'
import { codes as parserCodes } from '../errors/parser.js'
import { valueCost, idStringCost } from './values.js'
const { ERR_INVALID_ARG_TYPE } = argumentsCodes
const { ERR_EVENTSOURCE_EVENT_TOO_LARGE, ERR_EVENTSOURCE_WRITE_AFTER_END } = parserCodes

// #bomMatched once the start of the stream is decided (a BOM dropped, or none there).
const BOM_DECIDED = -1

class EventStreamParser {
  #onEvent
  #onRetry
  #onComment
  #maxEventSize

  // Stream state, as ./parser.js has it.
  #bomMatched = 0
  #crPending = false
  #ended = false
  #error = null
  #generation = 0
  // The line being read, when it spans chunks: its bytes [0, #pendingLength) of #pending.
  #pending = null
  #pendingLength = 0
  // Event state (HTML 9.2.6) and what it costs, counted as ./parser.js counts it.
  #head = ''
  #data = ''
  #dataLines = 0
  #eventType = ''
  #idBuffer
  #lastEventId
  #eventSize
  #idCost

  /** @param {object} options as ./parser.js takes them */
  constructor (options) {
    const { onEvent, onRetry, onComment, maxEventSize = DEFAULT_MAX_EVENT_SIZE, lastEventId = '' } = options
    this.#onEvent = onEvent
    this.#onRetry = onRetry ?? null
    this.#onComment = onComment ?? null
    this.#maxEventSize = maxEventSize
    this.#idBuffer = this.#lastEventId = lastEventId
    this.#eventSize = this.#idCost = idStringCost(lastEventId)
  }

  get lastEventId () {
    return this.#lastEventId
  }

  /** @param {Uint8Array} chunk */
  write (chunk) {
    if (!isUint8Array(chunk)) throw new ERR_INVALID_ARG_TYPE('chunk', 'an instance of Buffer or Uint8Array', chunk)
    if (this.#ended) throw new ERR_EVENTSOURCE_WRITE_AFTER_END()
    if (this.#error !== null) throw this.#error
    // end() or reset() called from a callback abandons the rest of this chunk.
    const generation = this.#generation
    const length = chunk.length
    if (length === 0) return
    let pos = 0
    if (this.#bomMatched !== BOM_DECIDED) {
      // A BOM may arrive one byte per chunk: decide byte by byte.
      while (pos < length && this.#bomMatched < BOM.length && chunk[pos] === BOM[this.#bomMatched]) {
        this.#bomMatched++
        pos++
      }
      if (this.#bomMatched === BOM.length) {
        this.#bomMatched = BOM_DECIDED
      } else if (pos < length) {
        // Not a BOM after all: the bytes matched so far start the first line.
        if (this.#bomMatched > 0) this.#stash(Uint8Array.from(BOM), 0, this.#bomMatched)
        this.#bomMatched = BOM_DECIDED
      }
    } else if (this.#crPending) {
      // CRLF is one line end, even when the LF is in the next chunk.
      this.#crPending = false
      if (chunk[0] === LF) pos = 1
    }
    let lineStart = pos
    for (; pos < length; pos++) {
      const byte = chunk[pos]
      if (byte > CR || (byte !== LF && byte !== CR)) continue
      if (this.#pendingLength !== 0) {
        this.#stash(chunk, lineStart, pos)
        const line = this.#pending
        const end = this.#pendingLength
        this.#pending = null
        this.#pendingLength = 0
        this.#line(line, 0, end)
      } else if (pos === lineStart) {
        this.#dispatch()
      } else {
        this.#line(chunk, lineStart, pos)
      }
      if (this.#generation !== generation) return
      if (byte === CR) {
        if (pos + 1 === length) this.#crPending = true
        else if (chunk[pos + 1] === LF) pos++
      }
      lineStart = pos + 1
    }
    if (lineStart < length) this.#stash(chunk, lineStart, length)
  }

  end () {
    this.#clearStream()
    this.#ended = true
  }

  reset () {
    this.#clearStream()
    this.#ended = false
    this.#error = null
  }

  #clearStream () {
    this.#generation++
    this.#bomMatched = 0
    this.#crPending = false
    this.#pending = null
    this.#pendingLength = 0
    this.#idBuffer = this.#lastEventId
    this.#idCost = idStringCost(this.#lastEventId)
    this.#clearEvent()
  }

  #clearEvent () {
    this.#head = ''
    this.#data = ''
    this.#dataLines = 0
    this.#eventType = ''
    this.#eventSize = this.#idCost
  }

  // Adds bytes [start, end) of `chunk` to the pending line, within maxEventSize.
  #stash (chunk, start, end) {
    const length = this.#pendingLength + end - start
    let pending = this.#pending
    if (pending === null || length > pending.length) {
      // Doubling: each byte is copied at most twice on its way in, whatever the chunking.
      const grown = allocUnsafe(length > 64 ? 2 * length : 128)
      if (pending !== null) grown.set(pending.subarray(0, this.#pendingLength))
      pending = this.#pending = grown
    }
    pending.set(chunk.subarray(start, end), this.#pendingLength)
    this.#pendingLength = length
    if (length + this.#eventSize > this.#maxEventSize) this.#overflow()
  }

  // Interprets one non-empty line, bytes [start, end) of `bytes` (HTML 9.2.6): a comment, or a field
  // whose name runs to the first colon (the whole line without one) and whose value follows the colon,
  // one leading space removed.
  #line (bytes, start, end) {
    if (end - start + this.#eventSize > this.#maxEventSize) this.#overflow()
    let colon = start
    while (colon < end && bytes[colon] !== COLON) colon++
    const valueStart = colon + 1 < end && bytes[colon + 1] === SPACE ? colon + 2 : colon + 1
    if (colon === start) {
      if (this.#onComment !== null) this.#onComment(utf8Slice.call(bytes, valueStart, end))
      return
    }
    const kind = fieldStartingWith(bytes[start])
    const name = FIELD_CODES[kind]
    if (colon - start !== name.length) return
    for (let i = 1; i < name.length; i++) {
      if (bytes[start + i] !== name[i]) return
    }
    const from = valueStart < end ? valueStart : end
    // `id`: "If the field value does not contain U+0000 NULL": a NUL byte in UTF-8 is exactly U+0000.
    if (kind === FIELD_ID && bytes.subarray(from, end).includes(NUL)) return
    const value = utf8Slice.call(bytes, from, end)
    if (kind === FIELD_RETRY) {
      const ms = retryValue(value)
      if (ms !== -1 && this.#onRetry !== null) this.#onRetry(ms)
      return
    }
    const cost = valueCost(value, end - from)
    switch (kind) {
      case FIELD_DATA: {
        // "Append the field value to the data buffer, then append a single U+000A LINE FEED (LF)": the
        // LF counted here and added before the next value, and the buffer kept as a head and the rope
        // of its last lines, as ./parser.js does.
        const lines = this.#dataLines++
        this.#data = appendData(this.#data, lines, value)
        this.#eventSize += cost + 1
        if (lines % TAIL_LINES === TAIL_LINES - 1) {
          this.#head = joinTail(this.#head, this.#data)
          this.#data = ''
        }
        return
      }
      case FIELD_EVENT:
        this.#eventType = value
        this.#eventSize += cost
        return
      default: // FIELD_ID
        this.#idBuffer = value
        this.#eventSize += cost - this.#idCost
        this.#idCost = cost
    }
  }

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

  #overflow () {
    this.#clearStream()
    this.#error = new ERR_EVENTSOURCE_EVENT_TOO_LARGE(this.#maxEventSize)
    throw this.#error
  }
}

export { EventStreamParser }
