'use strict'

// The fetch transport: one attempt of an EventSource made with a fetch() (the runtime's, or init.fetch),
// for runtimes without a usable undici Dispatcher (Bun, browsers, workers) and for users who bring their
// own fetch. The response body's bytes are read from its reader straight into the sink; pause() stops
// reading, which is backpressure through the stream. What it reports, and when, is the transport
// interface of lib/transport/transport-node.js, with the same errors as the Dispatcher transport.
//
// Redirects:
// - The runtime's fetch (Bun, a Node without undici) is asked for `redirect: 'manual'` where the runtime
//   shows redirect responses to code (Node, Deno, Bun), and they are followed here by the same rules as on
//   a dispatcher (lib/transport/redirect-policy-node.js): credentials, https: to http:, loops.
// - A user's fetch (init.fetch) follows them itself (`redirect: 'follow'`), by its own rules, as the
//   `eventsource` package and fetch-event-source call theirs: a wrapper adds its headers (an
//   `Authorization: Bearer`) to what it sends, and only its fetch sees every hop, drops Authorization at
//   another origin (every fetch does) and applies the wrapper's own redirect mode (the MCP SDK's refuses
//   cross-origin redirects). Following them here would call the wrapper again for the other origin, and
//   its header would go there. The exception: a request that carries credentials a fetch does not drop
//   at another origin (Cookie, Proxy-Authorization, a header named in credentialHeaders) is sent with
//   `redirect: 'manual'`, and only redirects within its origin are followed, each hop through the fetch;
//   a redirect elsewhere fails the connection.
// - Browsers and workers hide redirects from code (an "opaqueredirect" response): there fetch follows them
//   itself, by the browser's rules.
// When the fetch followed redirects, the next attempt goes to the final URL only when the method is sure
// to be the same (a GET), and, for a user's fetch, only within the source's origin: elsewhere the wrapper
// would add its credentials to a request it did not see redirected.

const { codes: { ERR_INVALID_ARG_TYPE } } = require('../errors/arguments')
const {
  codes: { ERR_EVENTSOURCE_ABORTED, ERR_EVENTSOURCE_DECODING, ERR_EVENTSOURCE_INVALID_REDIRECT, ERR_EVENTSOURCE_NETWORK, ERR_EVENTSOURCE_UNSUPPORTED_SCHEME }
} = require('../errors/connection')
// lib/transport/redirect-policy-node.js on Node, Bun and Deno; lib/transport/redirect-policy-web.js elsewhere, where
// the runtime's fetch follows every redirect itself (package.json's "imports").
const { RedirectPolicy, isRedirect, fetchRedirects } = require('#redirect-policy')
const { isHttpScheme } = require('./url')
const { AttemptTimers } = require('./attempt-timers')
const { fromFetchHeaders } = require('./response-headers')

// The errors of zlib (Z_DATA_ERROR...), of its brotli decoder (ERR__ERROR_FORMAT_PADDING_2...) and of
// its zstd decoder: a body that does not decode.
const DECODER_ERROR = /^(?:Z_|ERR__ERROR_|ZSTD_error_)/

// A response whose body is not read is cancelled, so that its connection is released.
function discardBody (response) {
  const body = response.body
  if (body != null && typeof body.cancel === 'function' && !body.locked) body.cancel().catch(() => {})
}

// A request body as every fetch takes it, and as its type says (types/index.d.ts): a string, or the bytes
// as an ArrayBuffer of their own (a Buffer may be a view into a shared pool).
function fetchBody (body) {
  if (body === null || typeof body === 'string') return body
  return body.buffer.slice(body.byteOffset, body.byteOffset + body.byteLength)
}

// What a fetch resolved with, as far as this transport reads it: a status, headers to iterate, and no
// body or a WHATWG ReadableStream. (A Node stream body, as node-fetch has, is not one.)
function isResponse (value) {
  return value !== null && typeof value === 'object' && typeof value.status === 'number' &&
    typeof value.headers?.[Symbol.iterator] === 'function' && (value.body == null || typeof value.body.getReader === 'function')
}

// undici's fetch (Node's) rejects with TypeError "fetch failed" when the request fails, and a body read
// fails with TypeError "terminated", each with the error that happened as its cause: the socket's, TLS's
// or zlib's. That error is what the Dispatcher transport reports, message and cause, and so is it here.
function underlyingError (err) {
  if (err instanceof TypeError && (err.message === 'fetch failed' || err.message === 'terminated') && err.cause instanceof Error) {
    return err.cause
  }
  // An error event's cause is an Error, even when a user's fetch rejected with something else.
  return err instanceof Error ? err : new Error(String(err))
}

