// StringParser: eventsource-parser's parser (see ./create-parser.js for what it copies and where it
// departs), reading the strings it is fed as strings. One text for every runtime, browsers included, so
// it is written for both speed and size; a path earns its bytes only where a benchmark shows it
// (benchmarks/parser-strings.bench.mjs for time, benchmarks/size.mjs for bytes).
//
// It stays linear whatever the chunking: each character is searched at most once for LF and once for CR;
// an incomplete line is joined once when its end arrives (./pending-text.js); a line is read where it lies
// in the feed, only its value cut out (./string-lines.js). Data lines are read in feed() itself, and the
// one-line event without an ID is handed to onEvent from there (most of what LLM and tick streams send).
// The standard's part of a field's interpretation is shared with the byte parser: lib/parser/field-rules.js.
// Tried and left out, as not worth their bytes: a second loop for feeds without CR, short feeds read unit
// by unit, the other field names compared letter by letter in the loop.
// It is a class, not closures as eventsource-parser's is: code that V8 optimizes around a parser's own closures is tied
// to them, and is thrown away once that parser is collected, in every process that makes parsers one after another.
//
// Two of eventsource-parser's rules look like optimisations but decide what a caller sees, and are kept:
// - a first `data:` line with its blank line right after it, in a feed without CR (or without a limit), is
//   dispatched without the limit check that follows every other line (`direct` below);
// - an incomplete line is dropped as soon as its first characters show it cannot become a field.

import { LF, CR, COLON } from '../../constants.js'
import { codes as argumentsCodes } from '../../errors/arguments.js'
import { codes as dropInCodes } from '../../errors/drop-in.js'
import {
  FIELD_UNKNOWN, FIELD_DATA, FIELD_EVENT, FIELD_ID, FIELD_NAMES,
  TAIL_LINES, fieldStartingWith, retryValue, isAcceptedId, appendData, joinTail
} from '../../parser/field-rules.js'
import { isDataField, valueOf, unknownFieldError, invalidRetryError, overflowError } from './string-lines.js'
import { PendingText } from './pending-text.js'
const { ERR_INVALID_ARG_TYPE } = argumentsCodes
const { ERR_EVENTSOURCE_PARSER_TERMINATED } = dropInCodes

// What a feed leaves for the next one to handle before its lines (#boundary, a bit set; 0 nearly
// always, so a feed tests one field).
// BOM_PENDING: the stream's first characters have not come yet; a BOM may be among them.
// SKIP_LINE: the line being read cannot become a field; it is dropped up to its end.
// SKIP_LF: the last feed ended with CR; an LF that starts this one is the rest of its CRLF.
const BOM_PENDING = 1
const SKIP_LINE = 2
const SKIP_LF = 4

class StringParser {
  #onEvent
  #onId
  #onRetry
  #onComment
  #onError
  // Infinity when there is no limit (see #stopped).
  #maxBufferSize

  // The event being read: its ID and type (undefined until a line sets them), its data buffer (#head + #data, #data
  // the rope of its last lines: lib/parser/field-rules.js, joinTail()) and how many data lines made it.
  #id
  #type
  #head = ''
  #data = ''
  #dataLines = 0

  // See BOM_PENDING and the others; #bomPrefix holds what may be the start of a BOM read as Latin-1.
  #boundary = BOM_PENDING
  #bomPrefix = ''
  // The incomplete line (./pending-text.js), and what it must start with to become a line that is kept: the
  // name of the field its first character made it a candidate for and a colon, or only a colon for a comment.
  #pending = new PendingText()
  #lineHead = ''
  // Set by an overflow of maxBufferSize: feed() throws until reset().
  #terminated = false
  // Counts reset() calls: a dispatch tells from it whether onId called reset().
  #resets = 0

  /** @param {ReturnType<typeof import('./create-parser').validConfig>} config checked by createParser() */
  constructor (config) {
    this.#onEvent = config.onEvent
    this.#onId = config.onId
    this.#onRetry = config.onRetry
    this.#onComment = config.onComment
    this.#onError = config.onError
    this.#maxBufferSize = config.maxBufferSize ?? Infinity
  }

