'use strict'

// The request of one attempt: built here, once per attempt, frozen, and handed to a transport
// (lib/transport/transport-node.js). It holds everything the transport needs to send it and to follow its redirects
// as fetch would; nothing about it changes once built.
// https://html.spec.whatwg.org/multipage/server-sent-events.html#dom-eventsource (steps 7-13: the request)
// https://html.spec.whatwg.org/multipage/server-sent-events.html#reestablish-the-connection (Last-Event-ID)

const { utf8AsLatin1 } = require('#bytes')
const { codes: { ERR_EVENTSOURCE_REQUEST_INIT } } = require('../errors')
const { normalizeHeaders, normalizeBody } = require('./request-init')
const { isSendableLastEventId } = require('../validators')

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
    idleTimeout: init.idleTimeout
  })
}

module.exports = { buildRequest }
