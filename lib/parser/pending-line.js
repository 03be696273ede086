// PendingLine: the bytes of a line that spans chunks, kept until its end arrives and then joined once.
// Appending each chunk to one growing buffer would copy the line once per write: O(N^2) for a long line
// dripped in small chunks. Here a piece is kept by reference (a view of the caller's chunk) or, when
// small, copied into a scratch buffer, and the whole line is copied once, by join().

import { allocUnsafe, asciiSlice, isAscii } from '#bytes'

// Pieces shorter than this are copied into the scratch buffer rather than kept by reference: a line
// dripped one byte per chunk then costs its bytes in memory, not one object per byte.
const SMALL_PIECE = 128
const SCRATCH_SIZE = 4096
// Pieces up to this long are copied byte by byte: cheaper than a subarray view and set().
const COPY_MAX = 64
// The pieces of no line: shared until the first piece, so an idle parser's line holds no array.
const NO_PIECES = Object.freeze([])

class PendingLine {
  // How many bytes are pending: read by the parser on every write.
  length = 0
  // Where join()'s line is in the buffer it returned.
  lineStart = 0
  lineEnd = 0
  // The pieces in order (views of callers' chunks, or sealed parts of the scratch buffer), then the
  // unsealed part of the scratch buffer, [#scratchStart, #scratchUsed).
  #pieces = NO_PIECES
  #scratch = null
  #scratchUsed = 0
  #scratchStart = 0

  /** Keeps bytes [start, end) of `chunk` as the next piece of the line. */
  add (chunk, start, end) {
    const length = end - start
    this.length += length
    if (length >= SMALL_PIECE) {
      this.#sealScratch()
      this.#piecesToAdd().push(start === 0 && end === chunk.length ? chunk : chunk.subarray(start, end))
      return
    }
    if (this.#scratch === null || this.#scratchUsed + length > this.#scratch.length) {
      this.#sealScratch()
      this.#scratch = allocUnsafe(SCRATCH_SIZE)
      this.#scratchUsed = this.#scratchStart = 0
    }
    this.#copyToScratch(chunk, start, end)
  }

  /**
   * The pending pieces and bytes [start, end) of `chunk` as one line: returns the buffer that holds
   * it, at [lineStart, lineEnd). Nothing is pending afterwards. The buffer may be the scratch buffer,
   * which the next add() reuses: read the line before adding to it.
   */
  join (chunk, start, end) {
    const scratch = this.#scratch
    if (this.#pieces.length === 0 && end - start <= COPY_MAX && this.#scratchUsed + (end - start) <= SCRATCH_SIZE) {
      // The common case of a short line cut in two: the pending part is all in the scratch buffer,
      // so complete it there, to be parsed in place.
      this.lineStart = this.#scratchStart
      this.#copyToScratch(chunk, start, end)
      this.lineEnd = this.#scratchUsed
      this.length = 0
      this.#scratchUsed = this.#scratchStart = 0
      return scratch
    }
    this.#sealScratch()
    const pieces = this.#pieces
    const total = this.length + (end - start)
    const line = allocUnsafe(total)
    let offset = 0
    for (let i = 0; i < pieces.length; i++) {
      line.set(pieces[i], offset)
      offset += pieces[i].length
    }
    if (end > start) line.set(chunk.subarray(start, end), offset)
    this.#pieces = NO_PIECES
    this.length = 0
    // The scratch buffer's sealed bytes now live in `line`; start it over.
    this.#scratchUsed = this.#scratchStart = 0
    this.lineStart = 0
    this.lineEnd = total
    return line
  }

  /** The line's first bytes: its first piece (at least 1 byte; a line is pending). */
  head () {
    this.#sealScratch()
    return this.#pieces[0]
  }

  /**
   * The pending pieces from their byte `skip` (within head()) and bytes [start, end) of `chunk` as
   * text, when they are all ASCII: each piece is decoded on its own and appended, so that no buffer
   * of the whole line is allocated and copied, nor a string of it (V8 keeps the text a rope of the
   * pieces). Nothing is pending afterwards. Null, with nothing changed, when a byte is not ASCII.
   */
  asciiText (chunk, start, end, skip) {
    this.#sealScratch()
    const pieces = this.#pieces
    const last = chunk.subarray(start, end)
    for (let i = 0; i < pieces.length; i++) {
      if (!isAscii(pieces[i])) return null
    }
    if (!isAscii(last)) return null
    let text = asciiSlice.call(pieces[0], skip, pieces[0].length)
    for (let i = 1; i < pieces.length; i++) text = text.concat(asciiSlice.call(pieces[i], 0, pieces[i].length))
    text = text.concat(asciiSlice.call(last, 0, last.length))
    this.#pieces = NO_PIECES
    this.length = 0
    this.#scratchUsed = this.#scratchStart = 0
    return text
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

  #piecesToAdd () {
    if (this.#pieces === NO_PIECES) this.#pieces = []
    return this.#pieces
  }

  // Turns the unsealed part of the scratch buffer into a piece, so later pieces follow it in order.
  #sealScratch () {
    if (this.#scratchUsed > this.#scratchStart) {
      this.#piecesToAdd().push(this.#scratch.subarray(this.#scratchStart, this.#scratchUsed))
      this.#scratchStart = this.#scratchUsed
    }
  }
}

// The pending line of a parser that has never had one (or was reset): shared, so that a parser between
// lines keeps nothing of its own for it. Frozen: it is never added to.
const NO_PENDING = Object.freeze(new PendingLine())

export { PendingLine, NO_PENDING }
