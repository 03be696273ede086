// Strings in a stream of bytes: EventSourceParserStream takes either, and encodes strings as UTF-8,
// what a TextDecoderStream decoded them from. A TextDecoderStream never splits a character, but other
// producers cut strings anywhere, surrogate pairs included: a high surrogate that ends a chunk waits
// for the next one, so the pair is encoded whole. A lone surrogate, which UTF-8 cannot encode, becomes
// U+FFFD, as Buffer.from() and TextEncoder make it.

// #bytes: Buffer.from(string, 'utf8') on Node, Bun and Deno; TextEncoder in browsers (package.json "imports").
import { utf8Bytes } from '#bytes'

const HIGH_SURROGATE_FIRST = 0xd800
const HIGH_SURROGATE_LAST = 0xdbff

class StringChunkEncoder {
  // A high surrogate held back from the end of the last chunk, or ''.
  #held = ''

  // The bytes of `string`, less a high surrogate at its end (kept for the next chunk).
  encode (string) {
    if (this.#held !== '') {
      string = this.#held + string
      this.#held = ''
    }
    const last = string.charCodeAt(string.length - 1)
    if (last >= HIGH_SURROGATE_FIRST && last <= HIGH_SURROGATE_LAST) {
      this.#held = string.slice(-1)
      string = string.slice(0, -1)
    }
    return utf8Bytes(string)
  }

  // What is held back, as bytes (U+FFFD), when the strings end or bytes come next; null if nothing.
  flush () {
    if (this.#held === '') return null
    const held = utf8Bytes(this.#held)
    this.#held = ''
    return held
  }
}

export { StringChunkEncoder }