  feed (chunk) {
    if (typeof chunk !== 'string') throw new ERR_INVALID_ARG_TYPE('chunk', 'of type string', chunk)
    if (this.#terminated) throw new ERR_EVENTSOURCE_PARSER_TERMINATED()
    if (this.#boundary !== 0 && (chunk = this.#crossBoundary(chunk)) === '') return
    // The next LF and CR at or after `pos` (-1: none left), each searched for again only once `pos` has passed it.
    let lf = chunk.indexOf('\n')
    let cr = chunk.indexOf('\r')
    // Whether the one-line event may skip the limit check: in a feed without CR, as eventsource-parser does,
    // and wherever there is no limit to check.
    const crFree = cr === -1
    const direct = crFree || this.#maxBufferSize === Infinity
    // Whether the first line end of this feed ends the incomplete line of earlier feeds.
    let continues = this.#pending.length !== 0
    let pos = 0
    while (pos < chunk.length) {
      if (lf !== -1 && lf < pos) lf = chunk.indexOf('\n', pos)
      if (cr !== -1 && cr < pos) cr = chunk.indexOf('\r', pos)
      const end = cr === -1 || (lf !== -1 && lf < cr) ? lf : cr
      if (end === -1) break
      // The line: [start, lineEnd) of `text`.
      let text = chunk
      let start = pos
      let lineEnd = end
      if (continues) {
        // Joined once: the line's pieces and the start of this feed; the rest of the feed stays as it is.
        continues = false
        text = this.#pending.join(chunk.slice(0, end))
        start = 0
        lineEnd = text.length
      }
      if (lineEnd === start) {
        this.#dispatch()
      } else if (!isDataField(text, start)) {
        this.#line(text, start, lineEnd)
      } else {
        // A data line, the most common line, read here rather than through #line().
        const value = valueOf(text, start + 4, lineEnd)
        const next = this.#after(chunk, end, end === cr)
        const code = chunk.charCodeAt(next)
        if (direct && this.#dataLines === 0 && (code === LF || code === CR)) {
          // The one-line event, dispatched from here without the limit check (`direct`: the top of this file).
          if (this.#id === undefined) {
            // Nothing else to clear: no ID, and no data line before this one.
            const type = this.#type
            this.#type = undefined
            this.#onEvent?.({ id: undefined, event: type, data: value })
          } else {
            // Through #dispatch(), which calls onId first.
            this.#addData(value)
            this.#dispatch()
          }
          if (this.#terminated) return
          pos = this.#after(chunk, next, code === CR)
          continue
        }
        this.#addData(value)
      }
      if (this.#stopped(0)) return
      pos = this.#after(chunk, end, end === cr)
    }
    if (continues) {
      if (!this.#extendLine(chunk)) return
    } else if (pos < chunk.length) {
      this.#keepIncomplete(chunk, pos)
    }
    this.#stopped(this.#pending.length)
  }

  reset (options) {
    if (options?.consume && this.#pending.length !== 0) {
      // eventsource-parser parses the incomplete line as if it had ended, without checking
      // maxBufferSize: its fields take effect, and the reset below forgets the event.
      const text = this.#pending.join('')
      this.#line(text, 0, text.length)
    }
    this.#resets++
    this.#boundary = BOM_PENDING
    this.#bomPrefix = ''
    this.#pending.clear()
    this.#terminated = false
    this.#clearEvent()
  }

  // Where the line that ends at `i` of `text` (a CR when `isCR`) is followed: past the LF of a CRLF; a CR
  // that ends the feed takes an LF that starts the next one with it. The caller knows which line end is
  // at `i`, so a line that ends with LF costs no read here.
  #after (text, i, isCR) {
    i++
    if (isCR) {
      if (i === text.length) this.#boundary |= SKIP_LF
      else if (text.charCodeAt(i) === LF) i++
    }
    return i
  }

  // More of the incomplete line, without its end: kept as one more piece, unless eventsource-parser would
  // drop the line here (its head can no longer become a field). Its first `had` characters are known to be
  // the head's (#keepIncomplete() checked them), so only the part of the head this piece covers is compared.
  #extendLine (chunk) {
    const had = this.#pending.length
    const head = this.#lineHead
    if (had < head.length && !chunk.startsWith(head.slice(had, had + chunk.length))) {
      this.#pending.clear()
      this.#boundary |= SKIP_LINE
      return false
    }
    this.#pending.add(chunk)
    return true
  }

  // What follows the last line end of a feed, from `pos`: kept if it may become a field (or a comment that
  // onComment wants), else dropped up to its end. A line may become a field while its characters so far
  // start the field's name and colon (eventsource-parser decides from a name of at most 5 and its colon).
  #keepIncomplete (text, pos) {
    const kind = fieldStartingWith(text.charCodeAt(pos))
    // A comment: the empty name of FIELD_UNKNOWN, and its colon.
    const head = FIELD_NAMES[kind] + ':'
    if (!text.startsWith(head.slice(0, text.length - pos), pos) || (kind === FIELD_UNKNOWN && !this.#onComment)) {
      this.#boundary |= SKIP_LINE
    } else {
      this.#pending.start(pos === 0 ? text : text.slice(pos))
      this.#lineHead = head
    }
  }

  // Out of line: the start of a stream (the BOM, maybe split), a line being dropped, a CR that ended the
  // last feed. Returns what is left of `chunk` to parse ('' for nothing).
  #crossBoundary (chunk) {
    if (this.#boundary & BOM_PENDING) {
      // Wait while the stream so far may still be a BOM read as Latin-1, then drop one BOM.
      chunk = this.#bomPrefix + chunk
      if ('\xEF\xBB'.startsWith(chunk)) {
        this.#bomPrefix = chunk
        return ''
      }
      this.#bomPrefix = ''
      this.#boundary &= ~BOM_PENDING
      chunk = chunk.replace(/^(?:\uFEFF|\xEF\xBB\xBF)/, '')
    }
    if (chunk === '' || this.#boundary === 0) return chunk
    if (this.#boundary & SKIP_LF) {
      this.#boundary &= ~SKIP_LF
      return chunk.charCodeAt(0) === LF ? chunk.slice(1) : chunk
    }
    // SKIP_LINE: drop up to the first line end.
    const end = chunk.search(/[\r\n]/)
    if (end === -1) return ''
    this.#boundary &= ~SKIP_LINE
    return chunk.slice(this.#after(chunk, end, chunk.charCodeAt(end) === CR))
  }

  // A line [start, end) of `text` that is not blank: a comment, or a field whose name ends at the first colon
  // (the whole line without one: a name alone has an empty value) and whose value follows it. The first
  // character tells the only field the line can be (a comment: the empty name of FIELD_UNKNOWN, see above).
  #line (text, start, end) {
    const kind = fieldStartingWith(text.charCodeAt(start))
    const name = FIELD_NAMES[kind]
    const nameEnd = start + name.length
    // (The line's end is a line end or the end of `text`: the name cannot match past it.)
    if (!text.startsWith(name, start) || (nameEnd !== end && text.charCodeAt(nameEnd) !== COLON)) {
      this.#onError?.(unknownFieldError(text.slice(start, end)))
      return
    }
    const value = valueOf(text, nameEnd, end)
    if (kind === FIELD_DATA) {
      this.#addData(value)
    } else if (kind === FIELD_EVENT) {
      this.#type = value === '' ? undefined : value
    } else if (kind === FIELD_ID) {
      if (isAcceptedId(value)) this.#id = value
    } else if (kind === FIELD_UNKNOWN) {
      this.#onComment?.(value)
    } else {
      const ms = retryValue(value)
      if (ms !== -1) this.#onRetry?.(ms)
      else this.#onError?.(invalidRetryError(value, text.slice(start, end)))
    }
  }

  // "Append the field value to the data buffer", its head and rope kept as field-rules.js, joinTail() says.
  #addData (value) {
    const lines = this.#dataLines++
    this.#data = appendData(this.#data, lines, value)
    if (lines % TAIL_LINES === TAIL_LINES - 1) {
      this.#head = joinTail(this.#head, this.#data)
      this.#data = ''
    }
  }

  // The blank line: onId when the block set an ID, then the event when it had data, unless onId called
  // reset(). The event is cleared first: a callback finds the parser ready for the next one.
  #dispatch () {
    const id = this.#id
    const lines = this.#dataLines
    const type = this.#type
    const data = this.#head + this.#data
    this.#clearEvent()
    if (id !== undefined && this.#onId !== undefined) {
      const resets = this.#resets
      this.#onId(id)
      if (this.#resets !== resets) return
    }
    if (lines !== 0) this.#onEvent?.({ id, event: type, data })
  }

  #clearEvent () {
    this.#id = undefined
    this.#type = undefined
    this.#head = ''
    this.#data = ''
    this.#dataLines = 0
  }

  // Whether parsing stops here: a feed() from a callback went past the limit, or the data buffer and `more`
  // characters are past it now (then the overflow). Without a limit no length is read: the data buffer's
  // strings are of any of V8's kinds (flat, joined, sliced; one- or two-byte), so a `.length` on them meets
  // more hidden classes than an inline cache keeps, and goes megamorphic.
  #stopped (more) {
    if (this.#terminated) return true
    if (this.#maxBufferSize === Infinity || more + this.#head.length + this.#data.length <= this.#maxBufferSize) {
      return false
    }
    this.#overflow()
    return true
  }

  // Past maxBufferSize: what is buffered is dropped, and feed() throws until reset().
  #overflow () {
    this.#terminated = true
    this.#pending.clear()
    this.#clearEvent()
    // A BOM may still come; a line being dropped and a CR's LF are forgotten.
    this.#boundary &= BOM_PENDING
    this.#onError?.(overflowError(this.#maxBufferSize))
  }
}

export { StringParser }
