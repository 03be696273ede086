'use strict'

// createParser(): a drop-in for eventsource-parser's (version 4), on EventSourceParser. Strings in,
// eventsource-parser's callbacks out, with its results wherever they differ from the standard's
// interpretation as EventSourceParser reports it. Each difference is copied on purpose; the comments
// say which:
// - an event's `event` is undefined when the block named no type (or an empty one), never "message";
//   its `id` is the ID this block set, undefined when it set none: IDs do not carry over;
// - `onId(id)` at the end of every block that set an ID, before `onEvent`, with or without data;
// - `onError(ParseError)` for unknown fields and for `retry` values that are not all digits (empty
//   ones included), which the standard ignores silently;
// - a line that cannot become a known field (or a comment, when there is no onComment) is dropped while
//   it is still incomplete, without an onError, and is not buffered;
// - one BOM is dropped from the start of a stream, decoded (U+FEFF) or as its three bytes read as
//   Latin-1 ("\xEF\xBB\xBF", which may come one character per feed);
// - `maxBufferSize`: characters (UTF-16 units) of the incomplete line plus the event's data buffer,
//   checked where eventsource-parser checks them; past it, onError and a parser that throws until
//   reset();
// - `reset({ consume: true })` parses the incomplete line as a complete one first;
// - reset() from a callback forgets the event being read but goes on with the rest of the chunk.
//
// How it sits on the byte parser: this layer owns what happens at the boundaries between feeds, the
// part of eventsource-parser's behaviour that depends on how the stream was cut (the BOM, a CR at the
// end of a feed, the incomplete line and the decision to drop it). It keeps the incomplete line as
// strings, as eventsource-parser does, and hands EventSourceParser only complete lines, encoded as
// UTF-8. So a surrogate pair cut in two by a feed boundary is whole when it is encoded, and the byte
// parser never holds a line or a CR across writes: everything it reports happens during the write of
// the feed that completed the line, as in eventsource-parser. Lines, fields, values and events are
// EventSourceParser's work; its hooks (the kDropIn option) report what the standard leaves implicit.
// One shortcut: whole blocks of `data:`, `event:` and `id:` lines at the start of a feed, the shape of
// nearly every event of an LLM token stream, are parsed here on the string (#simpleEvents), as
// eventsource-parser parses them; encoding such a feed for the byte parser cost more than
// eventsource-parser spends on the whole of it.
//
// One difference is left: a lone surrogate (half a pair that never gets its other half; TextDecoder
// and TextDecoderStream never make one) becomes U+FFFD, as UTF-8 cannot encode it.

const { Buffer } = require('node:buffer')
const { EventSourceParser } = require('./parser/parser')
const { ParseError } = require('./parse-error')
const { LF, CR, SPACE, COLON, kDropIn, kWriteText, kClearEvent, kDataLength, kEventEmpty } = require('./constants')
const { codes: { ERR_INVALID_ARG_TYPE, ERR_EVENTSOURCE_PARSER_TERMINATED } } = require('./errors')
const { validateObject, validateNumber, validateOptionalFunction } = require('./validators')

// Buffer's UTF-8 encoder, into a buffer we own: no Buffer allocated per feed.
const { utf8Write } = Buffer.prototype

// An incomplete line shorter than this may still turn out not to be a field: `event:`, `retry:` and
// their colon are 6 characters (eventsource-parser's MAX_FIELD_PREFIX_LENGTH).
const FIELD_PREFIX = 6
// The encoding buffer grows to fit what a feed completes, up to this size; a larger text gets a buffer
// of its own, which is not kept.
const MAX_SCRATCH = 64 * 1024
// Texts up to this long are encoded by a loop here: a call into C++ costs as much as about 25
// characters of it (measured in instructions on Node 20).
const SHORT_TEXT = 24
// How far from its end lastLineEnd() looks for a line end by itself.
const BACKWARD_SCAN = 256
// Whether #simpleEvents() may parse a feed itself: it needs String#isWellFormed (ES2024), which older
// browsers lack; there, every feed takes the general path.
const SIMPLE_EVENTS = typeof String.prototype.isWellFormed === 'function'

