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
const { codes: { ERR_INVALID_ARG_TYPE, ERR_INVALID_ARG_VALUE } } = require('../errors-arguments')
const { codes: { ERR_EVENTSOURCE_REQUEST_INIT } } = require('../errors-connection')
const { validateObject } = require('../validators-values')
const {
  validateHeadersInit, validateHeaderPair, validateHeaderName, validateHeaderValue, validateMethod, isSendableLastEventId
} = require('../validators-http')

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
 * @property {{ code: string, status: number | undefined, headers: Headers | undefined } | null} previous
 *   why the previous attempt ended, and its response's headers; null for the first
 */

/**
 * @typedef {object} RequestChanges what init.request() says of an attempt, normalized: each member
 *   undefined where the attempt goes as it would
 * @property {string} [url]
 * @property {string} [method]
 * @property {Record<string, string>} [headers] the attempt's headers, in place of the init's
 * @property {{ body: string | Uint8Array, contentType: string | null } | null} [body]
 */

/**
 * The init's `request` function as the source calls it before each attempt: the user's, or the one that
 * function-valued `headers` and `body` members stand for (headers and body functions are shorthand for a
 * request function that returns `{ headers }` or `{ body }`). It returns the changes normalized, or a
 * promise of them when a user function returned one. What a user function throws or rejects with is
 * wrapped as ERR_EVENTSOURCE_REQUEST_INIT, which reestablishes the connection (a token service may be
 * down for a moment); a result that cannot be sent throws as it is, and fails the connection.
 * @param {{ request?: Function, headers?: Function, body?: Function }} functions the init's functions
 * @returns {((context: object, sourceUrl: string) => RequestChanges | Promise<RequestChanges>) | null} null when
 *   there is none; `sourceUrl` is what a relative URL in the result is resolved against
 */
function requestFunction ({ request, headers, body }) {
  if (request !== undefined) {
    return (context, sourceUrl) => settle(callUser(request, context, 'init.request'), (changes) => normalizeChanges(changes, sourceUrl))
  }
  if (headers === undefined && body === undefined) return null
  return (context) => {
    const h = headers === undefined ? undefined : callUser(headers, context, 'init.headers')
    let b
    try {
      // No body once a redirect turned the request into a GET (the init's method, with a body, is neither).
      b = body === undefined || !hasBody(context.method) ? undefined : callUser(body, context, 'init.body')
    } catch (err) {
      // The headers promise is abandoned: its rejection, if any, must not go unhandled.
      if (typeof h?.then === 'function') h.catch(() => {})
      throw err
    }
    const finish = (h, b) => ({
      headers: h == null ? undefined : normalizeHeaders(h, 'the result of init.headers()'),
      body: body === undefined || !hasBody(context.method) ? undefined : normalizeBody(b, 'the result of init.body()')
    })
    if (typeof h?.then === 'function' || typeof b?.then === 'function') return Promise.all([h, b]).then(([h, b]) => finish(h, b))
    return finish(h, b)
  }
}

// Whether a request with this method may carry a body (fetch: not GET or HEAD).
function hasBody (method) {
  return method !== 'GET' && method !== 'HEAD'
}

