'use strict'

// Response headers as one plain object with lower-case names (a repeated header combined with ", ", as
// fetch's Headers does), from a fetch Headers here and from undici's shapes in
// lib/transport/undici-handler.js; and what the source and the redirect policy read of header values.

/**
 * @param {Headers} fetchHeaders
 * @returns {Record<string, string>}
 */
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

/**
 * The essence (type/subtype, lower case) of a Content-Type value, as fetch's "extract a MIME type"
 * finds it: of a combined value, the last part that is a valid MIME type other than *\/*.
 * '' when there is none.
 * @param {string | undefined} value
 */
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

module.exports = { fromFetchHeaders, mimeEssence, splitHeaderValue }
