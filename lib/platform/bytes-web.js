// `#bytes` where there is no Buffer (browsers, workers): the interface of ./bytes-node.js on web APIs alone,
// less what only lib/transport/redirect-policy-node.js uses, which a browser build does not load.
// test/platform/platform-web.test.cjs checks that each function answers as its Node counterpart does, and
// test/package/bundle.test.cjs that every function a module of a browser build takes from here is here.

// ignoreBOM: a U+FEFF inside a value is a character, as Buffer's decoder keeps it (the stream's one
// leading BOM is the parser's to drop). Not fatal: invalid sequences become U+FFFD, as in Buffer.
// Each constant is marked pure, so that a bundle whose modules use none of its functions leaves it out.
const utf8 = /* @__PURE__ */ new TextDecoder('utf-8', { ignoreBOM: true })
const encoder = /* @__PURE__ */ new TextEncoder()

// The getter of %TypedArray%.prototype[Symbol.toStringTag] names the typed array it is called on, and
// answers undefined for anything else: an exact check, across realms too, as node:util/types makes.
const typedArrayName = /* @__PURE__ */ Object.getOwnPropertyDescriptor(
  Object.getPrototypeOf(Uint8Array.prototype), Symbol.toStringTag
).get

// Characters per String.fromCharCode call: well below any engine's limit on arguments.
const CHARS_PER_CALL = 8192

function utf8Slice (start, end) {
  return utf8.decode(this.subarray(start, end))
}

function indexOf (byte, fromIndex) {
  return Uint8Array.prototype.indexOf.call(this, byte, fromIndex)
}

function isAscii (bytes) {
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] > 0x7f) return false
  }
  return true
}

function isUint8Array (value) {
  return typedArrayName.call(value) === 'Uint8Array'
}

// ArrayBuffer.prototype.byteLength's getter throws for anything but an ArrayBuffer (a SharedArrayBuffer too).
// Looked up per call, which is once per request body, so that a bundle without requests has none of it.
function isArrayBuffer (value) {
  try {
    Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, 'byteLength').get.call(value)
    return true
  } catch {
    return false
  }
}

function allocUnsafe (size) {
  return new Uint8Array(size)
}

function bytesView (buffer, byteOffset, byteLength) {
  return new Uint8Array(buffer, byteOffset, byteLength)
}

function utf8Bytes (string) {
  return encoder.encode(string)
}

// Each byte as the character of the same code: latin1.
function latin1String (bytes) {
  let string = ''
  for (let i = 0; i < bytes.length; i += CHARS_PER_CALL) {
    string += String.fromCharCode.apply(null, bytes.subarray(i, i + CHARS_PER_CALL))
  }
  return string
}

function utf8AsLatin1 (string) {
  return latin1String(encoder.encode(string))
}

// The length of a string in UTF-8, as TextEncoder writes it: a lone surrogate as U+FFFD, 3 bytes.
function utf8Length (string) {
  let length = string.length
  for (let i = 0; i < string.length; i++) {
    const code = string.charCodeAt(i)
    if (code < 0x80) continue
    if (code < 0x800) {
      length++
    } else if (code >= 0xd800 && code <= 0xdbff && i + 1 < string.length &&
        (string.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      // a surrogate pair: 4 bytes for 2 characters
      length += 2
      i++
    } else {
      length += 2
    }
  }
  return length
}

function concatBytes (list) {
  let length = 0
  for (const bytes of list) length += bytes.length
  const joined = new Uint8Array(length)
  let offset = 0
  for (const bytes of list) {
    joined.set(bytes, offset)
    offset += bytes.length
  }
  return joined
}

function utf8Write (bytes, string, offset) {
  return encoder.encodeInto(string, bytes.subarray(offset)).written
}

export {
  utf8Slice, utf8Slice as asciiSlice, indexOf, isAscii, isUint8Array, isArrayBuffer, allocUnsafe, bytesView,
  utf8Bytes, utf8AsLatin1, utf8Length, utf8Write, concatBytes
}
