// Fetch's rules for a request whose redirects the client follows itself: the next hop's URL, method, headers and
// body, which credentials travel with it, the Origin header, and the answer to a 401 from the URL's credentials.
// One RedirectPolicy is one attempt's chain of hops; it sends nothing itself and knows nothing of event streams.
// https://fetch.spec.whatwg.org/#http-redirect-fetch
//
// Credentials in the URL (http://user:pass@host/events), as fetch uses them for a request whose
// credentials mode lets them go to its own origin:
// - never sent up front: the request goes to the URL without its userinfo;
// - a 401 is answered once, with `Authorization: Basic` built from them (HTTP-network-or-cache fetch,
//   step "If response's status is 401": an EventSource's request has the use-URL-credentials flag, so the
//   retry is an authentication fetch); a second 401 is the response;
// - not when the request already has an Authorization header (the step that adds it runs only
//   "if httpRequest's header list does not contain `Authorization`").
// https://fetch.spec.whatwg.org/#http-network-or-cache-fetch
// Where fetch leaves a choice, Chromium's: only a Basic challenge gets the password (a Digest or Bearer
// server gets nothing in clear text), and the user name and password are percent-decoded and sent as their
// UTF-8 bytes, or as written when the decoded bytes are not UTF-8.

import { utf8Bytes, allocUnsafe, isUtf8, concatBytes, toBase64 } from '#bytes'
import { codes as connectionCodes } from '../errors/connection.js'
import { codes as nodeTransportsCodes } from '../errors/node-transports.js'
import { splitHeaderValue } from './response-headers.js'
import { isHttpScheme, includesCredentials, displayHref, insecureRedirect } from './url.js'
const { ERR_EVENTSOURCE_INVALID_REDIRECT } = connectionCodes
const { ERR_EVENTSOURCE_TOO_MANY_REDIRECTS } = nodeTransportsCodes

// fetch's redirect limit.
const MAX_REDIRECTS = 20
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308])
// Sent by fetch on a cross-origin redirect only to the origin that was asked for. Fetch itself names
// Authorization; like undici's redirect handling we also keep Cookie and Proxy-Authorization back.
const CREDENTIAL_HEADERS = ['authorization', 'cookie', 'proxy-authorization']
// The request-body headers fetch removes when a redirect turns the request into a body-less GET.
const BODY_HEADERS = ['content-type', 'content-length', 'content-encoding', 'content-language', 'content-location']

// Whether a request carries credentials that a fetch following its redirects would send to another
// origin: fetch drops only Authorization there, and knows nothing of the user's credentialHeaders.
function carriesCredentialsFetchKeeps (request) {
  const headers = request.headers
  if (headers.cookie !== undefined || headers['proxy-authorization'] !== undefined) return true
  return request.credentialHeaders.some((name) => headers[name] !== undefined)
}

// A redirect status without a Location is the response, as in fetch.
function isRedirect (status, headers) {
  return REDIRECT_STATUSES.has(status) && headers.location !== undefined
}

// ---- credentials in the URL ----

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

// The Authorization value for a URL's credentials (`Basic`, base64 of "user:password"), or null.
function basicAuthorization (url) {
  if (!includesCredentials(url)) return null
  const pair = concatBytes([credentialBytes(url.username), utf8Bytes(':'), credentialBytes(url.password)])
  return `Basic ${toBase64(pair)}`
}

// A challenge starts with its scheme, then whitespace and parameters, or nothing (RFC 9110, 11.6.1).
const BASIC_CHALLENGE = /^[ \t]*basic(?:[ \t]|$)/i

// Whether a WWW-Authenticate value (repeated headers joined with ", ") offers the Basic scheme.
function offersBasic (value) {
  if (value === undefined) return false
  // Splitting at commas outside quoted strings also splits a challenge's parameters from each other;
  // a parameter ("realm=...") never looks like a scheme followed by whitespace.
  for (const part of splitHeaderValue(value)) {
    if (BASIC_CHALLENGE.test(part)) return true
  }
  return false
}

// ---- redirects ----

// Where code runs in a document or a worker, fetch's manual redirects are opaque: follow from the start.
const BROWSER = typeof globalThis.document !== 'undefined' || typeof globalThis.WorkerGlobalScope !== 'undefined'

