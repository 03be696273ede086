'use strict'

// The parts of the init dictionary that go into requests, beyond the standard's GET: user headers,
// method and body, normalized as fetch normalizes them. Each is checked up front, so a bad value is an
// exception from the constructor rather than a request that fails later; headers and bodies given as
// functions are checked again at each attempt, by lib/transport/request.js, which builds the requests.

const { isUint8Array, isArrayBuffer, bytesView } = require('#bytes')
const { codes: { ERR_INVALID_ARG_TYPE } } = require('../errors')
const {
  validateHeadersInit, validateHeaderPair, validateHeaderName, validateHeaderValue, validateMethod
} = require('../validators')

// Leading and trailing HTTP whitespace is removed, as fetch normalizes header values.
const EDGE_WHITESPACE = /^[\t\n\r ]+|[\t\n\r ]+$/g

// fetch upper-cases these method names whatever case they are given in (not PATCH: `patch` stays).
const NORMALIZED_METHODS = new Set(['DELETE', 'GET', 'HEAD', 'OPTIONS', 'POST', 'PUT'])

function addHeader (headers, name, value, optionName) {
  validateHeaderName(name, optionName)
  const lower = name.toLowerCase()
  const text = `${value}`.replace(EDGE_WHITESPACE, '')
  validateHeaderValue(text, name, optionName)
  headers[lower] = headers[lower] === undefined ? text : `${headers[lower]}, ${text}`
}

/**
 * Request headers as a plain object with lower-case names. Accepts what fetch's HeadersInit does:
 * a Headers, an iterable of [name, value] pairs, or a record.
 * @param {unknown} init
 * @param {string} optionName for error messages
 * @returns {Record<string, string>}
 */
function normalizeHeaders (init, optionName) {
  const headers = Object.create(null)
  validateHeadersInit(init, optionName)
  if (typeof init[Symbol.iterator] === 'function') {
    for (const pair of init) {
      validateHeaderPair(pair, optionName)
      addHeader(headers, pair[0], pair[1], optionName)
    }
  } else {
    for (const name of Object.keys(init)) addHeader(headers, name, init[name], optionName)
  }
  return headers
}

/**
 * A header name given as an option on its own (credentialHeaders, checked by validateHeaderNameList):
 * with the leading and trailing HTTP whitespace a copy-paste brings along removed, lower-cased as the
 * request's header names are, so that it matches the header it names.
 * @param {string} name
 * @returns {string}
 */
function normalizeHeaderName (name) {
  return name.replace(EDGE_WHITESPACE, '').toLowerCase()
}

/**
 * The method, as fetch normalizes it.
 * @param {unknown} method
 * @param {string} optionName for error messages
 * @returns {string}
 */
function normalizeMethod (method, optionName) {
  validateMethod(method, optionName)
  const upper = method.toUpperCase()
  return NORMALIZED_METHODS.has(upper) ? upper : method
}

/**
 * A request body and the Content-Type fetch would give it.
 * @param {unknown} body
 * @returns {{ body: string | Buffer, contentType: string | null }}
 */
function normalizeBody (body, optionName) {
  if (typeof body === 'string') return { body, contentType: 'text/plain;charset=UTF-8' }
  if (body instanceof URLSearchParams) {
    return { body: body.toString(), contentType: 'application/x-www-form-urlencoded;charset=UTF-8' }
  }
  // A view of the caller's memory, not a copy (a Buffer on Node).
  if (isUint8Array(body)) return { body: bytesView(body.buffer, body.byteOffset, body.byteLength), contentType: null }
  if (isArrayBuffer(body)) return { body: bytesView(body), contentType: null }
  throw new ERR_INVALID_ARG_TYPE(optionName, 'a string, Buffer, Uint8Array, ArrayBuffer, URLSearchParams or function', body)
}

module.exports = { normalizeHeaders, normalizeHeaderName, normalizeMethod, normalizeBody }
