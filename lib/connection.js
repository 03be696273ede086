'use strict'

// One connection attempt of an EventSource: the request, its redirects and the response checks, on
// an undici Dispatcher. Response bytes (decoded if the body has a Content-Encoding) go straight to
// the delegate; no fetch() and no web streams on this path. The connection knows nothing of event
// fields or of the reconnection state machine; it tells its delegate what happened:
//   onOpen(response)        status 200 with an event stream: "announce the connection"
//   onData(chunk)           body bytes
//   onEnd()                 the body ended: "reestablish the connection"
//   onNetworkError(error)   a network error: "reestablish the connection"
//   onFail(error)           anything else: "fail the connection" (no retry)
// At most one of onEnd, onNetworkError and onFail is called, and nothing after abort().
//
// https://html.spec.whatwg.org/multipage/server-sent-events.html#sse-processing-model
// https://fetch.spec.whatwg.org/#http-redirect-fetch

const {
  codes: {
    ERR_EVENTSOURCE_ABORTED, ERR_EVENTSOURCE_BAD_CONTENT_TYPE, ERR_EVENTSOURCE_BAD_STATUS, ERR_EVENTSOURCE_CONNECT_TIMEOUT,
    ERR_EVENTSOURCE_DECODING, ERR_EVENTSOURCE_DISPATCHER_REDIRECT, ERR_EVENTSOURCE_IDLE_TIMEOUT,
    ERR_EVENTSOURCE_INSECURE_REDIRECT, ERR_EVENTSOURCE_INVALID_REDIRECT, ERR_EVENTSOURCE_NETWORK,
    ERR_EVENTSOURCE_TOO_MANY_CODINGS, ERR_EVENTSOURCE_TOO_MANY_REDIRECTS, ERR_EVENTSOURCE_UNSUPPORTED_SCHEME
  }
} = require('./errors')
const { fromRawHeaders, fromParsedHeaders, mimeEssence } = require('./response-headers')
const { parseContentEncoding, ContentDecoder, MAX_CODINGS } = require('./content-decoding')
const { parseRetryAfter } = require('./reconnect-policy')
const { includesCredentials, basicAuthorization, offersBasic, displayHref } = require('./url-credentials')

// fetch's redirect limit.
const MAX_REDIRECTS = 20
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308])
// Sent by fetch on a cross-origin redirect only to the origin that was asked for. Fetch itself names
// Authorization; like undici's redirect handling we also keep Cookie and Proxy-Authorization back.
const CREDENTIAL_HEADERS = ['authorization', 'cookie', 'proxy-authorization']

function isHttpScheme (url) {
  return url.protocol === 'http:' || url.protocol === 'https:'
}

/**
 * @typedef {object} ConnectionRequest
 * @property {URL} url
 * @property {string} method
 * @property {string | Buffer | null} body
 * @property {Record<string, string>} headers lower-case names; copied, not modified
 * @property {import('undici').Dispatcher} dispatcher
 * @property {string | null} documentOrigin the origin of globalThis.location, when there is one
 * @property {string} credentialOrigin the origin the credential headers are meant for: the EventSource's URL's
 * @property {Set<number> | null} retryStatuses statuses that reestablish instead of failing (extension)
 * @property {number} connectTimeout ms until the response head, 0 for none (extension)
 * @property {number} idleTimeout ms without a byte on an open connection, 0 for none (extension)
 * @property {string[]} credentialHeaders more headers to keep from other origins (extension)
 * @property {boolean} allowInsecureRedirect follow https: -> http: redirects (extension)
 */

class Connection {
  #delegate
  #dispatcher
  #url
  #method
  #body
  #headers
  #documentOrigin
  // Fetch's "tainted origin flag": a redirect went from one foreign origin to another.
  #taintedOrigin = false
  #redirects = 0
  #hop = null
  #decoder = null
  #done = false
  #retryStatuses
  #connectTimeout
  #idleTimeout
  #timer = null
  #lastActivity = 0
  #paused = false
  // The decoder holds enough undecoded input: the socket is not read until it drains.
  #decoderFull = false
  #credentialHeaders
  #allowInsecureRedirect
  #credentialOrigin
  #credentialsDropped = false
  // Credentials in the URL (lib/url-credentials.js) are for the request's origin: the document's when
  // there is one, else the EventSource's URL's. Fetch's response tainting turns "cors" for good once a
  // request went elsewhere; from then on they are never used.
  #requestOrigin
  #leftRequestOrigin = false
  // The Authorization value answering this hop's 401 challenge, once it has been answered.
  #challengeAnswer = null

