'use strict'

// Response body decoding for Content-Encoding, as fetch does it: gzip (x-gzip), deflate (zlib-wrapped
// or raw, told apart by the first byte, as browsers do) and br, in any combination, undone in reverse
// order. An unknown coding leaves the body as it is, which is also what fetch does.

const zlib = require('node:zlib')

// Flush what is available at every chunk: an event must reach the parser as soon as its bytes do.
const ZLIB_OPTIONS = { flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH }
const BROTLI_OPTIONS = {
  flush: zlib.constants.BROTLI_OPERATION_FLUSH,
  finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH
}

/**
 * The codings of a Content-Encoding value, lower-cased, in the order they were applied, or null
 * when the body is not to be decoded.
 * @param {string | undefined} value
 * @returns {string[] | null}
 */
function parseContentEncoding (value) {
  if (value === undefined || value === '') return null
  const codings = []
  for (const part of value.split(',')) {
    const coding = part.trim().toLowerCase()
    if (coding === '' || coding === 'identity') continue
    if (coding !== 'gzip' && coding !== 'x-gzip' && coding !== 'deflate' && coding !== 'br') return null
    codings.push(coding)
  }
  return codings.length === 0 ? null : codings
}

// HTTP's "deflate" is the zlib format, but some servers send raw deflate; like browsers, look at the
// first byte (a zlib header's low nibble is 8) when it is the outermost coding and so can be seen.
function createStage (coding, firstByte) {
  switch (coding) {
    case 'br':
      return zlib.createBrotliDecompress(BROTLI_OPTIONS)
    case 'deflate':
      return firstByte === undefined || (firstByte & 0x0f) === 0x08
        ? zlib.createInflate(ZLIB_OPTIONS)
        : zlib.createInflateRaw(ZLIB_OPTIONS)
    default:
      return zlib.createGunzip(ZLIB_OPTIONS)
  }
}

/**
 * Decodes a body through one zlib stage per coding. Decoded bytes go to onData; onEnd after the last
 * byte of a complete body; onError once, on corrupt input. Stages are created on the first chunk,
 * when the deflate variant can be told.
 */
class ContentDecoder {
  #codings
  #stages = null
  #failed = false
  #onData
  #onEnd
  #onError

  constructor (codings, { onData, onEnd, onError }) {
    this.#codings = codings
    this.#onData = onData
    this.#onEnd = onEnd
    this.#onError = onError
  }

  write (chunk) {
    if (this.#stages === null) this.#build(chunk[0])
    this.#stages[0].write(chunk)
  }

  end () {
    if (this.#stages === null) {
      // An empty body decodes to nothing.
      this.#onEnd()
      return
    }
    this.#stages[0].end()
  }

  destroy () {
    this.#failed = true
    if (this.#stages !== null) for (const stage of this.#stages) stage.destroy()
  }

  #build (firstByte) {
    // Undo the codings last-applied first; only that outermost stage sees the body's first byte.
    const stages = []
    for (let i = this.#codings.length - 1; i >= 0; i--) {
      const stage = createStage(this.#codings[i], stages.length === 0 ? firstByte : undefined)
      stage.on('error', (err) => this.#fail(err))
      if (stages.length > 0) stages[stages.length - 1].pipe(stage)
      stages.push(stage)
    }
    const last = stages[stages.length - 1]
    last.on('data', (data) => { if (!this.#failed) this.#onData(data) })
    last.on('end', () => { if (!this.#failed) this.#onEnd() })
    this.#stages = stages
  }

  #fail (err) {
    if (this.#failed) return
    this.destroy()
    this.#onError(err)
  }
}

module.exports = { parseContentEncoding, ContentDecoder }
