'use strict'

// Credentials in the URL (http://user:pass@host/events), used as fetch uses them for a request whose
// credentials mode lets them go to its own origin:
// - never sent up front: the request goes to the URL without its userinfo;
// - a 401 is answered once, with `Authorization: Basic` built from them (HTTP-network-or-cache fetch,
//   step "If response's status is 401": the request's use-URL-credentials flag is set for an
//   EventSource, so the retry is an authentication fetch, whose Authorization comes from the URL);
//   a second 401 is the response;
// - not when the request already has an Authorization header (the step that adds it runs only
//   "if httpRequest's header list does not contain `Authorization`").
// https://fetch.spec.whatwg.org/#http-network-or-cache-fetch
//
// Where fetch leaves a choice, browsers decide: Chromium answers only a challenge it can parse, with
// the URL's identity in the scheme the server asked for. Basic is the one scheme answered here, so only
// a Basic challenge gets the password (a Digest or Bearer server gets nothing in clear text).
// The user name and password are percent-decoded and sent as their UTF-8 bytes, as Chromium does
// (GetIdentityFromURL, then UTF-8 in the Basic handler); a part whose decoded bytes are not UTF-8 is
// sent as written, also as Chromium does. (undici 8's fetch sends the percent-encoded text as it is.)

const { utf8Bytes, allocUnsafe, isUtf8, concatBytes, toBase64 } = require('#bytes')
const { splitHeaderValue } = require('./response-headers')

function hexValue (code) {
  if (code >= 0x30 && code <= 0x39) return code - 0x30
  const lower = code | 0x20
  if (lower >= 0x61 && lower <= 0x66) return lower - 0x61 + 10
  return -1
}

// The URL standard's percent-decode: %XX becomes the byte XX, anything else stays as it is.
function percentDecode (text) {
  const bytes = utf8Bytes(text)
  const out = allocUnsafe(bytes.length)
  let length = 0
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i]
    if (byte === 0x25 && i + 2 < bytes.length) {
      const high = hexValue(bytes[i + 1])
      const low = hexValue(bytes[i + 2])
      if (high !== -1 && low !== -1) {
        out[length++] = high * 16 + low
        i += 2
        continue
      }
    }
    out[length++] = byte
  }
  return out.subarray(0, length)
}

function credentialBytes (text) {
  const decoded = percentDecode(text)
  return isUtf8(decoded) ? decoded : utf8Bytes(text)
}

/**
 * Whether a URL includes credentials (the URL standard's "includes credentials").
 * @param {URL} url
 */
function includesCredentials (url) {
  return url.username !== '' || url.password !== ''
}

/**
 * The Authorization value for a URL's credentials: `Basic` and base64 of "user:password".
 * @param {URL} url
 * @returns {string | null} null when the URL includes none
 */
function basicAuthorization (url) {
  if (!includesCredentials(url)) return null
  const pair = concatBytes([credentialBytes(url.username), utf8Bytes(':'), credentialBytes(url.password)])
  return `Basic ${toBase64(pair)}`
}

// A challenge starts with its scheme, then whitespace and parameters, or nothing (RFC 9110, 11.6.1).
const BASIC_CHALLENGE = /^[ \t]*basic(?:[ \t]|$)/i

/**
 * Whether a WWW-Authenticate value (repeated headers joined with ", ") offers the Basic scheme.
 * @param {string | undefined} value
 */
function offersBasic (value) {
  if (value === undefined) return false
  // Splitting at commas outside quoted strings also splits a challenge's parameters from each other;
  // a parameter ("realm=...") never looks like a scheme followed by whitespace.
  for (const part of splitHeaderValue(value)) {
    if (BASIC_CHALLENGE.test(part)) return true
  }
  return false
}

/**
 * The URL as it may be shown: in error messages and details, logs, a terminal. The password (and the
 * user name with it) must not travel further than the request does.
 * @param {URL} url
 * @returns {string}
 */
function displayHref (url) {
  if (!includesCredentials(url)) return url.href
  const shown = new URL(url.href)
  shown.username = ''
  shown.password = ''
  return shown.href
}

module.exports = { includesCredentials, basicAuthorization, offersBasic, displayHref }
