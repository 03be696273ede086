// Response body decoding for Content-Encoding, as fetch does it: the codings of ./codings.js, in any
// combination, undone in reverse order. An unknown coding leaves the body as it is, as in fetch.

import { isDecoded } from './codings.js'

// node:zlib is loaded with the first encoded body (process.getBuiltinModule): most event streams are sent
// as they are, and node:zlib costs every process start-up time (benchmarks/startup).
let zlib = null
// Flush what is available at every chunk: an event must reach the parser as soon as its bytes do.
let ZLIB_OPTIONS
let BROTLI_OPTIONS
let ZSTD_OPTIONS

// The largest window a zstd frame may ask for: 8 MiB, the limit of the "zstd" content coding (RFC 9659,
// section 3), which Chromium enforces too. zstd's own default lets a frame take 128 MiB of memory.
const ZSTD_WINDOW_LOG_MAX = 23

function loadZlib () {
  zlib = process.getBuiltinModule('node:zlib')
  const { constants } = zlib
  ZLIB_OPTIONS = { flush: constants.Z_SYNC_FLUSH, finishFlush: constants.Z_SYNC_FLUSH }
  BROTLI_OPTIONS = { flush: constants.BROTLI_OPERATION_FLUSH, finishFlush: constants.BROTLI_OPERATION_FLUSH }
  ZSTD_OPTIONS = { params: { [constants.ZSTD_d_windowLogMax]: ZSTD_WINDOW_LOG_MAX } }
}

// The most codings one body may list: each is a decoder with its own native state, so a list of thousands
// costs a hostile server one header line and the client thousands of decoders. The Fetch standard sets
// no number; undici's fetch stops at 5 (after curl's CVE-2022-32206), and so do we.
const MAX_CODINGS = 5

// The codings of a Content-Encoding value, lower-cased, in the order they were applied, or null
// when the body is not to be decoded.
function parseContentEncoding (value) {
  if (value === undefined || value === '') return null
  const codings = []
  for (const part of value.split(',')) {
    const coding = part.trim().toLowerCase()
    if (coding === '' || coding === 'identity') continue
    if (!isDecoded(coding)) return null
    codings.push(coding)
  }
  return codings.length === 0 ? null : codings
}

// HTTP's "deflate" is the zlib format, but some servers send raw deflate; like browsers, look at the
// first byte (a zlib header's low nibble is 8) when it is the outermost coding and so can be seen.
function createStage (coding, firstByte) {
  if (zlib === null) loadZlib()
  switch (coding) {
    case 'br':
      return zlib.createBrotliDecompress(BROTLI_OPTIONS)
    case 'zstd':
      // zstd's decoder hands out what it has at each write: no flush mode to ask for.
      return zlib.createZstdDecompress(ZSTD_OPTIONS)
    case 'deflate':
      return firstByte === undefined || (firstByte & 0x0f) === 0x08
        ? zlib.createInflate(ZLIB_OPTIONS)
        : zlib.createInflateRaw(ZLIB_OPTIONS)
    default:
      return zlib.createGunzip(ZLIB_OPTIONS)
  }
}

// Decodes a body through one zlib stage per coding, created on the first chunk, when the deflate variant
// can be told. onError comes once, on corrupt input.
//
// Backpressure goes all the way through: a few hundred compressed bytes can hold gigabytes, so pausing
// the socket alone bounds nothing. While paused, the last stage is not read, so zlib stops once its output
// buffer is full, stages in between wait on each other through pipe(), and write() returns false once the
// first stage holds enough input: the connection then stops reading the socket until onDrain.
class ContentDecoder {
  #codings
  #stages = null
  #last = null
  #failed = false
  #paused = false
  // #flow() is running: resume() from inside it (a consumer reading during dispatch) only clears the flag.
  #flowing = false
  #onData
  #onEnd
  #onError
  #onDrain

  constructor (codings, { onData, onEnd, onError, onDrain }) {
    this.#codings = codings
    this.#onData = onData
    this.#onEnd = onEnd
    this.#onError = onError
    this.#onDrain = onDrain
  }

  /** Returns false when no more input should be written until onDrain. */
  write (chunk) {
    if (this.#stages === null) this.#build(chunk[0])
    return this.#stages[0].write(chunk)
  }

  end () {
    if (this.#stages === null) {
      // An empty body decodes to nothing.
      this.#onEnd()
      return
    }
    this.#stages[0].end()
  }

  /** Stops handing out decoded bytes; the stages stop decoding once their buffers are full. */
  pause () {
    this.#paused = true
  }

  resume () {
    if (!this.#paused) return
    this.#paused = false
    if (this.#last !== null && !this.#flowing) this.#flow(false)
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
    stages[0].on('drain', () => { if (!this.#failed) this.#onDrain() })
    // The last stage is read in paused mode ('readable' and read()), so that not reading it is what
    // holds zlib back; 'data' events would keep the stage flowing.
    const last = stages[stages.length - 1]
    last.on('readable', () => this.#flow(true))
    last.on('end', () => { if (!this.#failed) this.#onEnd() })
    this.#last = last
    this.#stages = stages
  }

  #flow (readable) {
    const last = this.#last
    this.#flowing = true
    let chunk
    while (!this.#paused && !this.#failed && (chunk = last.read()) !== null) this.#onData(chunk)
    this.#flowing = false
    // Paused with nothing buffered, 'readable' means the body has ended: read() once more to let
    // 'end' come (it has no data to hand out). A body that ends while decoded bytes wait is ended
    // only once they have been read.
    if (readable && this.#paused && !this.#failed && last.readableLength === 0) last.read()
  }

  #fail (err) {
    if (this.#failed) return
    this.destroy()
    this.#onError(err)
  }
}

export { parseContentEncoding, ContentDecoder, MAX_CODINGS }
