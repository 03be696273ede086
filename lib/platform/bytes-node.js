'use strict'

// Bytes and strings on Node, and on Bun and Deno, which match the `node` condition too: Buffer's own
// functions, the very ones the parser called before the package ran anywhere else. package.json's
// "imports" maps `#bytes` here for the `node` condition; lib/platform/bytes-web.js is the same interface on web
// APIs alone, for browsers and workers.

const { Buffer, isAscii, isUtf8 } = require('node:buffer')
const { isUint8Array, isArrayBuffer } = require('node:util/types')

module.exports = {
  // Methods, called as utf8Slice.call(bytes, start, end): Buffer's decoders and indexOf work on any
  // Uint8Array, so a plain Uint8Array chunk needs no Buffer view allocated per write.
  // utf8Slice: U+FFFD for invalid sequences; a U+FEFF stays a character.
  utf8Slice: Buffer.prototype.utf8Slice,
  // asciiSlice: for bytes known to be ASCII, where latin1 is UTF-8 and latin1Slice the fastest exact
  // decoder (it skips UTF-8 validation).
  asciiSlice: Buffer.prototype.latin1Slice,
  // indexOf(byte, fromIndex)
  indexOf: Buffer.prototype.indexOf,
  isAscii,
  isUtf8,
  isUint8Array,
  isArrayBuffer,
  // Looked up at each call, as `Buffer.allocUnsafe(size)` always was (test/parser/parser-linear.test.js counts
  // the parser's allocations by wrapping it); V8 inlines the extra call.
  allocUnsafe: (size) => Buffer.allocUnsafe(size),
  /** A Buffer over an ArrayBuffer's memory (all of it without offset and length): no copy. */
  bytesView: (buffer, byteOffset, byteLength) => Buffer.from(buffer, byteOffset, byteLength),
  utf8Bytes: (string) => Buffer.from(string, 'utf8'),
  concatBytes: (list) => Buffer.concat(list),
  toBase64: (bytes) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64'),
  /** A string's UTF-8 bytes, one character per byte: how a header value carries them. */
  utf8AsLatin1: (string) => Buffer.from(string, 'utf8').toString('latin1')
}
