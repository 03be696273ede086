'use strict'

// The fetch transport: one attempt of an EventSource made with a fetch() (the runtime's, or init.fetch),
// for runtimes without a usable undici Dispatcher (Bun, browsers, workers) and for users who bring their
// own fetch. The response body's bytes are read from its reader straight into the sink; pause() stops
// reading, which is backpressure through the stream. What it reports, and when, is the transport
// interface of lib/transport.js, with the same errors as the Dispatcher transport.
//
// Redirects: where the runtime shows redirect responses to code (Node, Deno, Bun: `redirect: 'manual'`
// returns the 3xx response), they are followed here, by the same rules as on a dispatcher
// (lib/redirect-policy.js): credentials, https: to http:, loops. Browsers hide them (an "opaqueredirect"
// response): there fetch follows them itself, by the browser's rules, and the next attempt goes to the
// final URL only when the method is sure to be the same. A source may also ask that the fetch follow them
// (followRedirects): the `eventsource` package's entry point does (lib/eventsource-compat.js), as that
// package calls its fetch with `redirect: 'follow'`, so that a fetch wrapper's own redirect policy (the MCP
// SDK's same-origin one) stays in charge.

const { codes: { ERR_EVENTSOURCE_ABORTED, ERR_EVENTSOURCE_NETWORK, ERR_EVENTSOURCE_UNSUPPORTED_SCHEME } } = require('./errors')
const { RedirectPolicy, isRedirect, isHttpScheme } = require('./redirect-policy')
const { AttemptTimers } = require('./attempt-timers')
const { fromFetchHeaders } = require('./response-headers')

// Where code runs in a document or a worker, fetch's manual redirects are opaque: follow from the start.
const BROWSER = typeof globalThis.document !== 'undefined' || typeof globalThis.WorkerGlobalScope !== 'undefined'

// A response whose body is not read is cancelled, so that its connection is released.
function discardBody (response) {
  const body = response.body
  if (body != null && typeof body.cancel === 'function' && !body.locked) body.cancel().catch(() => {})
}

// undici's fetch rejects with "fetch failed" and the socket's error as the cause: the cause says more.
function reasonOf (err) {
  const cause = err?.cause
  if (err?.message === 'fetch failed' && cause?.message) return cause.message
  return err?.message ?? String(err)
}

class FetchAttempt {
  #fetch
  #sink
  #policy
  #timers
  #redirect
  #credentials
  #controller = new AbortController()
  #reader = null
  #reading = false
  #paused = false
  #done = false

  /**
   * @param {typeof fetch} fetch
   * @param {import('./request').EventSourceRequest} request
   * @param {import('./transport').TransportSink} sink
   * @param {boolean} [followRedirects] let the fetch follow redirects (`redirect: 'follow'`) by its own rules
   */
  constructor (fetch, request, sink, followRedirects = false) {
    this.#fetch = fetch
    this.#sink = sink
    this.#redirect = BROWSER || followRedirects ? 'follow' : 'manual'
    this.#policy = new RedirectPolicy(request)
    // The standard's request: credentials mode "include" with withCredentials, else "same-origin".
    this.#credentials = request.withCredentials ? 'include' : 'same-origin'
    this.#timers = new AttemptTimers(request, this)
  }

  start () {
    const url = this.#policy.url
    if (!isHttpScheme(url)) {
      if (this.#settle()) this.#sink.failed(new ERR_EVENTSOURCE_UNSUPPORTED_SCHEME(url.protocol, { url: this.#policy.displayUrl }))
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
    if (!this.#settle()) return
    this.#stopFetch()
    this.#sink.networkError(error)
  }

  // Sends the policy's current hop.
  #send () {
    const policy = this.#policy
    this.#timers.requestSent(policy.url, policy.displayUrl)
    let pending
    try {
      // fetch refuses a URL with credentials in it: they are the policy's, for a 401 (displayUrl has none).
      pending = this.#fetch(policy.displayUrl, {
        method: policy.method,
        headers: policy.hopHeaders(),
        body: policy.body,
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
    Promise.resolve(pending).then((response) => this.#onResponse(response), (err) => this.#onNetworkError(err))
  }

  #onResponse (response) {
    if (this.#done) {
      discardBody(response)
      return
    }
    this.#timers.stop()
    const policy = this.#policy
    if (response.type === 'opaqueredirect') {
      // A runtime that hides redirects after all: ask again, and let its fetch follow them.
      this.#redirect = 'follow'
      this.#send()
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
    if (status === 401 && policy.answerChallenge(headers)) {
      discardBody(response)
      this.#send()
      return
    }
    policy.release()
    // When fetch followed redirects itself, the final URL is the response's; the method it ended with is
    // known only for a GET (a 303 turns other methods into GET, a 307 keeps them): null leaves the next
    // attempt to start from the first URL again.
    const redirected = this.#redirect === 'follow' && response.redirected === true && response.url !== ''
    this.#sink.opened({
      status,
      statusText: response.statusText,
      headers,
      url: redirected ? response.url : policy.url.href,
      method: !redirected || policy.method === 'GET' ? policy.method : null
    })
    if (this.#done) return
    if (response.body == null) {
      if (this.#settle()) this.#sink.ended()
      return
    }
    try {
      this.#reader = response.body.getReader()
    } catch (err) {
      // A body that cannot be read (lib/eventsource-compat-fetch.js hands on one that says why): the
      // fetch would answer the same again.
      if (this.#settle()) this.#sink.failed(err)
      return
    }
    this.#timers.bodyStarted(policy.url, policy.displayUrl)
    if (!this.#paused) this.#read()
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
    this.#sink.networkError(new ERR_EVENTSOURCE_NETWORK(policy.url.origin, reasonOf(err), { url: policy.displayUrl }, err))
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