  /**
   * @param {ConnectionRequest} request
   * @param {object} delegate
   */
  constructor (request, delegate) {
    this.#delegate = delegate
    this.#dispatcher = request.dispatcher
    this.#url = request.url
    this.#method = request.method
    this.#body = request.body
    this.#headers = { ...request.headers }
    this.#documentOrigin = request.documentOrigin
    this.#retryStatuses = request.retryStatuses
    this.#connectTimeout = request.connectTimeout
    this.#idleTimeout = request.idleTimeout
    this.#credentialHeaders = request.credentialHeaders
    this.#allowInsecureRedirect = request.allowInsecureRedirect
    this.#credentialOrigin = request.credentialOrigin
    this.#requestOrigin = request.documentOrigin ?? request.credentialOrigin
  }

  /** The URL of the current request: after redirects, the final URL. */
  get url () {
    return this.#url
  }

  /** The method of the current request: a redirect may have turned it into GET, without a body. */
  get method () {
    return this.#method
  }

  start () {
    if (!isHttpScheme(this.#url)) {
      this.#finish('onFail', new ERR_EVENTSOURCE_UNSUPPORTED_SCHEME(this.#url.protocol, { url: displayHref(this.#url) }))
      return
    }
    this.#dispatch()
  }

  /** Aborts the request at once, releasing its socket. Nothing is reported to the delegate after. */
  abort () {
    if (this.#done) return
    this.#done = true
    this.#clearTimer()
    this.#hop?.abort()
    this.#decoder?.destroy()
  }

  /**
   * Stops reading the response body until resume(): TCP backpressure through the dispatcher. A
   * decoder stops too, or a small compressed body could still turn into any number of events.
   */
  pause () {
    this.#paused = true
    this.#hop?.pause()
    this.#decoder?.pause()
  }

  resume () {
    if (!this.#paused) return
    this.#paused = false
    // Time spent paused by the consumer is not silence from the server.
    this.#lastActivity = performance.now()
    // What the decoder holds goes first; it may fill the consumer's queue again, or end the body.
    this.#decoder?.resume()
    if (!this.#paused && !this.#decoderFull) this.#hop?.resume()
  }

  // Aborts the current hop without hearing from it again: undici reports the abort as an error,
  // sometimes synchronously, and that is not what happened to the connection.
  #discardHop () {
    const hop = this.#hop
    this.#hop = null
    hop?.abort()
  }

  #clearTimer () {
    if (this.#timer !== null) {
      clearTimeout(this.#timer)
      this.#timer = null
    }
  }

  #timedOut (error) {
    this.#timer = null
    this.#discardHop()
    this.#finish('onNetworkError', error)
  }

  // The idle timer is not reset per chunk (that would cost a timer operation per chunk): chunks stamp
  // the time, and the timer, when it fires, waits again for whatever is left of the period.
  #armIdleTimer (delay) {
    this.#timer = setTimeout(() => {
      const idle = performance.now() - this.#lastActivity
      if (this.#paused || idle < this.#idleTimeout) {
        this.#armIdleTimer(this.#paused ? this.#idleTimeout : this.#idleTimeout - idle)
        return
      }
      this.#timedOut(new ERR_EVENTSOURCE_IDLE_TIMEOUT(this.#url.origin, this.#idleTimeout, { url: displayHref(this.#url) }))
    }, Math.ceil(delay))
  }

  #dispatch () {
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
    if (this.#connectTimeout !== 0) {
      this.#timer = setTimeout(() => this.#timedOut(new ERR_EVENTSOURCE_CONNECT_TIMEOUT(url.origin, this.#connectTimeout,
        { url: displayHref(this.#url) })), this.#connectTimeout)
    }
    // The URL's userinfo is never sent as such: undici gets the origin and the path.
    const headers = { ...this.#headers }
    if (this.#challengeAnswer !== null && !this.#leftRequestOrigin) headers.authorization = this.#challengeAnswer
    const origin = this.#originHeader()
    if (origin !== null) headers.origin = origin
    const hop = this.#hop = new Hop(this)
    if (this.#paused) hop.pause()
    this.#dispatcher.dispatch({
      origin: url.origin,
      path: url.pathname + url.search,
      method: this.#method,
      headers,
      body: this.#body,
      // An event stream may be quiet for as long as it likes; browsers do not time out a body.
      // (undici's default would cut it after 300 s of silence.)
      bodyTimeout: 0,
      // Redirects are ours to follow (#redirect), with the rules for credentials, https: to http: and
      // loops. A dispatcher composed with undici's redirect interceptor, or an undici 6 Agent given
      // maxRedirections, would follow them before we see them: 0 makes it stand down, in undici 6, 7
      // and 8, as fetch() asks for it; every undici Dispatcher accepts it. A dispatcher that follows
      // redirects anyway is caught in Hop (hopFollowedRedirect).
      maxRedirections: 0
    }, hop)
  }

  // Fetch's "append a request `Origin` header", for a CORS-mode request: only cross-origin requests
  // carry it, and only when there is a document origin to send (browser code under the polyfill).
  #originHeader () {
    if (this.#documentOrigin === null) return null
    if (this.#taintedOrigin) return 'null'
    return this.#url.origin === this.#documentOrigin ? null : this.#documentOrigin
  }

  // Called by the current hop once its response head is known. Returns false when its body is not wanted.
  hopResponse (hop, status, headers, statusText) {
    if (hop !== this.#hop || this.#done) return false
    this.#clearTimer()
    if (REDIRECT_STATUSES.has(status) && headers.location !== undefined) {
      this.#discardHop()
      this.#redirect(status, headers.location)
      return false
    }
    if (status === 401 && this.#answerChallenge(headers)) return false
    const details = { status, statusText, headers, url: displayHref(this.#url) }
    if (status !== 200) {
      this.#discardHop()
      const error = new ERR_EVENTSOURCE_BAD_STATUS(status, statusText, details)
      // Extension: statuses the user chose are retried, after Retry-After when the server sent one.
      if (this.#retryStatuses?.has(status)) {
        error.retryAfter = parseRetryAfter(headers['retry-after'], Date.now()) ?? undefined
        this.#finish('onNetworkError', error)
      } else {
        this.#finish('onFail', error)
      }
      return false
    }
    const type = mimeEssence(headers['content-type'])
    if (type !== 'text/event-stream') {
      this.#discardHop()
      this.#finish('onFail', new ERR_EVENTSOURCE_BAD_CONTENT_TYPE(headers['content-type'], details))
      return false
    }
    const codings = parseContentEncoding(headers['content-encoding'])
    if (codings !== null && codings.length > MAX_CODINGS) {
      // Fetch would return a network error, which reestablishes; but the server would send the same
      // header again, so the connection fails instead (reconnecting is known to be futile, which the
      // standard lets a user agent act on), as for a redirect loop.
      this.#discardHop()
      this.#finish('onFail', new ERR_EVENTSOURCE_TOO_MANY_CODINGS(codings.length, MAX_CODINGS, details))
      return false
    }
    if (codings !== null) {
      this.#decoder = new ContentDecoder(codings, {
        onData: (chunk) => this.#delegate.onData(chunk),
        onDrain: () => {
          this.#decoderFull = false
          if (!this.#paused) this.#hop?.resume()
        },
        onEnd: () => this.#finish('onEnd'),
        onError: (err) => this.#finish('onNetworkError', new ERR_EVENTSOURCE_DECODING(headers['content-encoding'], details, err))
      })
      if (this.#paused) this.#decoder.pause()
    }
    if (this.#idleTimeout !== 0) {
      this.#lastActivity = performance.now()
      this.#armIdleTimer(this.#idleTimeout)
    }
    // Only redirects need the request's headers and body again: an open connection lets them go.
    this.#headers = null
    this.#body = null
    this.#delegate.onOpen(details)
    return !this.#done
  }

  // The hop reports that its request follows a redirect the dispatcher took by itself (undici's
  // RedirectHandler, used without regard to maxRedirections). Its rules are not ours: the request is
  // aborted before it is sent, and the connection fails, as retrying would do the same.
  hopFollowedRedirect (hop, history) {
    if (hop !== this.#hop || this.#done) return
    this.#discardHop()
    const from = history[history.length - 1]
    this.#finish('onFail', new ERR_EVENTSOURCE_DISPATCHER_REDIRECT(from, { url: displayHref(this.#url) }))
  }

  hopData (hop, chunk) {
    if (hop !== this.#hop || this.#done) return
    if (this.#idleTimeout !== 0) this.#lastActivity = performance.now()
    if (this.#decoder === null) {
      this.#delegate.onData(chunk)
    } else if (!this.#decoder.write(chunk) && !this.#done) {
      this.#decoderFull = true
      hop.pause()
    }
  }

  hopEnd (hop) {
    if (hop !== this.#hop || this.#done) return
    if (this.#decoder === null) this.#finish('onEnd')
    else this.#decoder.end()
  }

  hopError (hop, err) {
    if (hop !== this.#hop || this.#done) return
    this.#finish('onNetworkError', new ERR_EVENTSOURCE_NETWORK(this.#url.origin, err.message, { url: displayHref(this.#url) }, err))
  }

  // Fetch's "HTTP-network-or-cache fetch" for a 401: retried once with the URL's credentials
  // (lib/url-credentials.js), when the request may use them and the server asks for Basic. Returns
  // whether the request was sent again.
  #answerChallenge (headers) {
    if (this.#challengeAnswer !== null || this.#leftRequestOrigin) return false
    // A request that already has an Authorization header (the user's) gets none from the URL.
    if (this.#headers.authorization !== undefined || !offersBasic(headers['www-authenticate'])) return false
    const answer = basicAuthorization(this.#url)
    if (answer === null) return false
    this.#discardHop()
    this.#challengeAnswer = answer
    this.#dispatch()
    return true
  }

  // Fetch's "HTTP-redirect fetch", for an EventSource's GET (or the method a user chose).
  #redirect (status, location) {
    let next
    try {
      next = new URL(location, this.#url)
    } catch (err) {
      this.#finish('onFail', new ERR_EVENTSOURCE_INVALID_REDIRECT(`an invalid URL: ${location}`,
        { status, url: displayHref(this.#url) }, err))
      return
    }
    if (!isHttpScheme(next)) {
      this.#finish('onFail', new ERR_EVENTSOURCE_INVALID_REDIRECT(`an unsupported URL scheme: ${next.protocol}`,
        { status, url: displayHref(this.#url) }))
      return
    }
    // Fetch, steps 9 and 10: a redirect to a URL with credentials in it is a network error (futile to
    // retry) unless it stays on the request's origin, which the request never left. (A relative
    // Location keeps the credentials of the URL it is resolved against.)
    if (includesCredentials(next) && (next.origin !== this.#requestOrigin || this.#leftRequestOrigin)) {
      this.#finish('onFail', new ERR_EVENTSOURCE_INVALID_REDIRECT('a URL that includes credentials',
        { status, url: displayHref(this.#url) }))
      return
    }
    // Fetch follows https: -> http:, but that would send the request, its headers and body included, in
    // clear text because the server said so. Refused unless the user opts in (browsers block it as
    // mixed content on secure pages).
    if (this.#url.protocol === 'https:' && next.protocol === 'http:' && !this.#allowInsecureRedirect) {
      this.#finish('onFail', new ERR_EVENTSOURCE_INSECURE_REDIRECT(displayHref(next), { status, url: displayHref(this.#url) }))
      return
    }
    // A redirect loop is a network error in fetch; retrying it would loop forever, so the connection
    // fails instead (the standard lets a user agent fail when reconnecting is known to be futile).
    if (++this.#redirects > MAX_REDIRECTS) {
      this.#finish('onFail', new ERR_EVENTSOURCE_TOO_MANY_REDIRECTS(MAX_REDIRECTS, displayHref(next),
        { status, url: displayHref(this.#url) }))
      return
    }
    // 303, and 301/302 after a POST, turn the request into a body-less GET.
    if (status === 303 ? this.#method !== 'HEAD' : (status === 301 || status === 302) && this.#method === 'POST') {
      this.#method = 'GET'
      this.#body = null
      for (const name of ['content-type', 'content-length', 'content-encoding', 'content-language', 'content-location']) {
        delete this.#headers[name]
      }
    }
    if (next.origin !== this.#url.origin && this.#documentOrigin !== null && this.#url.origin !== this.#documentOrigin) {
      this.#taintedOrigin = true
    }
    this.#url = next
    // The new request is not an authentication fetch: it goes without the URL's credentials, and a
    // 401 to it may be answered again.
    this.#challengeAnswer = null
    this.#dispatch()
  }

  #finish (method, error) {
    if (this.#done) return
    this.#done = true
    this.#clearTimer()
    this.#hop = null
    this.#delegate[method](error)
  }
}

// One request and its response on the dispatcher. It speaks both of undici's handler APIs: the one
// with onConnect/onHeaders/onData (undici 6, which Node 20 and 22 bundle for their fetch, and undici 7)
// and the one with onRequestStart/onResponseStart/onResponseData (undici 7 and 8), so any global
// dispatcher works, whoever installed it.
class Hop {
  #connection
  #abort = null
  #controller = null
  #resume = null
  #aborted = false
  #paused = false

  constructor (connection) {
    this.#connection = connection
  }

  abort () {
    if (this.#aborted) return
    this.#aborted = true
    const err = new ERR_EVENTSOURCE_ABORTED()
    if (this.#controller !== null) this.#controller.abort(err)
    else if (this.#abort !== null) this.#abort(err)
    // Otherwise the request has not started yet; onConnect/onRequestStart aborts it.
  }

  pause () {
    this.#paused = true
    this.#controller?.pause()
  }

  resume () {
    if (!this.#paused) return
    this.#paused = false
    if (this.#controller !== null) this.#controller.resume()
    else if (this.#resume !== null) this.#resume()
  }

  // undici 6/7 handler API

  // undici's RedirectHandler calls this again for each redirect it follows, with the URLs so far as
  // context.history: never the case when the dispatcher leaves redirects to us.
  onConnect (abort, context) {
    this.#abort = abort
    if (this.#aborted) abort(new ERR_EVENTSOURCE_ABORTED())
    else if (context?.history?.length > 0) this.#connection.hopFollowedRedirect(this, context.history)
  }

  onHeaders (status, rawHeaders, resume, statusText) {
    this.#resume = resume
    return this.#connection.hopResponse(this, status, fromRawHeaders(rawHeaders), statusText) && !this.#paused
  }

  onData (chunk) {
    this.#connection.hopData(this, chunk)
    return !this.#paused
  }

  onComplete () {
    this.#connection.hopEnd(this)
  }

  onError (err) {
    this.#connection.hopError(this, err)
  }

  onUpgrade () {}

  // undici 7/8 handler API

  onRequestStart (controller, context) {
    this.#controller = controller
    if (this.#aborted) controller.abort(new ERR_EVENTSOURCE_ABORTED())
    else if (context?.history?.length > 0) this.#connection.hopFollowedRedirect(this, context.history)
  }

  onResponseStart (controller, status, headers, statusText) {
    // undici 7 runs this API through its UnwrapHandler, whose controller keeps the raw header Buffers
    // for the life of the response (about 1.5 KiB per idle connection); they are parsed already.
    if (controller.rawHeaders != null) controller.rawHeaders = null
    if (!this.#connection.hopResponse(this, status, fromParsedHeaders(headers), statusText)) return
    if (this.#paused) controller.pause()
  }

  onResponseData (controller, chunk) {
    this.#connection.hopData(this, chunk)
  }

  onResponseEnd () {
    this.#connection.hopEnd(this)
  }

  onResponseError (controller, err) {
    this.#connection.hopError(this, err)
  }

  onRequestUpgrade () {}
}

module.exports = { Connection }