// Who follows the redirects of a fetch attempt (docs/transports.md#who-follows-redirects): the fetch (`follow`)
// or the policy, hop by hop (`manual`); `withinOrigin`: a redirect to another origin is refused. `usersFetch`:
// init.fetch (true), or the runtime's fetch.
function fetchRedirects (request, usersFetch) {
  const withinOrigin = usersFetch && !BROWSER && carriesCredentialsFetchKeeps(request)
  return { redirect: BROWSER || (usersFetch && !withinOrigin) ? 'follow' : 'manual', withinOrigin }
}

class RedirectPolicy {
  #url
  // The request's URL string while the hop goes there (see `href`); null once it goes elsewhere.
  #requestHref
  #method
  #body
  #headers
  #documentOrigin
  #credentialOrigin
  #credentialHeaders
  #allowInsecureRedirect
  #withinOrigin
  // Fetch's "tainted origin flag": a redirect went from one foreign origin to another.
  #taintedOrigin = false
  #redirects = 0
  #credentialsDropped = false
  // Credentials in the URL (above) are for the request's origin: the document's when there is one,
  // else the EventSource's URL's. Fetch's response tainting turns "cors" for good once a request went
  // elsewhere; from then on they are never used.
  #requestOrigin
  #leftRequestOrigin = false
  // The Authorization value answering this hop's 401 challenge, once it has been answered.
  #challengeAnswer = null

  /**
   * @param {import('./request').EventSourceRequest} request
   * @param {{ headers?: Record<string, string>, withinOrigin?: boolean }} [options] `headers`: when the transport
   *   adds to the request's; `withinOrigin`: refuse a redirect to another origin rather than follow it without
   *   the credentials (a user's fetch may add its own to every hop)
   */
  constructor (request, { headers = request.headers, withinOrigin = false } = {}) {
    this.#url = new URL(request.url)
    this.#requestHref = this.#url.href === request.url ? request.url : null
    this.#method = request.method
    this.#body = request.body
    // Copied: a redirect may remove headers, and the request is not ours to change.
    this.#headers = { ...headers }
    this.#documentOrigin = request.documentOrigin
    this.#credentialOrigin = request.credentialOrigin
    this.#credentialHeaders = request.credentialHeaders
    this.#allowInsecureRedirect = request.allowInsecureRedirect
    this.#withinOrigin = withinOrigin
    this.#requestOrigin = request.documentOrigin ?? request.credentialOrigin
  }

  /** The URL of the current hop: after redirects, the final URL. */
  get url () {
    return this.#url
  }

  // The current URL's href: the request's own string while no redirect moved it (the source keeps
  // that one already: an idle connection then holds one copy of its URL, not two).
  get href () {
    return this.#requestHref ?? this.#url.href
  }

  /** The method of the current hop: a redirect may have turned it into GET, without a body. */
  get method () {
    return this.#method
  }

  get body () {
    return this.#body
  }

  get withinOrigin () {
    return this.#withinOrigin
  }

