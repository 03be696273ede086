// FetchAttempt: one attempt of an EventSource made with a fetch (the runtime's, or init.fetch), on runtimes
// without a usable undici Dispatcher (Bun, browsers, workers) and for users who bring their own fetch. It is
// StandardFetchAttempt (./standard-fetch.js: the body read into the sink, the timers, abort) with what the
// extensions need: a user's fetch, any request of ./request.js, the redirect rules its transport gives it
// (./transport-node.js, ./transport-web.js), and the Dispatcher transport's errors.
//
// Who follows redirects: docs/transports.md#who-follows-redirects. A user's fetch follows them itself
// because a wrapper adds its headers (an `Authorization: Bearer`) to what it sends, and only its fetch sees
// every hop, drops Authorization at another origin and applies the wrapper's own redirect mode: following
// them here would call the wrapper again for the other origin, and its header would go there. The
// exception, a request with credentials a fetch does not drop at another origin (Cookie,
// Proxy-Authorization, credentialHeaders), gets `redirect: 'manual'`: only redirects within its origin are
// followed, each hop through the fetch.

import { codes } from '../errors/connection.js'
import { StandardFetchAttempt, discardBody } from './standard-fetch.js'
import { AttemptTimers } from './attempt-timers.js'
import { fromFetchHeaders } from './response-headers.js'
const { ERR_EVENTSOURCE_DECODING, ERR_EVENTSOURCE_INVALID_REDIRECT } = codes

// The errors of zlib (Z_DATA_ERROR...), of its brotli decoder (ERR__ERROR_FORMAT_PADDING_2...) and of
// its zstd decoder: a body that does not decode.
const DECODER_ERROR = /^(?:Z_|ERR__ERROR_|ZSTD_error_)/

// A request body as every fetch takes it, and as its type says (types/index.d.ts): a string, or the bytes
// as an ArrayBuffer of their own (a Buffer may be a view into a shared pool).
function fetchBody (body) {
  if (body === null || typeof body === 'string') return body
  return body.buffer.slice(body.byteOffset, body.byteOffset + body.byteLength)
}

// undici's fetch (Node's) rejects with TypeError "fetch failed" when the request fails, and a body read
// fails with TypeError "terminated", each with the error that happened as its cause: the socket's, TLS's
// or zlib's. That error is what the Dispatcher transport reports, message and cause, and so is it here.
function underlyingError (err) {
  if (err instanceof TypeError && (err.message === 'fetch failed' || err.message === 'terminated') &&
      err.cause instanceof Error) {
    return err.cause
  }
  return err
}

class FetchAttempt extends StandardFetchAttempt {
  #fetch
  #redirects
  #policy
  #redirect
  // init.fetch, as opposed to the runtime's: it follows redirects itself (see above).
  #usersFetch
  #credentialOrigin
  // What the error of a body that does not decode says of its response: null without Content-Encoding.
  #decodingDetails = null

  // usersFetch: init.fetch (true), or the runtime's globalThis.fetch (false); redirects: the platform's rules.
  constructor (fetch, request, sink, usersFetch, redirects) {
    super(request, sink)
    this.#fetch = fetch
    this.#usersFetch = usersFetch
    this.#credentialOrigin = request.credentialOrigin
    const { redirect, withinOrigin } = redirects.fetchRedirects(request, usersFetch)
    this.#redirects = redirects
    this.#redirect = redirect
    this.#policy = new redirects.RedirectPolicy(request, { withinOrigin })
  }

  get url () {
    return this.#policy.url
  }

  get displayUrl () {
    return this.#policy.displayUrl
  }

  get fetchName () {
    return this.#usersFetch ? 'init.fetch' : 'globalThis.fetch'
  }

  // connectTimeout and idleTimeout.
  createTimers (request) {
    return new AttemptTimers(request, this)
  }

  send () {
    const policy = this.#policy
    this.fetchHop(this.#fetch, policy.method, policy.hopHeaders(), fetchBody(policy.body), this.#redirect)
  }

  received (response) {
    const policy = this.#policy
    if (response.type === 'opaqueredirect' && this.#redirect === 'manual') {
      // A runtime that hides redirects after all: ask again, and let its fetch follow them. (Once only:
      // an opaque redirect to a request that follows is a fetch that cannot be helped, below.) Not with
      // credentials that the fetch would take to whatever origin the redirect goes to.
      if (policy.withinOrigin) {
        this.fail(new ERR_EVENTSOURCE_INVALID_REDIRECT('a URL your fetch does not show', { url: policy.displayUrl }))
        return
      }
      this.#redirect = 'follow'
      this.send()
      return
    }
    const status = response.status
    const headers = fromFetchHeaders(response.headers)
    if (this.#redirect === 'manual' && this.#redirects.isRedirect(status, headers)) {
      discardBody(response)
      const error = policy.follow(status, headers.location)
      if (error === null) this.send()
      else this.fail(error)
      return
    }
    // When the fetch followed redirects itself, the final URL is the response's (and a 401 from there is
    // answered there, if at all).
    const redirected = this.#redirect === 'follow' && response.redirected === true && response.url !== ''
    if (redirected) {
      const error = policy.followedTo(response.url)
      if (error !== null) {
        discardBody(response)
        this.fail(error)
        return
      }
    }
    if (status === 401 && policy.answerChallenge(headers)) {
      discardBody(response)
      this.send()
      return
    }
    policy.release()
    if (headers['content-encoding'] !== undefined) {
      this.#decodingDetails = { status, statusText: response.statusText, headers, url: policy.displayUrl }
    }
    this.open(response, headers, redirected && !this.#reconnectsToFinalUrl() ? null : policy.method)
  }

  // After redirects the fetch followed: whether the next attempt may go straight to the final URL (else
  // the sink gets null: it starts from the first URL). Only for a GET (a 303 turns other methods into GET,
  // a 307 keeps them), and with a user's fetch only within the source's origin: elsewhere the wrapper
  // would add its credentials to a request it did not see redirected.
  #reconnectsToFinalUrl () {
    const policy = this.#policy
    if (policy.method !== 'GET') return false
    return !this.#usersFetch || policy.url.origin === this.#credentialOrigin
  }

  errorFor (err) {
    const cause = underlyingError(err)
    // A body the fetch could not decode: the Dispatcher transport's error, where the fetch says so (Node's
    // does, with zlib's error as the cause; a browser's says "network error" and nothing more).
    const details = this.#decodingDetails
    if (details !== null && typeof cause?.code === 'string' && DECODER_ERROR.test(cause.code)) {
      return new ERR_EVENTSOURCE_DECODING(details.headers['content-encoding'], details, cause)
    }
    return super.errorFor(cause)
  }
}

export { FetchAttempt }
