// StringParser: eventsource-parser's parser (see ./create-parser.js for what it copies and where it
// departs), reading the strings it is fed as strings.
//
// How it stays fast and linear whatever the chunking:
// - line ends are found with String#indexOf from where the last search stopped (each character is
//   searched at most once for LF and once for CR); a feed of a few characters is read unit by unit
//   instead, which costs less than two calls;
// - an incomplete line is kept as pieces and joined once when its end arrives (./pending-text.js);
// - field names are matched on their code units and values are slices of the feed; `retry` digits
//   are read without a regular expression; the event being read is a few fields cleared in place.
// The standard's part of a field's interpretation (names, digits, the NUL rule, joining data lines)
// is shared with the byte parser: lib/parser/field-rules.js.

import { LF, CR, SPACE, COLON } from '../../constants.js'
import { codes as argumentsCodes } from '../../errors/arguments.js'
import { codes as dropInCodes } from '../../errors/drop-in.js'
import {
  FIELD_UNKNOWN, FIELD_DATA, FIELD_EVENT, FIELD_RETRY, MAX_FIELD_NAME, TAIL_LINES, fieldStartingWith, continuesField, retryValue, isAcceptedId, appendData, joinTail
} from '../../parser/field-rules.js'
import {
  isDataField, isEventField, isIdField, isField, unknownFieldError, invalidRetryError, overflowError
} from './string-lines.js'
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

// The kind of an incomplete comment line (kept only when there is an onComment).
const COMMENT = -1

// eventsource-parser decides whether an incomplete line may still become a field from its first
// characters: a name (at most 5) and its colon.
const FIELD_HEAD = MAX_FIELD_NAME + 1

// A feed up to this long is searched for line ends unit by unit: String#indexOf is a call into the runtime, and a feed
// without a line end needs two of them. Past 8 units the loop costs more than the calls: with 16, a 9-character event
// per feed (`data: x` and its blank line) took longer than in eventsource-parser, drips of 1 to 7 no less time.
const SHORT_FEED = 8

function noop () {}

class StringParser {
  #onEvent
  #onId
  #onRetry
  #onComment
  #onError
  // Infinity when there is no limit (see #pastLimit).
  #maxBufferSize

  // The event being read: its ID and type (undefined until a line sets them), its data buffer (#head + #data, #data
  // the rope of its last lines: lib/parser/field-rules.js, joinTail()) and how many data lines made it.
  #id = undefined
  #type = undefined
  #head = ''
  #data = ''
  #dataLines = 0

  // See BOM_PENDING and the others; #bomPrefix holds what may be the start of a BOM read as Latin-1.
  #boundary = BOM_PENDING
  #bomPrefix = ''
  // The incomplete line (./pending-text.js), and the
  // kind of field (or COMMENT) its first character made it a candidate for.
  #pending = new PendingText()
  #lineKind = FIELD_UNKNOWN
  // Set by an overflow of maxBufferSize: feed() throws until reset().
  #terminated = false
  // Counts reset() calls: a dispatch tells from it whether onId called reset().
  #resets = 0

  /** @param {ReturnType<typeof import('./create-parser').validConfig>} config checked by createParser() */
  constructor (config) {
    this.#onEvent = config.onEvent ?? noop
    this.#onId = config.onId ?? null
    this.#onRetry = config.onRetry ?? null
    this.#onComment = config.onComment ?? null
    this.#onError = config.onError ?? null
    this.#maxBufferSize = config.maxBufferSize ?? Infinity
  }

