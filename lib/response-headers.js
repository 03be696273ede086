'use strict'

// Response headers as one plain object with lower-case names, whichever handler API delivered them:
// raw [name, value, ...] Buffers (the legacy onHeaders) or undici's parsed object (onResponseStart).
// A repeated header is combined with ", ", as fetch's Headers does.

/**
 * @param {Array<Buffer | string>} raw
 * @returns {Record<string, string>}
 */
function fromRawHeaders (raw) {
  const headers = Object.create(null)
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i].toString('latin1').toLowerCase()
    const value = raw[i + 1].toString('latin1')
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`
  }
  return headers
}

/**
 * @param {Record<string, string | string[] | undefined>} parsed
 * @returns {Record<string, string>}
 */
function fromParsedHeaders (parsed) {
  const headers = Object.create(null)
  for (const name of Object.keys(parsed)) {
    const value = parsed[name]
    if (value === undefined) continue
    headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value)
  }
  return headers
}

/**
 * The essence (type/subtype, lower case) of a Content-Type value, or '' when there is none.
 * @param {string | undefined} value
 */
function mimeEssence (value) {
  if (value === undefined) return ''
  // Of a combined value, the last MIME type counts, as in fetch's "extract a MIME type".
  const comma = value.lastIndexOf(',')
  const last = comma === -1 ? value : value.slice(comma + 1)
  const semicolon = last.indexOf(';')
  return (semicolon === -1 ? last : last.slice(0, semicolon)).trim().toLowerCase()
}

module.exports = { fromRawHeaders, fromParsedHeaders, mimeEssence }
