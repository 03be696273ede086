// PendingText: the incomplete line of the eventsource-parser drop-in (./string-parser.js), kept as
// pieces and joined once, when its end arrives. Only the line is joined, never the rest of the feed that
// ends it (eventsource-parser joins the feed too, then searches it again).
//
// Pieces shorter than TINY_PIECE are appended to one string, the tail, and each time the tail holds
// TAIL_BATCH characters, its first TAIL_BATCH become a piece of their own: an append costs far less than
// a piece in an array (engines append to a string in constant time, as a rope: a cell per append). The
// piece is cut with slice(), which makes V8 flatten the rope there and then: ropes that live until the
// line ends survive every young-generation GC, each of which copies their cells again, and joining them
// walks every cell.
//
// Pieces of TINY_PIECE to ROPE_PIECE characters are appended to the tail too, but not flattened: a cell per
// 64 characters or more is little for a GC to copy, and flattening copies every character once more. While
// the tail holds no tiny piece it becomes a piece as it is, a rope, once it holds ROPE_BATCH characters.
// The price: a process whose short lines come this way parses lines of tiny pieces more slowly afterwards
// too (benchmarks/parser-strings.bench.mjs and benchmarks/parser.bench.mjs measure both). Longer pieces are
// kept as they are. An append copies at most ROPE_BATCH + ROPE_PIECE characters even in an engine without
// ropes, so the work stays linear.

const TINY_PIECE = 64
const TAIL_BATCH = 1024
const ROPE_PIECE = 128
const ROPE_BATCH = 8192

class PendingText {
  // Characters (UTF-16 units) pending: read by the parser on every feed.
  length = 0
  // The line: its first piece and the tail, until a feed of ROPE_PIECE characters or more comes or
  // the tail fills up; from then on #pieces, which starts with the first piece, then the tail.
  #first = ''
  #pieces = []
  #tail = ''
  // Whether the tail holds a piece shorter than TINY_PIECE (then it is flattened when cut).
  #tiny = false

  /** Starts the line with `piece`. */
  start (piece) {
    this.#first = piece
    this.length = piece.length
  }

  /** More of the line. */
  add (chunk) {
    const length = chunk.length
    if (length < ROPE_PIECE) {
      const tail = this.#tail.concat(chunk)
      this.#tail = tail
      if (length < TINY_PIECE) this.#tiny = true
      if (this.#tiny ? tail.length > TAIL_BATCH : tail.length >= ROPE_BATCH) {
        // The full tail becomes a piece. One that holds tiny pieces is flattened: cut at the last
        // multiple of TAIL_BATCH characters before its end, the rest (at most TAIL_BATCH; under
        // TINY_PIECE unless a rope came before the tiny pieces) starting the next tail. Before its
        // end: a slice of a whole string is that string, still a rope. One without tiny pieces is kept
        // as it is.
        const end = this.#tiny ? tail.length - 1 - (tail.length - 1) % TAIL_BATCH : tail.length
        this.#piece(tail.slice(0, end))
        this.#tail = tail.slice(end)
        this.#tiny = false
      }
    } else {
      if (this.#tail !== '') this.#piece(this.#tail)
      this.#piece(chunk)
      this.#tail = ''
      this.#tiny = false
    }
    this.length += length
  }

  // A piece for the array, which starts with the line's first piece: put there when the array
  // starts, not in front of it at the end (unshift() moves every piece of a long line once more).
  #piece (piece) {
    const pieces = this.#pieces
    if (pieces.length === 0) pieces.push(this.#first)
    pieces.push(piece)
  }

  /** The whole line, ending with `last` ('' for nothing more); nothing is pending afterwards. */
  join (last) {
    const pieces = this.#pieces
    let line
    if (pieces.length === 0) {
      // A line that came in one piece and a few tiny ones, the usual case: no array to join.
      line = this.#first.concat(this.#tail, last)
    } else {
      pieces.push(this.#tail, last)
      line = pieces.join('')
    }
    this.clear()
    return line
  }

  clear () {
    this.#first = ''
    this.#tail = ''
    this.#tiny = false
    if (this.#pieces.length !== 0) this.#pieces = []
    this.length = 0
  }
}

export { PendingText }
