// Requests as the init's extensions describe them (for lib/eventsource/init-extensions.js):
// - the init's headers, method and body, normalized as fetch normalizes them and checked up front, so that
//   a bad value throws from the constructor rather than failing a request later;
// - the init's `request` function, or the one function-valued headers and body stand for, called before
//   each attempt (by lib/transport/request.js's buildRequest()), its result checked then.

import { isUint8Array, isArrayBuffer, bytesView } from '#bytes'
import { codes as argumentsCodes } from '../errors/arguments.js'
import { codes as connectionCodes } from '../errors/connection.js'
import { validateObject } from '../validators/values.js'
import {
  validateHeadersInit, validateHeaderPair, validateHeaderName, validateHeaderValue, validateMethod
} from '../validators/http.js'
import { settle, hasBody, NO_CHANGES } from './request.js'
const { ERR_INVALID_ARG_TYPE, ERR_INVALID_ARG_VALUE } = argumentsCodes
const { ERR_EVENTSOURCE_REQUEST_INIT } = connectionCodes

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

// Request headers as a plain object with lower-case names, from a fetch HeadersInit.
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

// A header name given on its own (credentialHeaders), trimmed of the HTTP whitespace a copy-paste brings
// along and lower-cased, so that it matches the request's header it names.
function normalizeHeaderName (name) {
  return name.replace(EDGE_WHITESPACE, '').toLowerCase()
}

// The method, as fetch normalizes it.
function normalizeMethod (method, optionName) {
  validateMethod(method, optionName)
  const upper = method.toUpperCase()
  return NORMALIZED_METHODS.has(upper) ? upper : method
}

/**
 * A request body and the Content-Type fetch would give it.
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
  throw new ERR_INVALID_ARG_TYPE(optionName,
    'a string, Buffer, Uint8Array, ArrayBuffer, URLSearchParams or function', body)
}

/**
 * The init's `request` function as the source calls it before each attempt: the user's, or the one that
 * function-valued `headers` and `body` stand for. It returns the changes normalized, or a promise of them.
 * What a user function throws or rejects with becomes ERR_EVENTSOURCE_REQUEST_INIT, which reestablishes
 * the connection (a token service may be down for a moment); a result that cannot be sent throws as it
 * is, and fails the connection.
 * @param {{ request?: Function, headers?: Function, body?: Function }} functions the init's functions
 * @returns {((context: object, sourceUrl: string) => RequestChanges | Promise<RequestChanges>) | null} null when
 *   there is none; a relative URL in the result is resolved against `sourceUrl`
 */
function requestFunction ({ request, headers, body }) {
  if (request !== undefined) {
    return (context, sourceUrl) =>
      settle(callUser(request, context, 'init.request'), (changes) => normalizeChanges(changes, sourceUrl))
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
    if (typeof h?.then === 'function' || typeof b?.then === 'function') {
      return Promise.all([h, b]).then(([h, b]) => finish(h, b))
    }
    return finish(h, b)
  }
}

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

const CHANGE_MEMBERS = ['url', 'method', 'headers', 'body']

// What init.request() returned, checked and normalized: null or undefined for no change.
function normalizeChanges (changes, sourceUrl) {
  if (changes == null) return NO_CHANGES
  const name = 'the result of init.request()'
  validateObject(changes, name)
  // A member we do not know is a mistake (a headers object returned as such, a misspelling).
  for (const key of Object.keys(changes)) {
    if (!CHANGE_MEMBERS.includes(key)) {
      throw new ERR_INVALID_ARG_VALUE(name, changes, `has a member '${key}': it may have url, method, headers and body`)
    }
  }
  const { url, method, headers, body } = changes
  const normalized = {}
  if (url !== undefined) {
    if (typeof url !== 'string' && !(url instanceof URL)) {
      throw new ERR_INVALID_ARG_TYPE(`${name}.url`, 'a string or a URL', url)
    }
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

export { requestFunction, normalizeHeaders, normalizeHeaderName, normalizeMethod, normalizeBody }