// Calls a user function of the init. What it throws or rejects with becomes ERR_EVENTSOURCE_REQUEST_INIT.
function callUser (fn, context, name) {
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

// `then(value)` now, or once `value` has settled when it is a promise.
function settle (value, then) {
  return typeof value?.then === 'function' ? value.then(then) : then(value)
}

const CHANGE_MEMBERS = ['url', 'method', 'headers', 'body']
const NO_CHANGES = Object.freeze({})

// What init.request() returned, checked and normalized: undefined (or null) for no change, else an
// object with url, method, headers and body, each optional.
function normalizeChanges (changes, sourceUrl) {
  if (changes == null) return NO_CHANGES
  const name = 'the result of init.request()'
  validateObject(changes, name)
  // A member we do not know is a mistake (a headers object returned as such, a misspelling), not
  // something to ignore.
  for (const key of Object.keys(changes)) {
    if (!CHANGE_MEMBERS.includes(key)) {
      throw new ERR_INVALID_ARG_VALUE(name, changes, `has a member '${key}': it may have url, method, headers and body`)
    }
  }
  const { url, method, headers, body } = changes
  const normalized = {}
  if (url !== undefined) {
    if (typeof url !== 'string' && !(url instanceof URL)) throw new ERR_INVALID_ARG_TYPE(`${name}.url`, 'a string or a URL', url)
    try {
      normalized.url = new URL(`${url}`, sourceUrl).href
    } catch (cause) {
      throw new ERR_INVALID_ARG_VALUE(`${name}.url`, url, 'is not a valid URL')
    }
  }
  if (method !== undefined) normalized.method = normalizeMethod(method, `${name}.method`)
  if (headers !== undefined && headers !== null) normalized.headers = normalizeHeaders(headers, `${name}.headers`)
  if (body !== undefined) normalized.body = body === null ? null : normalizeBody(body, `${name}.body`)
  return normalized
}

/**
 * The request of one attempt, or a promise of it when an init function returned one. Throws (or
 * rejects with) ERR_EVENTSOURCE_REQUEST_INIT when such a function threw, to be retried; any other error
 * is a value that cannot be sent.
 * @param {object} init the source's resolved init (lib/eventsource/init.js)
 * @param {RequestTarget} target
 * @returns {EventSourceRequest | Promise<EventSourceRequest>}
 */
function buildRequest (init, target) {
  if (init.request === null) return assemble(init, target, NO_CHANGES)
  // What a user function is given: AttemptContext in types/index.d.ts.
  const context = {
    attempt: target.attempt,
    lastEventId: target.lastEventId,
    url: target.url,
    method: target.method,
    previous: target.previous
  }
  return settle(init.request(context, target.sourceUrl), (changes) => assemble(init, target, changes))
}

/**
 * What init.request() is told of the previous attempt (`previous`): why it ended, and the headers of its
 * response, or of the last response before it ended (a stream that ended or dropped).
 * @param {Error & { status?: number, headers?: Record<string, string> }} error
 * @param {Record<string, string> | null} responseHeaders
 */
function previousAttempt (error, responseHeaders) {
  const headers = error.headers ?? responseHeaders
  // A stream that ended or dropped had a 200 response.
  const status = error.status ?? (responseHeaders === null ? undefined : 200)
  return Object.freeze({ code: error.code, status, headers: headers == null ? undefined : new Headers(headers) })
}

/**
 * @param {object} init
 * @param {RequestTarget} target
 * @param {RequestChanges} changes
 * @returns {EventSourceRequest}
 */
function assemble (init, target, changes) {
  const method = changes.method ?? target.method
  // The init's body goes with the method it was given for only: not after a redirect turned the request
  // into a GET (303, or 301/302 after a POST; reconnections to the final URL go the same way), not with
  // another method init.request() chose. A body that init.request() returns goes as it is, but not with
  // GET or HEAD.
  let body
  if (changes.body !== undefined) {
    body = changes.body
    if (body !== null && !hasBody(method)) {
      throw new ERR_INVALID_ARG_VALUE('the result of init.request().body', '[body]', `cannot be sent with ${method}`)
    }
  } else {
    body = method === init.method && typeof init.body !== 'function' ? init.body : null
  }
  // The request's cache mode is "no-store": the headers fetch sends for it (Pragma, Cache-Control), and
  // Accept-Encoding, are the transport's to add, as a fetch adds them itself. Headers that
  // init.request() returns are the attempt's, in place of the init's (a resumption may need fewer: no
  // Content-Type on the GET that resumes a POST).
  const headers = { accept: 'text/event-stream', ...(changes.headers ?? (typeof init.headers === 'function' ? null : init.headers)) }
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
    // A URL init.request() chose is as any other: credentials (headers, or in the URL) go only to the
    // source URL's origin (credentialOrigin), as after a redirect.
    url: changes.url ?? target.url,
    method,
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

module.exports = { buildRequest, requestFunction, previousAttempt, normalizeHeaders, normalizeHeaderName, normalizeMethod, normalizeBody }
