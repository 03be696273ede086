// StringParser, compact: ./string-parser.js without its fast paths, for browsers and workers (package.json's
// "imports" maps `#string-parser` here for any runtime that does not match the `node` condition; Node, Bun
// and Deno get ./string-parser.js). Same interface, same callbacks in the same order and with the same
// arguments, the same maxBufferSize checks at the same points with the same outcomes, the same state after a
// callback that calls reset() or feed(): test/compat/eventsource-parser/parser-drop-in-compact.test.cjs holds
// the two to that on random streams, chunkings, limits and reentrant callbacks. The rules it copies from
// eventsource-parser are ./create-parser.js's list; two of them only look like optimisations and are kept:
// - a first `data:` line with its blank line right after it, in a feed without CR, is dispatched without
//   the limit check that follows every other line (StringParser's one-line event, `crFree` there);
// - an incomplete line is dropped as soon as its first characters show it cannot become a field.
// Line ends are found as there, with String#indexOf from where the last search stopped: each character is
// searched at most once for LF and once for CR. What it leaves out is the rest of what makes
// ./string-parser.js fast on Node: the LF-only loop, short feeds read unit by unit, the one-line event
// dispatched without building the event's state, field names matched on code units. Here each line is cut
// out and split at its first colon, and the name looked up in the shared table (lib/parser/field-rules.js);
// the incomplete line is ./pending-text.js's, joined once, so the work stays linear whatever the chunking
// (a plain list of pieces would be smaller, but a callback that calls feed() twice leaves pieces that
// PendingText orders its own way, and this parser must order them the same).
// The trade, measured with esbuild (npm run size), and on Node 20, 24 and 26 against eventsource-parser 4
// (this parser run directly; Node runs ./string-parser.js): the browser bundle of whatwg-eventsource/parser
// 3,734 -> 2,893 B gzipped, /parser/stream 3,873 -> 3,035; parsing takes 0.6x to 1.1x eventsource-parser's
// time on long lines and in small feeds, 1.0x to 1.25x on 250 events in 16 KiB feeds, 1.5x to 1.7x on
// LLM-token events, 1.8x to 1.9x on non-ASCII text, and 2x to 3.2x on 10,000 tiny events in 64 KiB feeds:
// a line costs three short strings (the line, its name and its value). Reading every unit instead of
// searching with indexOf was 22 B smaller and up to 120x eventsource-parser's time (a 256 KiB line).

import { LF, CR, SPACE, COLON } from '../../constants.js'
import { codes as argumentsCodes } from '../../errors/arguments.js'
import { codes as dropInCodes } from '../../errors/drop-in.js'
import {
  FIELD_NAMES, FIELD_DATA, FIELD_EVENT, FIELD_ID, FIELD_RETRY, MAX_FIELD_NAME, TAIL_LINES, fieldStartingWith, continuesField, retryValue, isAcceptedId, appendData, joinTail
} from '../../parser/field-rules.js'
import { unknownFieldError, invalidRetryError, overflowError } from './string-lines.js'
import { PendingText } from './pending-text.js'
const { ERR_INVALID_ARG_TYPE } = argumentsCodes
const { ERR_EVENTSOURCE_PARSER_TERMINATED } = dropInCodes

// #boundary's bits, as ./string-parser.js has them.
const BOM_PENDING = 1
const SKIP_LINE = 2
const SKIP_LF = 4

// The kind of an incomplete comment line.
const COMMENT = -1

// Whether `text`, units `had` onwards of a line that started as a candidate for `kind`, keeps it one
// within the line's first MAX_FIELD_NAME + 1 units (its name and colon); later units are anything.
function headFits (kind, had, text) {
  for (let i = 0; had + i <= MAX_FIELD_NAME && i < text.length; i++) {
    if (!continuesField(kind, had + i, text.charCodeAt(i))) return false
  }
  return true
}

class CompactStringParser {
  #onEvent
  #onId
  #onRetry
  #onComment
  #onError
  #maxBufferSize

  // The event being read; its ID and type are undefined until a line sets them.
  #id
  #type
  #head = ''
  #data = ''
  #dataLines = 0

  #boundary = BOM_PENDING
  #bomPrefix = ''
  #pending = new PendingText()
  // The kind of field (or COMMENT) the incomplete line's first character made it a candidate for.
  #lineKind
  #terminated = false
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

