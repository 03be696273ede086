// Strings in a stream of bytes, for EventSourceParserStream: encoded as UTF-8. Producers other than a
// TextDecoderStream may cut a surrogate pair: a high surrogate that ends a chunk waits for the next one,
// so the pair is encoded whole. A lone surrogate becomes U+FFFD, as Buffer.from() and TextEncoder make it.

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
