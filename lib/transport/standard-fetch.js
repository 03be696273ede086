// StandardFetchAttempt: one attempt of the standard's request (./request.js, standardRequest) with the runtime's fetch,
// as a browser's EventSource makes it, redirects followed by the fetch: what a browser or worker build without
// `whatwg-eventsource/extensions` sends (./transport-web.js), and the base of FetchAttempt (./fetch-transport.js).
// What is here is both classes' own: the body read into the sink (paused and resumed), the timers, the errors,
// abort. What it reports, and when, is the transport interface of ./transport-node.js.
//
// For FetchAttempt, these methods are its to override (plain methods: the private fields of this class
// are not its): `url` and `displayUrl` (the hop under way), `fetchName`, createTimers(request), send()
// (calls fetchHop()), received(response) (ends with open() or fail()) and errorFor(err).

import { codes as argumentsCodes } from '../errors/arguments.js'
import { codes as connectionCodes } from '../errors/connection.js'
import { isHttpScheme, displayHref, insecureRedirect } from './url.js'
import { ConnectTimer } from './attempt-timers.js'
import { fromFetchHeaders } from './response-headers.js'
const { ERR_INVALID_ARG_TYPE } = argumentsCodes
const { ERR_EVENTSOURCE_ABORTED, ERR_EVENTSOURCE_NETWORK, ERR_EVENTSOURCE_UNSUPPORTED_SCHEME } = connectionCodes

// A response whose body is not read is cancelled, so that its connection is released.
function discardBody (response) {
  const body = response.body
  if (body != null && typeof body.cancel === 'function' && !body.locked) body.cancel().catch(() => {})
}

// What a fetch resolved with, as far as an attempt reads it: a status, headers to iterate, and no body or a
// WHATWG ReadableStream (not node-fetch's Node stream). A fetch (the runtime's may be a program's wrapper too)
// that resolves with something else would do so again: the connection fails.
function isResponse (value) {
  return value !== null && typeof value === 'object' && typeof value.status === 'number' &&
    typeof value.headers?.[Symbol.iterator] === 'function' &&
    (value.body == null || typeof value.body.getReader === 'function')
}

class StandardFetchAttempt {
  #request
  #sink
  #url
  #timers
  #controller = new AbortController()
  #reader = null
  #reading = false
  #paused = false
  #done = false

  constructor (request, sink) {
    this.#request = request
    this.#sink = sink
    this.#url = new URL(request.url)
    // #settle() stops the timers: a timeout comes only while the attempt is under way.
    this.#timers = this.createTimers(request)
  }

  // The attempt's clocks: the standard's request has only connectTimeout (FetchAttempt's has idleTimeout too).
  createTimers (request) {
    return new ConnectTimer(request, this)
  }

  /** The URL of the hop under way: the request's, then the final URL of the redirects the fetch followed. */
  get url () {
    return this.#url
  }

  /** The same as errors show it, without credentials. */
  get displayUrl () {
    return displayHref(this.url)
  }

  /** What the errors call the fetch. */
  get fetchName () {
    return 'globalThis.fetch'
  }

  start () {
    // Aborted before it started (close() from a diagnostics subscriber): nothing is sent.
    if (this.#done) return
    const url = this.url
    if (!isHttpScheme(url)) {
      this.fail(new ERR_EVENTSOURCE_UNSUPPORTED_SCHEME(url.protocol, { url: this.displayUrl }))
      return
    }
    this.send()
  }

  abort () {
    if (this.#settle()) this.#stopFetch()
  }

  setSink (sink) {
    this.#sink = sink
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

  // Sends the request. The runtime's fetch is looked up here, at each attempt: a program may wrap it
  // after the source was made (a test's msw, say).
  send () {
    this.fetchHop(globalThis.fetch, 'GET', this.#request.headers, null, 'follow')
  }

  // Sends one request with `fetch` to `url`; its response goes to received(), its failure to errorFor().
  fetchHop (fetch, method, headers, body, redirect) {
    this.#timers.requestSent(this.url, this.displayUrl)
    let pending
    try {
      // Called as a plain function, not as a method of this attempt: a browser's fetch throws "Illegal
      // invocation" when `this` is anything but its global (or undefined, which stands for it). The URL
      // is given without credentials: fetch refuses one with them.
      pending = fetch(this.displayUrl, {
        method,
        headers,
        body,
        signal: this.#controller.signal,
        redirect,
        // The standard's request: mode "cors", cache mode "no-store" (fetch sends Pragma and
        // Cache-Control for it), credentials mode "include" with withCredentials, else "same-origin".
        mode: 'cors',
        cache: 'no-store',
        credentials: this.#request.withCredentials ? 'include' : 'same-origin'
      })
    } catch (err) {
      pending = Promise.reject(err)
    }
    // Whatever a fetch or its response does, nothing is left as an unhandled rejection: what handling a
    // response throws (a body already read, say) fails the connection.
    Promise.resolve(pending)
      .then((response) => this.#onResponse(response), (err) => this.#onNetworkError(err))
      .catch((err) => this.fail(err))
  }

  #onResponse (response) {
    if (this.#done) {
      if (response != null) discardBody(response)
      return
    }
    this.#timers.stop()
    if (!isResponse(response)) {
      this.fail(new ERR_INVALID_ARG_TYPE(`the result of ${this.fetchName}()`,
        'a Response (with a status, headers and a ReadableStream body or none)', response))
      return
    }
    this.received(response)
  }

  // A response came: the final one, since the fetch followed redirects. From the final URL a
  // reconnection goes there too: the request is a GET.
  received (response) {
    const headers = fromFetchHeaders(response.headers)
    if (response.redirected === true && response.url !== '') {
      const from = this.#url
      const error = insecureRedirect(from, this.#url = new URL(response.url), this.#request.allowInsecureRedirect,
        { url: displayHref(from) })
      if (error !== null) {
        discardBody(response)
        this.fail(error)
        return
      }
    }
    this.open(response, headers, 'GET')
  }

  // The response is the attempt's: reported, then its body read. `method`: the method a reconnection to its
  // URL goes with; null: the next attempt starts from the source's URL again.
  open (response, headers, method) {
    this.#sink.opened({ status: response.status, statusText: response.statusText, headers, url: this.url.href, method })
    if (this.#done) return
    if (response.body == null) {
      if (this.#settle()) this.#sink.ended()
      return
    }
    this.#reader = response.body.getReader()
    this.#timers.bodyStarted(this.url, this.displayUrl)
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
    if (this.#settle()) this.#sink.networkError(this.errorFor(err))
  }

  // The error a failed fetch or body read is reported as.
  errorFor (err) {
    // An error event's cause is an Error, even when a fetch rejected with something else.
    const cause = err instanceof Error ? err : new Error(String(err))
    return new ERR_EVENTSOURCE_NETWORK(this.url.origin, cause.message, { url: this.displayUrl }, cause)
  }

  // Ends the attempt with a failure of the connection, unless it had ended already.
  fail (error) {
    if (this.#settle()) this.#sink.failed(error)
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

export { StandardFetchAttempt, discardBody }