  /** @param {string} chunk */
  feed (chunk) {
    if (typeof chunk !== 'string') throw new ERR_INVALID_ARG_TYPE('chunk', 'of type string', chunk)
    if (this.#terminated) throw new ERR_EVENTSOURCE_PARSER_TERMINATED()
    if (this.#boundary !== 0 && (chunk = this.#crossBoundary(chunk)) === '') return
    // The next LF and CR at or after `pos` (-1: none left; -2: not searched yet): each character is
    // searched at most once for each.
    let lf = -2
    let cr = chunk.indexOf('\r')
    const crFree = cr === -1
    // Whether the first line end of this feed ends the incomplete line of earlier feeds.
    let continues = this.#pending.length !== 0
    let pos = 0
    for (;;) {
      if (lf !== -1 && lf < pos) lf = chunk.indexOf('\n', pos)
      if (cr !== -1 && cr < pos) cr = chunk.indexOf('\r', pos)
      const i = cr === -1 || (lf !== -1 && lf < cr) ? lf : cr
      if (i === -1) break
      let line = chunk.slice(pos, i)
      if (continues) {
        continues = false
        line = this.#pending.join(line)
      }
      if (line === '') {
        this.#dispatch()
      } else if (this.#line(line) && i === lf && chunk.charCodeAt(i + 1) === LF && crFree) {
        // The one-line event: its blank line dispatches it next, and the limit is not checked before.
        pos = i + 1
        continue
      }
      if (this.#stopped()) return
      pos = this.#after(chunk, i)
    }
    if (continues) {
      if (!this.#extendLine(chunk)) return
    } else if (pos < chunk.length) {
      this.#keepIncomplete(chunk.slice(pos))
    }
    if (this.#pending.length + this.#head.length + this.#data.length > this.#maxBufferSize) this.#overflow()
  }

  /** @param {{ consume?: boolean }} [options] */
  reset (options) {
    // The incomplete line, parsed as if it had ended, without a limit check.
    if (options?.consume && this.#pending.length !== 0) this.#line(this.#pending.join(''))
    this.#resets++
    this.#boundary = BOM_PENDING
    this.#bomPrefix = ''
    this.#pending.clear()
    this.#terminated = false
    this.#clearEvent()
  }

  // Where the line that ends at `i` of `text` is followed: past the LF of a CRLF; a CR that ends the feed
  // takes an LF that starts the next one with it.
  #after (text, i) {
    if (text.charCodeAt(i++) === CR) {
      if (i === text.length) this.#boundary |= SKIP_LF
      else if (text.charCodeAt(i) === LF) i++
    }
    return i
  }

  // More of the incomplete line, without its end: kept, unless its head can no longer become a field.
  #extendLine (chunk) {
    const kind = this.#lineKind
    if (kind !== COMMENT && !headFits(kind, this.#pending.length, chunk)) {
      this.#pending.clear()
      this.#boundary |= SKIP_LINE
      return false
    }
    this.#pending.add(chunk)
    return true
  }

  // What follows a feed's last line end: kept if it may become a field (or a comment onComment wants).
  #keepIncomplete (text) {
    const first = text.charCodeAt(0)
    const kind = first === COLON ? COMMENT : fieldStartingWith(first)
    if (kind === COMMENT ? this.#onComment == null : !headFits(kind, 0, text)) {
      this.#boundary |= SKIP_LINE
    } else {
      this.#pending.start(text)
      this.#lineKind = kind
    }
  }

  // The start of a stream (a BOM, maybe split), a line being dropped, a CR that ended the last feed.
  #crossBoundary (chunk) {
    if (this.#boundary & BOM_PENDING) {
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
    const end = chunk.search(/[\r\n]/)
    if (end === -1) return ''
    this.#boundary &= ~SKIP_LINE
    return chunk.slice(this.#after(chunk, end))
  }

  // A line that is not blank: a comment, or a field whose name ends at the first colon (the whole line
  // without one) and whose value follows it, one leading space removed. Returns true for the event's first
  // data line.
  #line (line) {
    const colon = line.indexOf(':')
    const value = colon === -1 ? '' : line.slice(line.charCodeAt(colon + 1) === SPACE ? colon + 2 : colon + 1)
    if (colon === 0) {
      this.#onComment?.(value)
      return false
    }
    switch (FIELD_NAMES.indexOf(colon === -1 ? line : line.slice(0, colon))) {
      case FIELD_DATA: {
        // Kept as a head and the rope of the last lines, as ./string-parser.js keeps it.
        const lines = this.#dataLines++
        this.#data = appendData(this.#data, lines, value)
        if (lines % TAIL_LINES === TAIL_LINES - 1) {
          this.#head = joinTail(this.#head, this.#data)
          this.#data = ''
        }
        return lines === 0
      }
      case FIELD_EVENT:
        this.#type = value === '' ? undefined : value
        break
      case FIELD_ID:
        if (isAcceptedId(value)) this.#id = value
        break
      case FIELD_RETRY: {
        const ms = retryValue(value)
        if (ms !== -1) this.#onRetry?.(ms)
        else this.#onError?.(invalidRetryError(value, line))
        break
      }
      default:
        this.#onError?.(unknownFieldError(line))
    }
    return false
  }

  // The blank line: onId when the block set an ID, then the event when it had data, unless onId called
  // reset(). The event is cleared first: a callback finds the parser ready for the next one.
  #dispatch () {
    const id = this.#id
    const type = this.#type
    const data = this.#head + this.#data
    const lines = this.#dataLines
    this.#clearEvent()
    if (id !== undefined && this.#onId != null) {
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

  // After a line: whether parsing stops here (the data buffer past the limit, or a callback's feed past it).
  #stopped () {
    if (this.#terminated) return true
    if (this.#head.length + this.#data.length <= this.#maxBufferSize) return false
    this.#overflow()
    return true
  }

  #overflow () {
    this.#terminated = true
    this.#pending.clear()
    this.#clearEvent()
    this.#boundary &= BOM_PENDING
    this.#onError?.(overflowError(this.#maxBufferSize))
  }
}

export { CompactStringParser as StringParser }