// Writes `text` into `bytes` and returns its length when it is all ASCII; -1 when it is not.
function encodeAscii (bytes, text) {
  const length = text.length
  for (let i = 0; i < length; i++) {
    const code = text.charCodeAt(i)
    if (code > 0x7f) return -1
    bytes[i] = code
  }
  return length
}

// The index of the last line end in `chunk`, or -1. Most feeds end with one; String#lastIndexOf is a
// call into the runtime that costs more than a short loop from the end.
function lastLineEnd (chunk) {
  const stop = chunk.length > BACKWARD_SCAN ? chunk.length - BACKWARD_SCAN : 0
  for (let i = chunk.length - 1; i >= stop; i--) {
    const code = chunk.charCodeAt(i)
    if (code === LF || code === CR) return i
  }
  if (stop === 0) return -1
  // A long last line: indexOf answers at memchr speed whether there is a line end at all.
  const lf = chunk.indexOf('\n') === -1 ? -1 : chunk.lastIndexOf('\n', stop - 1)
  const cr = chunk.indexOf('\r') === -1 ? -1 : chunk.lastIndexOf('\r', stop - 1)
  return lf > cr ? lf : cr
}

// Could `line`, incomplete, still become a field the parser uses? (eventsource-parser's
// shouldBufferTrailing: a prefix of `name`, or `name` and its colon, for one of the four names, or a
// comment when comments are reported.)
function couldBeField (line, commentsWanted) {
  switch (line.charCodeAt(0)) {
    case COLON: return commentsWanted
    case 0x64: return isPrefixOf(line, 'data')
    case 0x65: return isPrefixOf(line, 'event')
    case 0x69: return isPrefixOf(line, 'id')
    case 0x72: return isPrefixOf(line, 'retry')
    default: return false
  }
}

// Whether the line at `start` of `chunk` is a `data` field with a colon (`data:`).
function isDataField (chunk, start) {
  return chunk.charCodeAt(start) === 0x64 && chunk.charCodeAt(start + 1) === 0x61 &&
    chunk.charCodeAt(start + 2) === 0x74 && chunk.charCodeAt(start + 3) === 0x61 && chunk.charCodeAt(start + 4) === COLON
}

// Whether the line at `start` of `chunk` is an `event` field with a colon (`event:`).
function isEventField (chunk, start) {
  return chunk.charCodeAt(start) === 0x65 && chunk.charCodeAt(start + 1) === 0x76 && chunk.charCodeAt(start + 2) === 0x65 &&
    chunk.charCodeAt(start + 3) === 0x6e && chunk.charCodeAt(start + 4) === 0x74 && chunk.charCodeAt(start + 5) === COLON
}

function isPrefixOf (line, name) {
  const n = line.length < name.length ? line.length : name.length
  for (let i = 1; i < n; i++) {
    if (line.charCodeAt(i) !== name.charCodeAt(i)) return false
  }
  return line.length <= name.length || line.charCodeAt(name.length) === COLON
}

class DropInParser {
  #parser
  #onEvent
  #onId
  #onError
  #commentsWanted
  #maxBufferSize

  // The start of a stream: what may still be a BOM ('' before anything came), or undefined once the
  // first characters have been seen.
  #bomPrefix = ''
  // The incomplete line: its pieces, joined once when its end arrives (joining per feed would copy a
  // long line once per feed), and their length in characters.
  #pending = []
  #pendingLength = 0
  // #skippingLine: the current line cannot become a field and is being dropped up to its end.
  // #skipNextLineFeed: the last feed ended with CR, so an LF at the start of the next is its CRLF.
  #skippingLine = false
  #skipNextLineFeed = false
  // Set by an overflow of maxBufferSize: feed() throws until reset().
  #terminated = false
  // Counts overflows, so a feed notices one that happened while it wrote (its onError may have
  // called reset() already).
  #overflows = 0
  // Counts reset() calls, so a dispatch notices one made by onId.
  #resets = 0
  // Whether the text being written came from a feed with a CR in it (see dataOverLimit), and whether a
  // write is under way (a feed or reset() from a callback must not reuse the encoding buffer, and a
  // reset() must not drop the rest of it), and whether it is reset({ consume }) writing.
  #inputHasCR = false
  #writing = false
  #consuming = false
  #scratch = Buffer.allocUnsafe(1024)

