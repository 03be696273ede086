// Bytes and strings on Node, Bun and Deno (the `node` condition of package.json's "imports"): Buffer's own
// functions. lib/platform/bytes-web.js is the same interface on web APIs alone, for browsers and workers.

// Built-ins are taken with process.getBuiltinModule(), not imported, here and in every module a Node process
// loads at start: an ES module's import of a built-in builds one more module, of its exports, at each start.
const { Buffer, isAscii, isUtf8 } = process.getBuiltinModule('node:buffer')
const { isUint8Array, isArrayBuffer } = process.getBuiltinModule('node:util/types')

// Methods, called as utf8Slice.call(bytes, start, end): Buffer's decoders and indexOf work on any
// Uint8Array, so a plain Uint8Array chunk needs no Buffer view allocated per write.
// utf8Slice: U+FFFD for invalid sequences; a U+FEFF stays a character.
const utf8Slice = Buffer.prototype.utf8Slice
// asciiSlice: for bytes known to be ASCII, where latin1 is UTF-8 and latin1Slice the fastest exact
// decoder (it skips UTF-8 validation).
const asciiSlice = Buffer.prototype.latin1Slice
// indexOf(byte, fromIndex)
const indexOf = Buffer.prototype.indexOf
// Looked up at each call: test/parser/parser-linear.test.cjs counts the parser's allocations by wrapping
// Buffer.allocUnsafe. V8 inlines the extra call.
const allocUnsafe = (size) => Buffer.allocUnsafe(size)
/** A Buffer over an ArrayBuffer's memory (all of it without offset and length): no copy. */
const bytesView = (buffer, byteOffset, byteLength) => Buffer.from(buffer, byteOffset, byteLength)
const utf8Bytes = (string) => Buffer.from(string, 'utf8')
const concatBytes = (list) => Buffer.concat(list)
const toBase64 = (bytes) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64')
/** A string's UTF-8 bytes, one character per byte: how a header value carries them. */
const utf8AsLatin1 = (string) => Buffer.from(string, 'utf8').toString('latin1')
/** The length of a string in UTF-8 (a lone surrogate as U+FFFD, 3 bytes). */
const utf8Length = (string) => Buffer.byteLength(string, 'utf8')
// utf8Write.call(bytes, string, offset): writes a string's UTF-8 at offset, returns the bytes written.
const utf8WriteMethod = Buffer.prototype.utf8Write
/** Writes a string's UTF-8 into bytes at offset, where there is room for it all; returns its length. */
const utf8Write = (bytes, string, offset) => utf8WriteMethod.call(bytes, string, offset)

export {
  utf8Slice, asciiSlice, indexOf, isAscii, isUtf8, isUint8Array, isArrayBuffer, allocUnsafe, bytesView, utf8Bytes,
  concatBytes, toBase64, utf8AsLatin1, utf8Length, utf8Write
}