  /** @param {string} chunk */
  feed (chunk) {
    if (typeof chunk !== 'string') throw new ERR_INVALID_ARG_TYPE('chunk', 'of type string', chunk)
    if (this.#terminated) throw new ERR_EVENTSOURCE_PARSER_TERMINATED()
    if (this.#boundary !== 0) {
      chunk = this.#crossBoundary(chunk)
      if (chunk === '') return
    }
    if (this.#pending.length !== 0) {
      this.#continueLine(chunk)
    } else if (chunk.length <= SHORT_FEED) {
      this.#shortFeed(chunk)
    } else {
      const cr = chunk.indexOf('\r')
      this.#endFeed(chunk, cr === -1 ? this.#parseLF(chunk, 0, chunk.indexOf('\n'), true) : this.#parse(chunk, 0, cr, false))
    }
  }

  /** @param {{ consume?: boolean }} [options] */
  reset (options) {
    if (options?.consume && this.#pending.length !== 0) {
      // eventsource-parser parses the incomplete line as if it had ended, without checking
      // maxBufferSize: its fields take effect, and the reset below forgets the event.
      const line = this.#pending.join('')
      this.#line(line, 0, line.length)
    }
    this.#resets++
    this.#boundary = BOM_PENDING
    this.#bomPrefix = ''
    this.#dropLine()
    this.#terminated = false
    this.#clearEvent()
  }

  // Parses the lines of `text` from `pos`; returns where the incomplete line after them starts, or -1
  // when parsing stopped (an overflow). `cr` is the index of the first CR at or after `pos` (-1: none);
  // `crFree` says whether the feed has none at all, which decides one of eventsource-parser's limit
  // checks (see #parseLF). Nothing after the loops needs type feedback: a loop that V8 compiles while it runs
  // (on-stack replacement), on the first long feed, would otherwise leave with a deoptimization, and the compiled loop
  // is kept and reused, deoptimizing at each exit (seen on Node 24, on tiny events). The caller finishes the feed.
  #parse (text, pos, cr, crFree) {
    if (cr === -1) return this.#parseLF(text, pos, text.indexOf('\n', pos), crFree)
    const length = text.length
    let lf = text.indexOf('\n', pos)
    for (;;) {
      let end
      if (lf !== -1 && (cr === -1 || lf < cr)) end = lf
      else if (cr !== -1) end = cr
      else break
      if (end === pos) {
        this.#dispatch()
      } else {
        this.#line(text, pos, end)
      }
      if (this.#stopped()) return -1
      pos = end + 1
      if (end === lf) {
        lf = text.indexOf('\n', pos)
      } else if (pos === length) {
        // A CR that ends the feed: its line is parsed; an LF at the start of the next is its CRLF.
        this.#boundary |= SKIP_LF
        break
      } else {
        if (text.charCodeAt(pos) === LF) pos++
        cr = text.indexOf('\r', pos)
        if (lf !== -1 && lf < pos) lf = text.indexOf('\n', pos)
      }
    }
    return pos
  }

  // #parse for text with no CR from `pos`: no CR bookkeeping. `lf` is the index of the first LF at or
  // after `pos` (-1: none), which the caller has found.
  #parseLF (text, pos, lf, crFree) {
    const length = text.length
    while (lf !== -1) {
      if (lf === pos) {
        this.#dispatch()
        if (this.#terminated) return -1
      } else if (isDataField(text, pos)) {
        const value = text.slice(text.charCodeAt(pos + 5) === SPACE ? pos + 6 : pos + 5, lf)
        if (this.#dataLines === 0 && text.charCodeAt(lf + 1) === LF && crFree) {
          if (this.#id === undefined) {
            const type = this.#type
            if (type !== undefined) this.#type = undefined
            this.#onEvent({ id: undefined, event: type, data: value })
          } else {
            this.#dispatchData(value)
          }
          if (this.#terminated) return -1
          pos = lf + 2
          lf = pos < length ? text.indexOf('\n', pos) : -1
          continue
        }
        this.#addData(value)
        if (this.#pastLimit(0)) {
          this.#overflow()
          return -1
        }
      } else if (isEventField(text, pos)) {
        const value = text.slice(text.charCodeAt(pos + 6) === SPACE ? pos + 7 : pos + 6, lf)
        this.#type = value === '' ? undefined : value
      } else if (isIdField(text, pos)) {
        const value = text.slice(text.charCodeAt(pos + 3) === SPACE ? pos + 4 : pos + 3, lf)
        if (isAcceptedId(value)) this.#id = value
      } else {
        this.#otherLine(text, pos, lf)
        if (this.#stopped()) return -1
      }
      pos = lf + 1
      lf = text.indexOf('\n', pos)
    }
    return pos
  }

  // The end of a feed parsed up to `pos` (-1: it stopped): what follows the last line end is kept,
  // and eventsource-parser's check of what is buffered.
  #endFeed (text, pos) {
    if (pos === -1) return
    if (pos < text.length) this.#keepIncomplete(text, pos)
    if (this.#pastLimit(this.#pending.length)) this.#overflow()
  }

  // A feed of at most SHORT_FEED characters with no line pending: one pass over its units tells where
  // its first LF and its first CR are, which #parseLF and #parse would otherwise search for.
  #shortFeed (chunk) {
    let cr = -1
    let lf = -1
    for (let i = 0; i < chunk.length; i++) {
      const code = chunk.charCodeAt(i)
      if (code === CR) {
        cr = i
        break
      }
      if (code === LF && lf === -1) lf = i
    }
    if (cr !== -1) {
      this.#endFeed(chunk, this.#parse(chunk, 0, cr, false))
    } else if (lf !== -1) {
      this.#endFeed(chunk, this.#parseLF(chunk, 0, lf, true))
    } else if (chunk !== '') {
      this.#keepIncomplete(chunk, 0)
      if (this.#pastLimit(this.#pending.length)) this.#overflow()
    }
  }

  // A feed while a line is pending: either more of it, or its end and whatever follows.
  #continueLine (chunk) {
    const length = chunk.length
    let lf = -1
    let cr = -1
    if (length <= SHORT_FEED) {
      for (let i = 0; i < length; i++) {
        const code = chunk.charCodeAt(i)
        if (code <= CR) {
          if (code === LF) {
            if (lf === -1) lf = i
          } else if (code === CR) {
            cr = i
            break
          }
        }
      }
    } else {
      lf = chunk.indexOf('\n')
      cr = chunk.indexOf('\r')
    }
    if (lf === -1 && cr === -1) {
      this.#extendLine(chunk)
      return
    }
    const end = lf !== -1 && (cr === -1 || lf < cr) ? lf : cr
    // Join the line once: its pieces and the start of this feed; the rest of the feed stays as it is.
    const line = this.#pending.join(end === 0 ? '' : chunk.slice(0, end))
    const crFree = cr === -1
    let pos = end + 1
    if (crFree && this.#dataLines === 0 && chunk.charCodeAt(pos) === LF && isDataField(line, 0)) {
      // The one-line event of #parse, cut in two.
      this.#dispatchData(line.slice(line.charCodeAt(5) === SPACE ? 6 : 5))
      if (this.#terminated) return
      pos++
    } else {
      this.#line(line, 0, line.length)
      if (this.#stopped()) return
      if (end === cr) {
        if (pos === length) {
          this.#boundary |= SKIP_LF
          cr = -1
        } else {
          if (chunk.charCodeAt(pos) === LF) pos++
          cr = chunk.indexOf('\r', pos)
        }
      }
    }
    this.#endFeed(chunk, this.#parse(chunk, pos, cr, crFree))
  }

  // More of the incomplete line, without its end: kept as one more piece, unless eventsource-parser
  // would drop the line here (its head can no longer become a field).
  #extendLine (chunk) {
    const had = this.#pending.length
    if (had < FIELD_HEAD && this.#lineKind !== COMMENT) {
      const stop = FIELD_HEAD - had < chunk.length ? FIELD_HEAD - had : chunk.length
      for (let i = 0; i < stop; i++) {
        if (!continuesField(this.#lineKind, had + i, chunk.charCodeAt(i))) {
          this.#dropLine()
          this.#boundary |= SKIP_LINE
          return
        }
      }
    }
    this.#pending.add(chunk)
    if (this.#pastLimit(this.#pending.length)) this.#overflow()
  }

  // What follows the last line end of a feed, from `pos`: kept if it may become a field (or a comment
  // that onComment wants), else dropped up to its end.
  #keepIncomplete (text, pos) {
    const first = text.charCodeAt(pos)
    let kind = COMMENT
    if (first !== COLON) {
      kind = fieldStartingWith(first)
      const stop = text.length - pos < FIELD_HEAD ? text.length - pos : FIELD_HEAD
      let i = 1
      if (kind !== FIELD_UNKNOWN) {
        while (i < stop && continuesField(kind, i, text.charCodeAt(pos + i))) i++
      }
      if (kind === FIELD_UNKNOWN || i < stop) {
        this.#boundary |= SKIP_LINE
        return
      }
    } else if (this.#onComment === null) {
      this.#boundary |= SKIP_LINE
      return
    }
    this.#pending.start(pos === 0 ? text : text.slice(pos))
    this.#lineKind = kind
  }

  #dropLine () {
    this.#pending.clear()
  }

  // Out of line: the start of a stream (the BOM), a line being dropped, a CR that ended the last feed.
  // Returns what is left of `chunk` to parse ('' for nothing).
  #crossBoundary (chunk) {
    if ((this.#boundary & BOM_PENDING) !== 0) {
      // Wait while the stream so far may still be a BOM read as Latin-1, then drop one BOM.
      chunk = this.#bomPrefix + chunk
      if (chunk === '' || chunk === '\xEF' || chunk === '\xEF\xBB') {
        this.#bomPrefix = chunk
        return ''
      }
      this.#bomPrefix = ''
      this.#boundary &= ~BOM_PENDING
      if (chunk.charCodeAt(0) === 0xfeff) chunk = chunk.slice(1)
      else if (chunk.startsWith('\xEF\xBB\xBF')) chunk = chunk.slice(3)
    }
    if (chunk === '' || this.#boundary === 0) return chunk
    if ((this.#boundary & SKIP_LF) !== 0) {
      this.#boundary &= ~SKIP_LF
      return chunk.charCodeAt(0) === LF ? chunk.slice(1) : chunk
    }
    // SKIP_LINE: drop up to the first line end.
    const lf = chunk.indexOf('\n')
    const cr = chunk.indexOf('\r')
    if (lf === -1 && cr === -1) return ''
    this.#boundary &= ~SKIP_LINE
    if (lf === -1 || (cr !== -1 && cr < lf)) {
      if (cr === chunk.length - 1) {
        this.#boundary |= SKIP_LF
        return ''
      }
      return chunk.slice(chunk.charCodeAt(cr + 1) === LF ? cr + 2 : cr + 1)
    }
    return chunk.slice(lf + 1)
  }

  // Any line but a blank one: the common fields first, as #parse reads them.
  #line (text, start, end) {
    if (isDataField(text, start)) {
      this.#addData(text.slice(text.charCodeAt(start + 5) === SPACE ? start + 6 : start + 5, end))
    } else if (isEventField(text, start)) {
      const value = text.slice(text.charCodeAt(start + 6) === SPACE ? start + 7 : start + 6, end)
      this.#type = value === '' ? undefined : value
    } else if (isIdField(text, start)) {
      const value = text.slice(text.charCodeAt(start + 3) === SPACE ? start + 4 : start + 3, end)
      if (isAcceptedId(value)) this.#id = value
    } else {
      this.#otherLine(text, start, end)
    }
  }

  // Any other line: a comment, or a field, its name ending at the first colon. (`data:`, `event:` and
  // `id:` were read before: of those three, only a name alone, with an empty value, comes here.)
  #otherLine (text, start, end) {
    const first = text.charCodeAt(start)
    if (first === COLON) {
      if (this.#onComment !== null) this.#onComment(text.slice(text.charCodeAt(start + 1) === SPACE ? start + 2 : start + 1, end))
      return
    }
    const kind = fieldStartingWith(first)
    if (kind === FIELD_UNKNOWN || !isField(text, start, end, kind)) {
      this.#unknownField(text, start, end)
    } else if (kind === FIELD_RETRY) {
      // After the name and its colon, one leading space removed.
      let valueStart = start + 6
      if (valueStart < end && text.charCodeAt(valueStart) === SPACE) valueStart++
      const value = valueStart < end ? text.slice(valueStart, end) : ''
      const ms = retryValue(value)
      if (ms !== -1) {
        if (this.#onRetry !== null) this.#onRetry(ms)
      } else if (this.#onError !== null) {
        this.#onError(invalidRetryError(value, text.slice(start, end)))
      }
    } else if (kind === FIELD_DATA) {
      this.#addData('')
    } else if (kind === FIELD_EVENT) {
      this.#type = undefined
    } else {
      this.#id = ''
    }
  }

  // eventsource-parser's report of a field the standard ignores: the name up to the first colon
  // (the whole line without one), the value after it, and the line.
  #unknownField (text, start, end) {
    if (this.#onError !== null) this.#onError(unknownFieldError(text.slice(start, end)))
  }

  // The blank line: onId when the block set an ID, then the event when it had data, unless onId
  // called reset(). The event is cleared first: a callback finds the parser ready for the next one.
  #dispatch () {
    const id = this.#id
    const lines = this.#dataLines
    if (id === undefined && lines === 0) {
      this.#type = undefined
      return
    }
    const type = this.#type
    const data = this.#head + this.#data
    this.#clearEvent()
    if (id !== undefined && this.#onId !== null) {
      const resets = this.#resets
      this.#onId(id)
      if (this.#resets !== resets) return
    }
    if (lines !== 0) this.#onEvent({ id, event: type, data })
  }

  // A first data line with its blank line right after it.
  #dispatchData (value) {
    if (this.#id !== undefined) {
      // Through #dispatch, which calls onId first.
      this.#data = value
      this.#dataLines = 1
      this.#dispatch()
      return
    }
    // Nothing else to clear: no ID, and no data line before this one.
    const type = this.#type
    if (type !== undefined) this.#type = undefined
    this.#onEvent({ id: undefined, event: type, data: value })
  }

  #clearEvent () {
    this.#id = undefined
    this.#type = undefined
    this.#head = ''
    this.#data = ''
    this.#dataLines = 0
  }

  // "Append the field value to the data buffer", its head and rope kept as lib/parser/field-rules.js, joinTail() says.
  #addData (value) {
    const lines = this.#dataLines++
    this.#data = appendData(this.#data, lines, value)
    if (lines % TAIL_LINES !== TAIL_LINES - 1) return
    this.#head = joinTail(this.#head, this.#data)
    this.#data = ''
  }

  // After a line that may have made a callback: whether parsing stops here, because the data buffer
  // is past the limit now, or because a feed() from the callback went past it.
  #stopped () {
    if (this.#terminated) return true
    if (!this.#pastLimit(0)) return false
    this.#overflow()
    return true
  }

  // Whether the data buffer and `pending` more characters are past maxBufferSize. Without a limit (or with Infinity,
  // which no length passes) no length is read: the data buffer's strings are of any of V8's kinds (flat, joined,
  // sliced; one- or two-byte), so a `.length` on them meets more hidden classes than an inline cache keeps, and goes
  // megamorphic: a stub-cache probe per data line, and a miss into the runtime after every full GC, which empties the
  // stub cache (measured on UTF-8 text in one 64 KiB feed).
  #pastLimit (pending) {
    return this.#maxBufferSize !== Infinity && pending + this.#head.length + this.#data.length > this.#maxBufferSize
  }

  // Past maxBufferSize: what is buffered is dropped, and feed() throws until reset().
  #overflow () {
    this.#terminated = true
    this.#dropLine()
    this.#clearEvent()
    // A BOM may still come; a line being dropped and a CR's LF are forgotten.
    this.#boundary &= BOM_PENDING
    if (this.#onError !== null) this.#onError(overflowError(this.#maxBufferSize))
  }
}

export { StringParser }
