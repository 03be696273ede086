'use strict'

// Requests: everything of the init dictionary that goes into one, and the request of each attempt.
// - The init's headers, method and body (beyond the standard's GET) are normalized here as fetch
//   normalizes them, and checked up front, so that a bad value is an exception from the constructor
//   rather than a request that fails later (lib/eventsource/init.js calls these).
// - buildRequest() makes the request of one attempt, once per attempt, frozen, and hands it to a
//   transport (lib/transport/transport-node.js). It holds everything the transport needs to send it and
//   to follow its redirects as fetch would; nothing about it changes once built. Headers and bodies
//   given as functions are called and checked again here, at each attempt.
// https://html.spec.whatwg.org/multipage/server-sent-events.html#dom-eventsource (steps 7-13: the request)
// https://html.spec.whatwg.org/multipage/server-sent-events.html#reestablish-the-connection (Last-Event-ID)

const { utf8AsLatin1, isUint8Array, isArrayBuffer, bytesView } = require('#bytes')
const { codes: { ERR_EVENTSOURCE_REQUEST_INIT, ERR_INVALID_ARG_TYPE } } = require('../errors')
const {
  validateHeadersInit, validateHeaderPair, validateHeaderName, validateHeaderValue, validateMethod, isSendableLastEventId
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

/**
 * @typedef {object} EventSourceRequest
 * @property {number} attempt 1 for the first request of a source, then counting
 * @property {string} url where the request goes (the source's URL, or the final URL of the last
 *   response), credentials included when it has them: they are answered to a 401, never sent up front
 * @property {string} method
 * @property {Readonly<Record<string, string>>} headers lower-case names: the standard's, the user's,
 *   the body's Content-Type, Last-Event-ID
 * @property {string | Buffer | null} body
 * @property {boolean} withCredentials the source's withCredentials (fetch's credentials mode)
 * @property {string} credentialOrigin the origin credential headers are meant for: the source URL's
 * @property {string | null} documentOrigin the origin of globalThis.location, when there is one
 * @property {readonly string[]} credentialHeaders more headers to keep from other origins (extension)
 * @property {boolean} allowInsecureRedirect follow https: -> http: redirects (extension)
 * @property {number} connectTimeout ms until the response head, 0 for none (extension)
 * @property {number} idleTimeout ms without a byte on an open connection, 0 for none (extension)
 * @property {Readonly<{ fetch: Function | undefined, dispatcher: object | undefined, http2: object | null }>} transport
 *   how it goes out: the user's fetch, the user's dispatcher, the HTTP/2 sessions to share, or none of them
 *   (lib/transport/transport-node.js)
 */

/**
 * @typedef {object} RequestTarget where an attempt goes, and what the source knows at that point
 * @property {number} attempt
 * @property {string} sourceUrl the source's URL (its `url` attribute)
 * @property {string} url where requests go now
 * @property {string} method the method requests go with now
 * @property {string} lastEventId the source's last event ID string
 */

/**
 * The request of one attempt, or a promise of it when init.headers or init.body is a function that
 * returned one. Throws (or rejects with) ERR_EVENTSOURCE_REQUEST_INIT when such a function threw, to
 * be retried; any other error is a value that cannot be sent.
 * @param {object} init the source's resolved init (lib/eventsource/init.js)
 * @param {RequestTarget} target
 * @returns {EventSourceRequest | Promise<EventSourceRequest>}
 */
function buildRequest (init, target) {
  const context = { attempt: target.attempt, lastEventId: target.lastEventId, url: target.url }
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
  const finish = (headers, body) => assemble(init, target,
    headersFn && headers != null ? normalizeHeaders(headers, 'the result of init.headers()') : headers ?? null,
    bodyFn ? normalizeBody(body, 'the result of init.body()') : body)
  if (typeof headers?.then === 'function' || typeof body?.then === 'function') {
    return Promise.all([headers, body]).then(([headers, body]) => finish(headers, body))
  }
  return finish(headers, body)
}

// Calls a user's init.headers or init.body function. What it throws or rejects with is wrapped as
// ERR_EVENTSOURCE_REQUEST_INIT, which reestablishes the connection (a token service may be down for a
// moment); a result that is not valid is thrown as it is and fails the connection.
function callInit (fn, context, name) {
  const wrap = (err) => new ERR_EVENTSOURCE_REQUEST_INIT(name, err?.message ?? err, undefined,
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
 * @param {object} init
 * @param {RequestTarget} target
 * @param {Record<string, string> | null} userHeaders
 * @param {{ body: string | Buffer, contentType: string | null } | null} body
 * @returns {EventSourceRequest}
 */
function assemble (init, target, userHeaders, body) {
  // The request's cache mode is "no-store": the headers fetch sends for it (Pragma, Cache-Control), and
  // Accept-Encoding, are the transport's to add, as a fetch adds them itself.
  const headers = { accept: 'text/event-stream', ...userHeaders }
  // A redirect that turned the request into a GET (303, or 301/302 after a POST) took its body along;
  // reconnections to the final URL go the same way.
  if (target.method !== init.method) body = null
  if (body !== null && body.contentType !== null && headers['content-type'] === undefined) {
    headers['content-type'] = body.contentType
  }
  // Processing model, reestablish step 5.3: "If the EventSource object's last event ID string is not
  // the empty string, set (`Last-Event-ID`, last event ID string, encoded as UTF-8)". Header values
  // are written as latin1, so the UTF-8 bytes are spelled one character per byte.
  // An ID with a control character (a server may send one) cannot be sent as a header by undici or
  // Node's http; the header is left out rather than the request failing again at every attempt.
  const lastEventId = target.lastEventId
  if (lastEventId !== '' && isSendableLastEventId(lastEventId)) {
    headers['last-event-id'] = utf8AsLatin1(lastEventId)
  }
  const location = globalThis.location
  return Object.freeze({
    attempt: target.attempt,
    url: target.url,
    method: target.method,
    headers: Object.freeze(headers),
    body: body === null ? null : body.body,
    withCredentials: init.withCredentials,
    credentialOrigin: new URL(target.sourceUrl).origin,
    documentOrigin: location === undefined ? null : new URL(`${location.href}`).origin,
    credentialHeaders: init.credentialHeaders,
    allowInsecureRedirect: init.allowInsecureRedirect,
    connectTimeout: init.connectTimeout,
    idleTimeout: init.idleTimeout,
    transport: init.transport
  })
}

module.exports = { buildRequest, normalizeHeaders, normalizeHeaderName, normalizeMethod, normalizeBody }