  /** The current URL as it may be shown in errors (no password). */
  get displayUrl () {
    return displayHref(this.#url)
  }

  // The headers of the next hop to send, with the credential rules applied. Called once per hop.
  hopHeaders () {
    const url = this.#url
    // Credentials go to their own origin only: not after a redirect elsewhere (fetch's "HTTP-redirect
    // fetch" step), and not on a reconnection that goes straight to another origin's final URL. Once
    // dropped they stay dropped, as in fetch, even if a later redirect comes back.
    if (!this.#credentialsDropped && url.origin !== this.#credentialOrigin) {
      for (const name of CREDENTIAL_HEADERS) delete this.#headers[name]
      for (const name of this.#credentialHeaders) delete this.#headers[name]
      this.#credentialsDropped = true
    }
    if (url.origin !== this.#requestOrigin) this.#leftRequestOrigin = true
    // The URL's userinfo is never sent as such: the transport sends the origin and the path.
    const headers = { ...this.#headers }
    if (this.#challengeAnswer !== null && !this.#leftRequestOrigin) headers.authorization = this.#challengeAnswer
    const origin = this.#originHeader()
    if (origin !== null) headers.origin = origin
    return headers
  }

  // Fetch's "append a request `Origin` header", for a CORS-mode request: only cross-origin requests
  // carry it, and only when there is a document origin to send (browser code under the polyfill).
  #originHeader () {
    if (this.#documentOrigin === null) return null
    if (this.#taintedOrigin) return 'null'
    return this.#url.origin === this.#documentOrigin ? null : this.#documentOrigin
  }

  // Fetch's "HTTP-network-or-cache fetch" for a 401: retried once with the URL's credentials (above). `headers`:
  // the 401 response's; returns whether the hop is to be sent again (with hopHeaders()).
  answerChallenge (headers) {
    if (this.#challengeAnswer !== null || this.#leftRequestOrigin) return false
    // A request that already has an Authorization header (the user's) gets none from the URL.
    if (this.#headers.authorization !== undefined || !offersBasic(headers['www-authenticate'])) return false
    const answer = basicAuthorization(this.#url)
    if (answer === null) return false
    this.#challengeAnswer = answer
    return true
  }

  // Fetch's "HTTP-redirect fetch": moves the policy to the next hop and returns null, or returns the error that
  // fails the connection (retrying would meet the same redirect).
  follow (status, location) {
    const from = this.#url
    const details = { status, url: displayHref(from) }
    let next
    try {
      next = new URL(location, from)
    } catch (err) {
      return new ERR_EVENTSOURCE_INVALID_REDIRECT(`an invalid URL: ${location}`, details, err)
    }
    if (!isHttpScheme(next)) {
      return new ERR_EVENTSOURCE_INVALID_REDIRECT(`an unsupported URL scheme: ${next.protocol}`, details)
    }
    if (this.#withinOrigin && next.origin !== from.origin) {
      return new ERR_EVENTSOURCE_INVALID_REDIRECT(`another origin, ${next.origin}, which the request's credentials ` +
        '(Cookie, Proxy-Authorization or a header named in credentialHeaders) would reach through your fetch', details)
    }
    // Fetch, steps 9 and 10: a redirect to a URL with credentials in it is a network error (futile to
    // retry) unless it stays on the request's origin, which the request never left. (A relative
    // Location keeps the credentials of the URL it is resolved against.)
    if (includesCredentials(next) && (next.origin !== this.#requestOrigin || this.#leftRequestOrigin)) {
      return new ERR_EVENTSOURCE_INVALID_REDIRECT('a URL that includes credentials', details)
    }
    // Fetch follows https: -> http:; we refuse it unless the user opts in (lib/transport/url.js says why).
    const insecure = insecureRedirect(from, next, this.#allowInsecureRedirect, details)
    if (insecure !== null) return insecure
    // A redirect loop is a network error in fetch; retrying it would loop forever, so the connection
    // fails instead (the standard lets a user agent fail when reconnecting is known to be futile).
    if (++this.#redirects > MAX_REDIRECTS) {
      return new ERR_EVENTSOURCE_TOO_MANY_REDIRECTS(MAX_REDIRECTS, displayHref(next), details)
    }
    // 303, and 301/302 after a POST, turn the request into a body-less GET.
    if (status === 303 ? this.#method !== 'HEAD' : (status === 301 || status === 302) && this.#method === 'POST') {
      this.#method = 'GET'
      this.#body = null
      for (const name of BODY_HEADERS) delete this.#headers[name]
    }
    if (next.origin !== from.origin && this.#documentOrigin !== null && from.origin !== this.#documentOrigin) {
      this.#taintedOrigin = true
    }
    this.#url = next
    this.#requestHref = null
    // The new request is not an authentication fetch: it goes without the URL's credentials, and a
    // 401 to it may be answered again.
    this.#challengeAnswer = null
    return null
  }

  // The fetch followed redirects by its own rules to `href`: the policy moves there, for a 401 to answer and the
  // next attempt. When that is another origin than the request's, the URL's credentials are not used again.
  // Returns ERR_EVENTSOURCE_INSECURE_REDIRECT when they went from https: to http: (the request is gone already,
  // but what came back in clear text is not used), else null.
  followedTo (href) {
    const from = this.#url
    const next = new URL(href)
    this.#url = next
    this.#requestHref = null
    if (next.origin !== this.#requestOrigin) {
      this.#leftRequestOrigin = true
    } else {
      // The fetch was given the URL without its credentials, so the final URL has none either: they
      // stay the request origin's, for a 401 from there, as they would after a relative Location.
      next.username = from.username
      next.password = from.password
    }
    this.#challengeAnswer = null
    return insecureRedirect(from, next, this.#allowInsecureRedirect, { url: displayHref(from) })
  }

  /** The response is final: only redirects need the request's headers and body again. */
  release () {
    this.#headers = null
    this.#body = null
  }
}

export { RedirectPolicy, isRedirect, fetchRedirects }
