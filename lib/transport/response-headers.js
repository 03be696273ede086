// Response headers as one plain object with lower-case names (a repeated header combined with ", ", as
// fetch's Headers does), from a fetch Headers here and from undici's shapes in
// lib/transport/dispatcher-transport.js; and what the source and the redirect policy read of header values.

function fromFetchHeaders (fetchHeaders) {
  const headers = Object.create(null)
  // Names come lower-cased and combined already, except Set-Cookie, which comes once per header.
  for (const [name, value] of fetchHeaders) {
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`
  }
  return headers
}

// RFC 9110 token characters, for the type and subtype of a MIME type.
const MIME_ESSENCE = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+\/[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/

// Fetch's "getting, decoding, and splitting" a header value: at commas outside quoted strings.
function splitHeaderValue (value) {
  const parts = []
  let start = 0
  let quoted = false
  for (let i = 0; i < value.length; i++) {
    const char = value[i]
    if (quoted) {
      if (char === '\\') i++
      else if (char === '"') quoted = false
    } else if (char === '"') {
      quoted = true
    } else if (char === ',') {
      parts.push(value.slice(start, i))
      start = i + 1
    }
  }
  parts.push(value.slice(start))
  return parts
}

// The essence (type/subtype, lower case) of a Content-Type value, as fetch's "extract a MIME type"
// finds it: of a combined value, the last part that is a valid MIME type other than */*.
// '' when there is none.
function mimeEssence (value) {
  if (value === undefined) return ''
  let essence = ''
  for (const part of splitHeaderValue(value)) {
    const semicolon = part.indexOf(';')
    const candidate = (semicolon === -1 ? part : part.slice(0, semicolon)).trim().toLowerCase()
    if (MIME_ESSENCE.test(candidate) && candidate !== '*/*') essence = candidate
  }
  return essence
}

// A MIME type's charset parameter, its value quoted (backslash escapes and all) or not. (TextDecoder trims
// a label's whitespace itself.)
const CHARSET = /;[\t\n\r ]*charset=("(?:[^"\\]|\\.)*"?|[^;]*)/i

// The charset of a Content-Type value: that of its last valid MIME type, as fetch's "extract a MIME type"
// finds it (but for its rule that a MIME type without one keeps that of a MIME type of the same essence
// just before it, in a header sent more than once). '' when there is none.
function mimeCharset (value) {
  let charset = ''
  for (const part of splitHeaderValue(value ?? '')) {
    if (mimeEssence(part) === '') continue
    const found = CHARSET.exec(part)?.[1] ?? ''
    charset = found[0] === '"' ? found.replace(/^"|"$/g, '').replace(/\\(.)/g, '$1') : found
  }
  return charset
}

export { fromFetchHeaders, mimeEssence, mimeCharset, splitHeaderValue }
