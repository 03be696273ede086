'use strict'

// PendingText: the incomplete line of the eventsource-parser drop-in (./string-parser.js), kept as
// pieces and joined once, when its end arrives. Only the line is joined, never the rest of the feed
// that ends it (eventsource-parser joins the feed too, then searches it again): a long line dripped one
// character per feed is copied once, and its pieces are never searched again.
//
// Pieces shorter than TINY_PIECE are appended to one string, the tail, which becomes a piece of its
// own once it holds TAIL_BATCH characters. A line dripped one character per feed then holds a few
// hundred pieces, not a quarter of a million: keeping tiny pieces one by one in an array and joining
// them costs 40 to 60 ns per piece (eventsource-parser's way; Node 20 to 26), more than the rest of the
// work on such a feed, where an append costs a third of that (V8, like the other engines, appends to a
// string in constant time, as a rope flattened when the line is joined). An append copies TAIL_BATCH +
// TINY_PIECE characters at most even in an engine without ropes, so the work stays linear; longer
// pieces are kept as they are and joined once.

const TINY_PIECE = 64
const TAIL_BATCH = 1024

class PendingText {
  // Characters (UTF-16 units) pending: read by the parser on every feed.
  length = 0
  #pieces = []
  #tail = ''

  /** Starts the line with `piece`. */
  start (piece) {
    this.#pieces.push(piece)
    this.length = piece.length
  }

  /** More of the line. */
  add (chunk) {
    if (chunk.length < TINY_PIECE) {
      const tail = this.#tail = this.#tail.concat(chunk)
      if (tail.length >= TAIL_BATCH) {
        this.#pieces.push(tail)
        this.#tail = ''
      }
    } else {
      if (this.#tail !== '') {
        this.#pieces.push(this.#tail)
        this.#tail = ''
      }
      this.#pieces.push(chunk)
    }
    this.length += chunk.length
  }

  /** The whole line, ending with `last` ('' for nothing more); nothing is pending afterwards. */
  join (last) {
    const pieces = this.#pieces
    if (this.#tail !== '') pieces.push(this.#tail)
    if (last !== '') pieces.push(last)
    const line = pieces.length === 1 ? pieces[0] : pieces.join('')
    this.clear()
    return line
  }

  clear () {
    this.#pieces = []
    this.#tail = ''
    this.length = 0
  }
}

module.exports = { PendingText }