class FetchAttempt {
  #fetch
  #fetchName
  #sink
  #policy
  #timers
  #redirect
  #credentials
  // A user's fetch (init.fetch), as opposed to the runtime's: it follows redirects itself (see above).
  #usersFetch
  #credentialOrigin
  #controller = new AbortController()
  #reader = null
  #reading = false
  #paused = false
  #done = false
  // What the error of a body that does not decode says of its response: null without Content-Encoding.
  #decodingDetails = null

  /**
   * @param {typeof fetch} fetch
   * @param {import('./request').EventSourceRequest} request
   * @param {import('./transport-node').TransportSink} sink
   * @param {boolean} usersFetch init.fetch (true), or the runtime's globalThis.fetch (false)
   */
  constructor (fetch, request, sink, usersFetch) {
    this.#fetch = fetch
    this.#fetchName = usersFetch ? 'init.fetch' : 'globalThis.fetch'
    this.#sink = sink
    this.#usersFetch = usersFetch
    this.#credentialOrigin = request.credentialOrigin
    // Who follows redirects: see the top of this file.
    const { redirect, withinOrigin } = fetchRedirects(request, usersFetch)
    this.#redirect = redirect
    this.#policy = new RedirectPolicy(request, { withinOrigin })
    // The standard's request: credentials mode "include" with withCredentials, else "same-origin".
    this.#credentials = request.withCredentials ? 'include' : 'same-origin'
    // #settle() stops the timers: a timeout comes only while the attempt is under way.
    this.#timers = new AttemptTimers(request, this)
  }

