// The request of each attempt: made once per attempt, frozen, and handed to a transport (./transport-node.js).
// - standardRequest(): the standard's request, a GET that accepts `text/event-stream`, with Last-Event-ID
//   once there is a last event ID, in the credentials mode withCredentials says: all a browser build without
//   `whatwg-eventsource/extensions` sends (./standard-fetch.js sends it).
// - buildRequest(): the request the extensions' members describe too (resolved by ./request-init.js), with
//   everything the transport needs to send it and to follow its redirects as fetch would.
// https://html.spec.whatwg.org/multipage/server-sent-events.html#dom-eventsource (steps 7-13: the request)
// https://html.spec.whatwg.org/multipage/server-sent-events.html#reestablish-the-connection (Last-Event-ID)

import { utf8AsLatin1 } from '#bytes'
import { UNSENDABLE_LAST_EVENT_ID } from '../constants.js'
import { codes } from '../errors/arguments.js'
const { ERR_INVALID_ARG_VALUE } = codes

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
 * @typedef {import('../../types/index').AttemptContext & { sourceUrl: string }} RequestTarget where an
 *   attempt goes: what init.request() is given, and the source's URL
 */

/**
 * @typedef {object} RequestChanges what init.request() says of an attempt (types/index.d.ts), normalized: each
 *   member undefined where the attempt goes as it would; `headers` in place of the init's; `body` as
 *   `{ body, contentType }`, or null for none
 */

// Whether a request with this method may carry a body (fetch: not GET or HEAD).
function hasBody (method) {
  return method !== 'GET' && method !== 'HEAD'
}

// `then(value)` now, or once `value` has settled when it is a promise.
function settle (value, then) {
  return typeof value?.then === 'function' ? value.then(then) : then(value)
}

const NO_CHANGES = Object.freeze({})

// Adds Last-Event-ID to `headers` (lower-case names) when the source's last event ID string is one to send.
function addLastEventId (headers, lastEventId) {
  // Processing model, reestablish step 5.3: "If the EventSource object's last event ID string is not
  // the empty string, set (`Last-Event-ID`, last event ID string, encoded as UTF-8)". Header values
  // are written as latin1, so the UTF-8 bytes are spelled one character per byte.
  // An ID with a control character (a server may send one) cannot be sent as a header by undici or
  // Node's http; the header is left out rather than the request failing again at every attempt.
  if (lastEventId !== '' && !UNSENDABLE_LAST_EVENT_ID.test(lastEventId)) {
    headers['last-event-id'] = utf8AsLatin1(lastEventId)
  }
}

// The members of an EventSourceRequest that ./standard-fetch.js reads, with the standard's values.
function standardRequest (init, target) {
  const headers = { accept: 'text/event-stream' }
  addLastEventId(headers, target.lastEventId)
  return Object.freeze({
    attempt: target.attempt,
    url: target.url,
    method: 'GET',
    headers: Object.freeze(headers),
    withCredentials: init.withCredentials,
    allowInsecureRedirect: false,
    connectTimeout: init.connectTimeout,
    idleTimeout: 0
  })
}

// The request of one attempt, or a promise of it when an init function returned one. Throws (or rejects with)
// ERR_EVENTSOURCE_REQUEST_INIT when such a function threw, to be retried; any other error: a value not sendable.
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

// What init.request() is told of the previous attempt (`previous`): why it ended, and the headers of its
// response, or of the last response before it ended (a stream that ended or dropped); the text of the body
// of a response the source did not take (./error-body.js).
function previousAttempt (error, responseHeaders) {
  const headers = error.headers ?? responseHeaders
  // A stream that ended or dropped had a 200 response.
  const status = error.status ?? (responseHeaders === null ? undefined : 200)
  return Object.freeze({
    code: error.code, status, headers: headers == null ? undefined : new Headers(headers), body: error.body
  })
}

function assemble (init, target, changes) {
  const method = changes.method ?? target.method
  // The init's body goes with the method it was given for only: not after a redirect turned the request into a
  // GET (303, or 301/302 after a POST; reconnections to the final URL go the same way), not with another method
  // init.request() chose. A body that init.request() returns goes as it is, but not with GET or HEAD.
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
  // Accept-Encoding, are the transport's to add, as a fetch adds them itself. Headers that init.request()
  // returns replace the init's (a resumption may need fewer: no Content-Type on the GET that resumes a POST).
  const headers = {
    accept: 'text/event-stream',
    ...(changes.headers ?? (typeof init.headers === 'function' ? null : init.headers))
  }
  if (body !== null && body.contentType !== null && headers['content-type'] === undefined) {
    headers['content-type'] = body.contentType
  }
  addLastEventId(headers, target.lastEventId)
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

export { standardRequest, buildRequest, previousAttempt, settle, hasBody, NO_CHANGES }