  /** Whether EventSourceParser is to ask dataOverLimit() before each line and at each dispatch. */
  limitsData

  constructor (config) {
    if (typeof config === 'function') {
      throw new ERR_INVALID_ARG_TYPE('config', 'an object (did you mean createParser({ onEvent: fn })?)', config)
    }
    validateObject(config, 'config')
    // eventsource-parser calls each callback that is there (`onEvent?.()`): null is as good as absent.
    const onEvent = config.onEvent ?? undefined
    const onId = config.onId ?? undefined
    const onRetry = config.onRetry ?? undefined
    const onComment = config.onComment ?? undefined
    const onError = config.onError ?? undefined
    const { maxBufferSize } = config
    validateOptionalFunction(onEvent, 'config.onEvent')
    validateOptionalFunction(onId, 'config.onId')
    validateOptionalFunction(onRetry, 'config.onRetry')
    validateOptionalFunction(onComment, 'config.onComment')
    validateOptionalFunction(onError, 'config.onError')
    if (maxBufferSize !== undefined) validateNumber(maxBufferSize, 'config.maxBufferSize', 0, Infinity)
    this.#onEvent = onEvent ?? null
    this.#onId = onId ?? null
    this.#onError = onError ?? null
    this.#commentsWanted = onComment !== undefined
    this.#maxBufferSize = maxBufferSize ?? Infinity
    this.limitsData = this.#maxBufferSize !== Infinity
    this.#parser = new EventSourceParser({
      onEvent: notCalled,
      onRetry,
      onComment,
      // eventsource-parser buffers without a limit unless maxBufferSize is given.
      maxEventSize: Infinity,
      [kDropIn]: this
    })
  }

  /** @param {string} chunk */
  feed (chunk) {
    if (typeof chunk !== 'string') throw new ERR_INVALID_ARG_TYPE('chunk', 'of type string', chunk)
    if (this.#terminated) throw new ERR_EVENTSOURCE_PARSER_TERMINATED()
    if (this.#bomPrefix !== undefined) {
      chunk = this.#startOfStream(chunk)
      if (chunk === null) return
    }
    if (this.#skippingLine || this.#skipNextLineFeed) {
      chunk = this.#resumeAfterSkip(chunk)
      if (chunk === '') return
    }
    if (SIMPLE_EVENTS && this.#pending.length === 0) {
      chunk = this.#simpleEvents(chunk)
      if (chunk === '') return
    }
    const last = lastLineEnd(chunk)
    if (last === -1) {
      this.#extendLine(chunk)
      return
    }
    // Complete lines: the incomplete one so far, and this feed up to its last line end.
    let text = last === chunk.length - 1 ? chunk : chunk.slice(0, last + 1)
    if (this.#pending.length !== 0) {
      this.#pending.push(text)
      text = this.#pending.join('')
      this.#pending = []
      this.#pendingLength = 0
    }
    const overflows = this.#overflows
    this.#write(text)
    // An overflow drops the rest of the feed, as in eventsource-parser.
    if (this.#overflows !== overflows) return
    if (last === chunk.length - 1) {
      // eventsource-parser takes a CR that ends a feed as a line end at once (the line was parsed),
      // and swallows an LF that starts the next feed.
      if (chunk.charCodeAt(last) === CR) this.#skipNextLineFeed = true
    } else {
      this.#storeIncomplete(chunk.slice(last + 1))
    }
    this.#checkBuffered()
  }

  /** @param {{ consume?: boolean }} [options] */
  reset (options) {
    if (options?.consume && this.#pending.length !== 0) {
      // eventsource-parser parses the incomplete line as if it had ended (with no check of
      // maxBufferSize): its fields take effect, and the reset below forgets the event.
      const line = this.#pending.join('')
      this.#pending = []
      this.#pendingLength = 0
      this.#consuming = true
      try {
        this.#write(line + '\n')
      } finally {
        this.#consuming = false
      }
    }
    this.#resets++
    this.#bomPrefix = ''
    this.#pending = []
    this.#pendingLength = 0
    this.#terminated = false
    this.#skippingLine = false
    this.#skipNextLineFeed = false
    // From a callback: eventsource-parser forgets the event being read but parses the rest of the
    // chunk. Otherwise the byte parser starts over.
    if (this.#writing) this.#parser[kClearEvent]()
    else this.#parser.reset()
  }

  // The first characters of a stream: wait while they may still be the three bytes of a BOM read as
  // Latin-1 (eventsource-parser holds back "", "\xEF" and "\xEF\xBB"), then drop one BOM, decoded or
  // not. Returns the rest of the chunk, or null to wait.
  #startOfStream (chunk) {
    chunk = this.#bomPrefix + chunk
    if (chunk === '' || chunk === '\xEF' || chunk === '\xEF\xBB') {
      this.#bomPrefix = chunk
      return null
    }
    this.#bomPrefix = undefined
    if (chunk.charCodeAt(0) === 0xfeff) return chunk.slice(1)
    if (chunk.startsWith('\xEF\xBB\xBF')) return chunk.slice(3)
    return chunk
  }

  // The common events, parsed here on the string, without encoding it for the byte parser: a feed
  // without CR (eventsource-parser's fast path takes those too) that starts with whole blocks, each
  // made only of `data:`, `event:` and `id:` lines and ended by a blank line. LLM token streams send
  // one such event per feed (`data:` alone, or `event:` and `data:`), as do MCP servers (`event:`,
  // `id:`, `data:`). Only while nothing is pending (no incomplete line, no field of an event read by the
  // byte parser). For such a block the standard and eventsource-parser agree, and so does this drop-in
  // whichever path takes it: each value loses one leading space; `data:` lines are joined with LF; the
  // last `event:` line gives the type ('' for none); an `id:` value with U+0000 is ignored. The first
  // block with any other line, or not ended in this feed, goes to the general path with the rest of
  // the feed, before anything of it was reported. So does one that eventsource-parser would stop for
  // maxBufferSize: its data past the limit after a line that does not dispatch at once. A feed with a
  // lone surrogate takes the general path whole, where it becomes U+FFFD (UTF-8 cannot encode it); in
  // any other feed, the values, cut at ASCII characters, cannot hold one. isWellFormed() answers at
  // once for a string V8 stores at one byte per character, which cannot hold a surrogate.
  // Returns the rest of the feed ('' when nothing is left, or when an overflow in a callback's feed
  // dropped it).
  #simpleEvents (chunk) {
    if (chunk.indexOf('\r') !== -1 || !chunk.isWellFormed()) return chunk
    const overflows = this.#overflows
    let start = 0
    // `start`: where the first block not parsed here begins. Every exit but an overflow's returns the
    // feed from there, for the general path.
    while (start < chunk.length && this.#pending.length === 0 && this.#parser[kEventEmpty]) {
      let end = chunk.indexOf('\n', start)
      if (end === -1) break
      if (chunk.charCodeAt(end + 1) === LF && isDataField(chunk, start)) {
        // One `data:` line and the blank line: most events of an LLM token stream.
        const data = chunk.slice(chunk.charCodeAt(start + 5) === SPACE ? start + 6 : start + 5, end)
        start = end + 2
        if (this.#onEvent !== null) {
          this.#onEvent({ id: undefined, event: undefined, data })
          if (this.#overflows !== overflows) return ''
        }
        continue
      }
      let type = ''
      let id
      let data = null
      let dataLines = 0
      let pos = start
      while (end !== pos) {
        if (end === -1) return start === 0 ? chunk : chunk.slice(start)
        const first = chunk.charCodeAt(pos)
        if (first === 0x64 && isDataField(chunk, pos)) {
          const value = chunk.slice(chunk.charCodeAt(pos + 5) === SPACE ? pos + 6 : pos + 5, end)
          data = dataLines++ === 0 ? value : `${data}\n${value}`
          // eventsource-parser checks the data buffer after each line, except a first data line that
          // its blank line follows at once.
          if (data.length > this.#maxBufferSize && (dataLines > 1 || chunk.charCodeAt(end + 1) !== LF)) return start === 0 ? chunk : chunk.slice(start)
        } else if (first === 0x65 && isEventField(chunk, pos)) {
          type = chunk.slice(chunk.charCodeAt(pos + 6) === SPACE ? pos + 7 : pos + 6, end)
        } else if (first === 0x69 && chunk.charCodeAt(pos + 1) === 0x64 && chunk.charCodeAt(pos + 2) === COLON) {
          const value = chunk.slice(chunk.charCodeAt(pos + 3) === SPACE ? pos + 4 : pos + 3, end)
          if (value.indexOf('\0') === -1) id = value
        } else {
          return start === 0 ? chunk : chunk.slice(start)
        }
        pos = end + 1
        end = chunk.indexOf('\n', pos)
      }
      start = pos + 1
      this.dispatch(type, data, id)
      if (this.#overflows !== overflows) return ''
    }
    return start === 0 ? chunk : chunk.slice(start)
  }

  // After a feed that ended with CR, or while a line is dropped: returns what is left of `chunk`.
  #resumeAfterSkip (chunk) {
    if (chunk === '') return chunk
    if (this.#skipNextLineFeed) {
      this.#skipNextLineFeed = false
      return chunk.charCodeAt(0) === LF ? chunk.slice(1) : chunk
    }
    const cr = chunk.indexOf('\r')
    const lf = chunk.indexOf('\n')
    const end = cr === -1 ? lf : lf === -1 || cr < lf ? cr : lf
    if (end === -1) return ''
    this.#skippingLine = false
    if (end === chunk.length - 1 && cr === end) {
      this.#skipNextLineFeed = true
      return ''
    }
    return chunk.slice(cr === end && chunk.charCodeAt(end + 1) === LF ? end + 2 : end + 1)
  }

  // A feed without a line end: the incomplete line grows, or is dropped once it cannot be a field.
  #extendLine (chunk) {
    if (this.#pending.length === 0) {
      if (chunk !== '') this.#storeIncomplete(chunk)
    } else {
      if (this.#pendingLength < FIELD_PREFIX) {
        const head = this.#pending.join('') + chunk.slice(0, FIELD_PREFIX - this.#pendingLength)
        if (!couldBeField(head, this.#commentsWanted)) {
          this.#pending = []
          this.#pendingLength = 0
          this.#skippingLine = true
          return
        }
      }
      this.#pending.push(chunk)
      this.#pendingLength += chunk.length
    }
    this.#checkBuffered()
  }

  // What follows the last line end of a feed: kept if it may become a field, else dropped up to its end.
  #storeIncomplete (line) {
    if (couldBeField(line, this.#commentsWanted)) {
      this.#pending.push(line)
      this.#pendingLength = line.length
    } else {
      this.#skippingLine = true
    }
  }

  // Complete lines to the byte parser, as UTF-8, with the text itself when it is ASCII (its values are
  // then slices of it, as eventsource-parser's are of its chunks). `text` ends with a line end. A run
  // of CRs that ends it is written as LFs: each is a line end of its own (eventsource-parser does not
  // wait for an LF to pair with the last), and the byte parser must not keep a CR pending for the next
  // write, which may not start where this one ends (a line dropped between them): #skipNextLineFeed
  // stands in for it.
  #write (text) {
    const nested = this.#writing
    const characters = text.length
    let bytes = null
    let length = -1
    // The encoding buffer is reused (the byte parser keeps nothing of a write that ends with a line
    // end), unless a callback feeds while it is being parsed. Three bytes per character are always
    // enough; a long text is measured instead.
    if (!nested) {
      let needed = characters * 3
      if (needed > this.#scratch.length && needed > MAX_SCRATCH) needed = Buffer.byteLength(text, 'utf8')
      if (needed <= this.#scratch.length) {
        bytes = this.#scratch
      } else if (needed <= MAX_SCRATCH) {
        bytes = this.#scratch = Buffer.allocUnsafe(Math.min(MAX_SCRATCH, Math.max(needed, this.#scratch.length * 2)))
      }
    }
    if (bytes === null) {
      bytes = Buffer.from(text, 'utf8')
      length = bytes.length
    } else {
      if (characters <= SHORT_TEXT) length = encodeAscii(bytes, text)
      if (length === -1) length = utf8Write.call(bytes, text, 0)
    }
    // (What follows the last line end has none: this is whether the feed has one.)
    const hasCR = text.indexOf('\r') !== -1
    this.#inputHasCR = hasCR
    // As many bytes as characters: all ASCII (anything else takes two or more bytes per character).
    let ascii = length === characters ? text : null
    if (bytes[length - 1] === CR) {
      let i = length - 1
      for (; i >= 0 && bytes[i] === CR; i--) bytes[i] = LF
      if (ascii !== null) ascii = ascii.slice(0, i + 1) + '\n'.repeat(length - 1 - i)
    }
    this.#writing = true
    try {
      this.#parser[kWriteText](bytes, length, ascii, !hasCR)
    } finally {
      this.#writing = nested
    }
  }

  // eventsource-parser's check at the end of a feed: the incomplete line plus the data buffer.
  #checkBuffered () {
    if (this.#maxBufferSize === Infinity || this.#terminated) return
    if (this.#pendingLength + this.#parser[kDataLength] > this.#maxBufferSize) this.#overflow()
  }

  #overflow () {
    this.#terminated = true
    this.#overflows++
    this.#pending = []
    this.#pendingLength = 0
    this.#skippingLine = false
    this.#skipNextLineFeed = false
    // Drops the event, and the rest of the text being written.
    this.#parser.reset()
    if (this.#onError !== null) {
      this.#onError(new ParseError(`Buffered data exceeded max buffer size of ${this.#maxBufferSize} characters`, {
        type: 'max-buffer-size-exceeded'
      }))
    }
  }

  // ---- hooks EventSourceParser calls (kDropIn) ----

  /**
   * The end of a block: `type` as given ('' for none), `data` or null without a data line, `id` when
   * the block set one.
   */
  dispatch (type, data, id) {
    if (id !== undefined && this.#onId !== null) {
      const resets = this.#resets
      this.#onId(id)
      // reset() from onId forgets the event before eventsource-parser dispatches it (except on its
      // fast path for a one-line event, which still dispatches it, with neither ID nor type: a
      // difference this drop-in does not copy).
      if (this.#resets !== resets) return
    }
    if (data !== null && this.#onEvent !== null) this.#onEvent({ id, event: type === '' ? undefined : type, data })
  }

  unknownField (field, value, line) {
    if (this.#onError === null) return
    const shown = field.length > 20 ? `${field.slice(0, 20)}…` : field
    this.#onError(new ParseError(`Unknown field "${shown}"`, { type: 'unknown-field', field, value, line }))
  }

  invalidRetry (value, line) {
    if (this.#onError !== null) this.#onError(new ParseError(`Invalid \`retry\` value: "${value}"`, { type: 'invalid-retry', value, line }))
  }

  /**
   * Before each line and at each dispatch, while maxBufferSize is set: did the line before take the
   * data buffer past it? eventsource-parser checks after every line but one: in a feed without CR, a
   * first `data:` line followed at once by a blank line is dispatched unchecked (`oneDataLine` says
   * the dispatch follows such a line). Returns true when it stopped the write.
   */
  dataOverLimit (dataLength, oneDataLine) {
    if (this.#consuming || !(dataLength > this.#maxBufferSize)) return false
    if (oneDataLine && !this.#inputHasCR) return false
    this.#overflow()
    return true
  }
}

// The byte parser's own onEvent is never called: the drop-in's dispatch hook stands in for it.
function notCalled () {}

/**
 * eventsource-parser's createParser().
 * @param {object} config onEvent, onId, onRetry, onComment, onError, maxBufferSize
 * @returns {{ feed(chunk: string): void, reset(options?: { consume?: boolean }): void }}
 */
function createParser (config) {
  const parser = new DropInParser(config)
  // Plain functions, like eventsource-parser's closures: `const { feed } = createParser(...)` works.
  return {
    feed: (chunk) => parser.feed(chunk),
    reset: (options) => parser.reset(options)
  }
}

module.exports = { createParser }