  start () {
    // Aborted before it started (close() from a diagnostics subscriber): nothing is sent.
    if (this.#done) return
    const url = this.#policy.url
    if (!isHttpScheme(url)) {
      this.#settle()
      this.#sink.failed(new ERR_EVENTSOURCE_UNSUPPORTED_SCHEME(url.protocol, { url: this.#policy.displayUrl }))
      return
    }
    this.#send()
  }

  /** Aborts the request and its body at once. Nothing is reported to the sink after. */
  abort () {
    if (this.#settle()) this.#stopFetch()
  }

  pause () {
    this.#paused = true
    this.#timers.pause()
  }

  resume () {
    if (!this.#paused) return
    this.#paused = false
    this.#timers.resume()
    if (this.#reader !== null && !this.#reading && !this.#done) this.#read()
  }

  // Called by the timers: connectTimeout or idleTimeout passed.
  timedOut (error) {
    this.#settle()
    this.#stopFetch()
    this.#sink.networkError(error)
  }

  // Sends the policy's current hop.
  #send () {
    const policy = this.#policy
    this.#timers.requestSent(policy.url, policy.displayUrl)
    let pending
    try {
      // Called as a plain function, not as a method of this attempt: a browser's fetch throws "Illegal
      // invocation" when `this` is anything but its global (or undefined, which stands for it).
      const fetch = this.#fetch
      // fetch refuses a URL with credentials in it: they are the policy's, for a 401 (displayUrl has none).
      pending = fetch(policy.displayUrl, {
        method: policy.method,
        headers: policy.hopHeaders(),
        body: fetchBody(policy.body),
        signal: this.#controller.signal,
        redirect: this.#redirect,
        // The standard's request: mode "cors", cache mode "no-store" (fetch sends Pragma and
        // Cache-Control for it).
        mode: 'cors',
        cache: 'no-store',
        credentials: this.#credentials
      })
    } catch (err) {
      pending = Promise.reject(err)
    }
    // Whatever a user's fetch or its response does, nothing is left as an unhandled rejection: what
    // #onResponse throws (a body already read, say) fails the connection.
    Promise.resolve(pending)
      .then((response) => this.#onResponse(response), (err) => this.#onNetworkError(err))
      .catch((err) => { if (this.#settle()) this.#sink.failed(err) })
  }

  #onResponse (response) {
    if (this.#done) {
      if (response != null) discardBody(response)
      return
    }
    this.#timers.stop()
    const policy = this.#policy
    if (response?.type === 'opaqueredirect' && this.#redirect === 'manual') {
      // A runtime that hides redirects after all: ask again, and let its fetch follow them. (Once only:
      // an opaque redirect to a request that follows is a fetch that cannot be helped, below.) Not with
      // credentials that the fetch would take to whatever origin the redirect goes to.
      if (policy.withinOrigin) {
        if (this.#settle()) {
          this.#sink.failed(new ERR_EVENTSOURCE_INVALID_REDIRECT('a URL your fetch does not show', { url: policy.displayUrl }))
        }
        return
      }
      this.#redirect = 'follow'
      this.#send()
      return
    }
    if (!isResponse(response)) {
      // A fetch that resolves with something else would do so again: fail, as for a value of
      // init.headers() that cannot be sent.
      if (this.#settle()) {
        this.#sink.failed(new ERR_INVALID_ARG_TYPE(`the result of ${this.#fetchName}()`,
          'a Response (with a status, headers and a ReadableStream body or none)', response))
      }
      return
    }
    const status = response.status
    const headers = fromFetchHeaders(response.headers)
    if (this.#redirect === 'manual' && isRedirect(status, headers)) {
      discardBody(response)
      const error = policy.follow(status, headers.location)
      if (error === null) this.#send()
      else if (this.#settle()) this.#sink.failed(error)
      return
    }
    // When the fetch followed redirects itself, the final URL is the response's (and a 401 from there is
    // answered there, if at all).
    const redirected = this.#redirect === 'follow' && response.redirected === true && response.url !== ''
    if (redirected) {
      const error = policy.followedTo(response.url)
      if (error !== null) {
        discardBody(response)
        if (this.#settle()) this.#sink.failed(error)
        return
      }
    }
    if (status === 401 && policy.answerChallenge(headers)) {
      discardBody(response)
      this.#send()
      return
    }
    policy.release()
    this.#sink.opened({
      status,
      statusText: response.statusText,
      headers,
      url: policy.url.href,
      method: redirected && !this.#reconnectsToFinalUrl() ? null : policy.method
    })
    if (this.#done) return
    if (response.body == null) {
      if (this.#settle()) this.#sink.ended()
      return
    }
    if (headers['content-encoding'] !== undefined) {
      this.#decodingDetails = { status, statusText: response.statusText, headers, url: policy.displayUrl }
    }
    this.#reader = response.body.getReader()
    this.#timers.bodyStarted(policy.url, policy.displayUrl)
    if (!this.#paused) this.#read()
  }

  // After redirects the fetch followed: whether the next attempt may go straight to the final URL, null
  // (for the sink) leaving it to start from the first URL again. Only when the method is sure to be the
  // same (a 303 turns other methods into GET, a 307 keeps them: only a GET stays a GET for sure), and with
  // a user's fetch only within the source's origin, where the fetch's own credentials are meant to go.
  #reconnectsToFinalUrl () {
    const policy = this.#policy
    if (policy.method !== 'GET') return false
    return !this.#usersFetch || policy.url.origin === this.#credentialOrigin
  }

  // Reads the body until it ends, fails, or the attempt is paused or aborted. One loop at a time.
  async #read () {
    this.#reading = true
    const reader = this.#reader
    try {
      while (!this.#paused && !this.#done) {
        const { done, value } = await reader.read()
        if (this.#done) return
        if (done) {
          if (this.#settle()) this.#sink.ended()
          return
        }
        this.#timers.bytesReceived()
        this.#sink.data(value)
      }
    } catch (err) {
      this.#onNetworkError(err)
    } finally {
      this.#reading = false
    }
  }

  #onNetworkError (err) {
    if (!this.#settle()) return
    const policy = this.#policy
    const cause = underlyingError(err)
    // A body the fetch could not decode: the Dispatcher transport's error, where the fetch says so (Node's
    // does, with zlib's error as the cause; a browser's says "network error" and nothing more).
    const details = this.#decodingDetails
    if (details !== null && typeof cause.code === 'string' && DECODER_ERROR.test(cause.code)) {
      this.#sink.networkError(new ERR_EVENTSOURCE_DECODING(details.headers['content-encoding'], details, cause))
      return
    }
    this.#sink.networkError(new ERR_EVENTSOURCE_NETWORK(policy.url.origin, cause.message, { url: policy.displayUrl }, cause))
  }

  // Aborts the fetch and its body: the signal ends both in a fetch that honours it, and the reader is
  // cancelled for one that does not.
  #stopFetch () {
    this.#controller.abort(new ERR_EVENTSOURCE_ABORTED())
    this.#reader?.cancel().catch(() => {})
  }

  // Ends the attempt before its one last report. Returns false when it had ended already.
  #settle () {
    if (this.#done) return false
    this.#done = true
    this.#timers.stop()
    return true
  }
}

module.exports = { FetchAttempt }
