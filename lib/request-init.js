'use strict'

// The request an EventSource sends, beyond the standard's GET: user headers, method and body. Each
// is checked up front, so a bad value is an exception from the constructor rather than a request that
// fails later; headers and bodies given as functions are checked again at each attempt.

const { Buffer } = require('node:buffer')
const { isUint8Array, isArrayBuffer } = require('node:util/types')
const { invalidArgType, invalidArgValue, invalidHttpToken, invalidChar, connectionError } = require('./errors')

// RFC 9110 token characters.
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/
// What a header value cannot hold: CR, LF and NUL would end or corrupt the header, and undici (like
// Node's http) refuses every other control character but tab; fetch's ByteString conversion refuses
// anything above U+00FF.
const INVALID_VALUE = /[^\t\x20-\x7e\x80-\xff]/
// The same for a last event ID, whose characters above U+007F are sent as their UTF-8 bytes.
const INVALID_LAST_EVENT_ID = /[\0-\x08\x0a-\x1f\x7f]/
// Leading and trailing HTTP whitespace is removed, as fetch normalizes header values.
const EDGE_WHITESPACE = /^[\t\n\r ]+|[\t\n\r ]+$/g

// Headers the HTTP client manages (framing, connection), and the one EventSource manages itself.
const MANAGED_HEADERS = new Set([
  'connection', 'content-length', 'expect', 'keep-alive', 'proxy-connection', 'te', 'trailer',
  'transfer-encoding', 'upgrade'
])
// fetch upper-cases these method names whatever case they are given in (not PATCH: `patch` stays).
const NORMALIZED_METHODS = new Set(['DELETE', 'GET', 'HEAD', 'OPTIONS', 'POST', 'PUT'])
const FORBIDDEN_METHODS = new Set(['CONNECT', 'TRACE', 'TRACK'])

function addHeader (headers, name, value, optionName) {
  if (typeof name !== 'string' || !TOKEN.test(name)) throw invalidHttpToken(`Header name in ${optionName}`, name)
  const lower = name.toLowerCase()
  if (lower === 'last-event-id') {
    throw invalidArgValue(optionName, name,
      'must not set Last-Event-ID: EventSource sends it itself; use the lastEventId option to start from an ID')
  }
  if (MANAGED_HEADERS.has(lower)) throw invalidArgValue(optionName, name, `must not set ${name}: the HTTP client manages it`)
  const text = `${value}`.replace(EDGE_WHITESPACE, '')
  if (INVALID_VALUE.test(text)) throw invalidChar(`header "${name}" of ${optionName}`, text)
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
  if (init === null || typeof init !== 'object') {
    throw invalidArgType(optionName, 'of type object (a Headers, an array of pairs, a record) or function', init)
  }
  if (typeof init[Symbol.iterator] === 'function') {
    for (const pair of init) {
      if (pair === null || typeof pair !== 'object' || pair.length !== 2) {
        throw invalidArgValue(optionName, pair, 'must hold [name, value] pairs')
      }
      addHeader(headers, pair[0], pair[1], optionName)
    }
  } else {
    for (const name of Object.keys(init)) addHeader(headers, name, init[name], optionName)
  }
  return headers
}

/**
 * A header name given as an option on its own (credentialHeaders): with the leading and trailing HTTP
 * whitespace a copy-paste brings along removed, checked to be a token, lower-cased as the request's
 * header names are, so that it matches the header it names.
 * @param {string} name
 * @param {string} optionName for error messages
 * @returns {string}
 */
function normalizeHeaderName (name, optionName) {
  const trimmed = name.replace(EDGE_WHITESPACE, '')
  if (!TOKEN.test(trimmed)) throw invalidHttpToken(`Header name in ${optionName}`, name)
  return trimmed.toLowerCase()
}

/**
 * The method, as fetch normalizes it.
 * @param {unknown} method
 * @returns {string}
 */
function normalizeMethod (method, optionName) {
  if (typeof method !== 'string') throw invalidArgType(optionName, 'of type string', method)
  if (!TOKEN.test(method)) throw invalidHttpToken(`The method in ${optionName}`, method)
  const upper = method.toUpperCase()
  if (FORBIDDEN_METHODS.has(upper)) throw invalidArgValue(optionName, method, 'is a method fetch forbids')
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
  if (isUint8Array(body)) return { body: Buffer.from(body.buffer, body.byteOffset, body.byteLength), contentType: null }
  if (isArrayBuffer(body)) return { body: Buffer.from(body), contentType: null }
  throw invalidArgType(optionName, 'a string, Buffer, Uint8Array, ArrayBuffer, URLSearchParams or function', body)
}

/**
 * The last event ID to start from: it goes into a header, so it must be one.
 * @param {unknown} value
 */
function validateLastEventId (value, optionName) {
  if (typeof value !== 'string') throw invalidArgType(optionName, 'of type string', value)
  if (INVALID_LAST_EVENT_ID.test(value)) throw invalidChar(optionName, value)
}

// Calls a user's init.headers or init.body function. What it throws or rejects with is wrapped as
// ERR_EVENTSOURCE_REQUEST_INIT, which reestablishes the connection (a token service may be down for a
// moment); a result that is not valid is thrown as it is and fails the connection.
function callInit (fn, context, name) {
  const wrap = (err) => connectionError('ERR_EVENTSOURCE_REQUEST_INIT', `${name}() failed: ${err?.message ?? err}`, undefined,
    // The error event's cause is an Error, even when the function threw something else.
    err instanceof Error ? err : new Error(String(err)))
  let result
  try {
    result = fn(context)
  } catch (err) {
    throw wrap(err)
  }
  return typeof result?.then === 'function' ? Promise.resolve(result).catch((err) => { throw wrap(err) }) : result
}

/**
 * The user headers and the body of one attempt.
 * @param {{ headers: object | Function | null, body: object | Function | null }} init resolved init
 * @param {{ attempt: number, lastEventId: string, url: string }} context passed to the functions
 * @returns {{ headers: Record<string, string> | null, body: { body: string | Buffer, contentType: string | null } | null }
 *   | Promise<{ headers: Record<string, string> | null, body: { body: string | Buffer, contentType: string | null } | null }>}
 */
function attemptRequest (init, context) {
  const headersFn = typeof init.headers === 'function'
  const bodyFn = typeof init.body === 'function'
  const headers = headersFn ? callInit(init.headers, context, 'init.headers') : init.headers
  let body
  try {
    body = bodyFn ? callInit(init.body, context, 'init.body') : init.body
  } catch (err) {
    // The headers promise is abandoned: its rejection, if any, must not go unhandled.
    if (typeof headers?.then === 'function') headers.catch(() => {})
    throw err
  }
  const finish = (headers, body) => ({
    headers: headersFn && headers != null ? normalizeHeaders(headers, 'the result of init.headers()') : headers ?? null,
    body: bodyFn ? normalizeBody(body, 'the result of init.body()') : body
  })
  if (typeof headers?.then === 'function' || typeof body?.then === 'function') {
    return Promise.all([headers, body]).then(([headers, body]) => finish(headers, body))
  }
  return finish(headers, body)
}

/**
 * Whether a last event ID can go into a Last-Event-ID header at all.
 * @param {string} id
 */
function isSendableLastEventId (id) {
  return !INVALID_LAST_EVENT_ID.test(id)
}

module.exports = {
  normalizeHeaders, normalizeHeaderName, normalizeMethod, normalizeBody, validateLastEventId, isSendableLastEventId, attemptRequest
}
