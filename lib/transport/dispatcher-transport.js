// The Dispatcher transport: one attempt of an EventSource sent through an undici Dispatcher, Node's
// fast path. Response bytes (decoded if the body has a Content-Encoding) go straight to the sink; no
// fetch() and no web streams. Redirects and 401 challenges are answered here, by the rules of
// lib/transport/redirect-policy-node.js; each hop is a request on the dispatcher with its own handler
// (lib/transport/undici-handler.js). What it reports, and when, is the transport interface of
// lib/transport/transport-node.js.

import { codes as connectionCodes } from '../errors/connection.js'
import { codes as nodeTransportsCodes } from '../errors/node-transports.js'
import { RedirectPolicy, isRedirect } from './redirect-policy-node.js'
import { isHttpScheme, displayHref } from './url.js'
import { UndiciHandler, LegacyUndiciHandler } from './undici-handler.js'
import { AttemptTimers } from './attempt-timers.js'
import { acceptEncoding } from './codings.js'
// Body decoding. Its node:zlib is loaded with the first response that names a coding (./content-decoding.js):
// most event streams are sent as they are.
import { parseContentEncoding, MAX_CODINGS, ContentDecoder } from './content-decoding.js'
const { ERR_EVENTSOURCE_DECODING, ERR_EVENTSOURCE_NETWORK, ERR_EVENTSOURCE_UNSUPPORTED_SCHEME } = connectionCodes
const { ERR_EVENTSOURCE_DISPATCHER_REDIRECT, ERR_EVENTSOURCE_TOO_MANY_CODINGS } = nodeTransportsCodes

// What a fetch sends for an EventSource's request beyond the request's own headers, as Node's fetch (undici
// 6 to 8) sends it, so that a server sees the same request from this transport as from Node's built-in
// EventSource: Accept-Language `*` and the client's User-Agent (unless the request has them), Sec-Fetch-Mode
// for the request's mode, "cors" (always: the header is fetch's, not the user's), and for the request's cache
// mode, "no-store", Pragma and Cache-Control `no-cache` (unless the request has them). Accept-Encoding is
// per hop (lib/transport/codings.js).
const FETCH_HEADERS = [
  ['accept-language', '*'], ['user-agent', userAgent()], ['pragma', 'no-cache'], ['cache-control', 'no-cache']
]

// Node's fetch says `node`; Deno's, which runs this transport through its Node compatibility, `Deno/<version>`.
function userAgent () {
  const deno = process.versions.deno
  return deno === undefined ? 'node' : `Deno/${deno}`
}

// The dispatchers that take undici's older handler API natively (see lib/transport/undici-handler.js).
const legacyDispatchers = new WeakSet()

function withFetchHeaders (requestHeaders) {
  const headers = { ...requestHeaders }
  for (const [name, value] of FETCH_HEADERS) headers[name] ??= value
  headers['sec-fetch-mode'] = 'cors'
  return headers
}

class DispatcherAttempt {
  #dispatcher
  #sink
  // The hops' rules until the response is final; then only its URL is kept (#href), for errors: an idle
  // connection keeps no URL object, headers or body.
  #policy
  #href = null
  #handler = null
  #decoder = null
  #done = false
  // null once the body is read without idleTimeout: no clock runs any more.
  #timers
  #paused = false
  // The decoder holds enough undecoded input: the socket is not read until it drains.
  #decoderFull = false

  /**
   * @param {import('undici').Dispatcher} dispatcher
   * @param {import('./request').EventSourceRequest} request
   * @param {import('./transport-node').TransportSink} sink
   */
  constructor (dispatcher, request, sink) {
    this.#dispatcher = dispatcher
    this.#sink = sink
    this.#policy = new RedirectPolicy(request, { headers: withFetchHeaders(request.headers) })
    this.#timers = new AttemptTimers(request, this)
  }

  start () {
    // Aborted before it started (close() from a diagnostics subscriber): nothing is sent.
    if (this.#done) return
    const url = this.#policy.url
    if (!isHttpScheme(url)) {
      if (this.#settle()) {
        this.#sink.failed(new ERR_EVENTSOURCE_UNSUPPORTED_SCHEME(url.protocol, { url: this.#policy.displayUrl }))
      }
      return
    }
    this.#dispatch()
  }

  /** Aborts the request at once, releasing its socket. Nothing is reported to the sink after. */
  abort () {
    if (this.#done) return
    this.#done = true
    this.#timers?.stop()
    this.#handler?.abort()
    this.#decoder?.destroy()
  }

  /**
   * Stops reading the response body until resume(): TCP backpressure through the dispatcher. A
   * decoder stops too, or a small compressed body could still turn into any number of events.
   */
  pause () {
    this.#paused = true
    this.#timers?.pause()
    this.#handler?.pause()
    this.#decoder?.pause()
  }

  /** The reports from now on go to `sink`. */
  setSink (sink) {
    this.#sink = sink
  }

  resume () {
    if (!this.#paused) return
    this.#paused = false
    this.#timers?.resume()
    // What the decoder holds goes first; it may fill the consumer's queue again, or end the body.
    this.#decoder?.resume()
    if (!this.#paused && !this.#decoderFull) this.#handler?.resume()
  }

  // Aborts the current hop without hearing from it again: undici reports the abort as an error,
  // sometimes synchronously, and that is not what happened to the attempt.
  #discardHop () {
    const handler = this.#handler
    this.#handler = null
    handler?.abort()
  }

  // Called by the timers: connectTimeout or idleTimeout passed.
  timedOut (error) {
    this.#discardHop()
    if (this.#settle()) this.#sink.networkError(error)
  }

  // Sends the policy's current hop.
  #dispatch () {
    const policy = this.#policy
    const url = policy.url
    const headers = policy.hopHeaders()
    headers['accept-encoding'] ??= acceptEncoding(url)
    this.#timers.requestSent(url, policy.displayUrl)
    const handler = this.#handler = legacyDispatchers.has(this.#dispatcher)
      ? new LegacyUndiciHandler(this)
      : new UndiciHandler(this)
    if (this.#paused) handler.pause()
    // A dispatcher that throws rather than calling its handler's onError (a user's, or one given the wrong
    // arguments) fails the attempt as a network error, not whatever code started the attempt.
    try {
      this.#dispatcher.dispatch({
        origin: url.origin,
        path: url.pathname + url.search,
        method: policy.method,
        headers,
        body: policy.body,
        // An event stream may be quiet for as long as it likes; browsers do not time out a body.
        // (undici's default would cut it after 300 s of silence.)
        bodyTimeout: 0,
        // Redirects are ours to follow (RedirectPolicy), with the rules for credentials, https: to http:
        // and loops. A dispatcher composed with undici's redirect interceptor, or an undici 6 Agent given
        // maxRedirections, would follow them before we see them: 0 makes it stand down, in undici 6, 7
        // and 8, as fetch() asks for it; every undici Dispatcher accepts it. A dispatcher that follows
        // redirects anyway is caught by its handler (hopFollowedRedirect).
        maxRedirections: 0
      }, handler)
    } catch (err) {
      this.hopError(handler, err)
    }
  }

  // Called by the current hop's handler once its response head is known. Returns false when its body
  // is not wanted.
  hopResponse (handler, status, headers, statusText) {
    if (handler !== this.#handler || this.#done) return false
    this.#timers.stop()
    const policy = this.#policy
    if (isRedirect(status, headers)) {
      this.#discardHop()
      const error = policy.follow(status, headers.location)
      if (error === null) this.#dispatch()
      else if (this.#settle()) this.#sink.failed(error)
      return false
    }
    if (status === 401 && policy.answerChallenge(headers)) {
      this.#discardHop()
      this.#dispatch()
      return false
    }
    const details = { status, statusText, headers, url: policy.displayUrl }
    // A body is set up for decoding before anyone sees the response, whatever its status, as in
    // Chromium (which sets up its decoders before it delivers the head): a list of codings that will
    // not be decoded is an error of the response, not of its status.
    const contentEncoding = headers['content-encoding']
    let codings = null
    if (contentEncoding !== undefined) {
      codings = parseContentEncoding(contentEncoding)
    }
    if (codings !== null && codings.length > MAX_CODINGS) {
      // Fetch would return a network error, which reestablishes; but the server would send the same
      // header again, so the connection fails instead (reconnecting is known to be futile, which the
      // standard lets a user agent act on), as for a redirect loop.
      this.#discardHop()
      if (this.#settle()) this.#sink.failed(new ERR_EVENTSOURCE_TOO_MANY_CODINGS(codings.length, MAX_CODINGS, details))
      return false
    }
    const href = this.#href = policy.href
    this.#policy = null
    // The source decides whether it wants this response (status, Content-Type); it aborts the attempt
    // when it does not.
    this.#sink.opened({ status, statusText, headers, url: href, method: policy.method })
    if (this.#done) return false
    if (codings !== null) {
      this.#decoder = new ContentDecoder(codings, {
        onData: (chunk) => this.#sink.data(chunk),
        onDrain: () => {
          this.#decoderFull = false
          if (!this.#paused) this.#handler?.resume()
        },
        onEnd: () => { if (this.#settle()) this.#sink.ended() },
        onError: (err) => {
          if (this.#settle()) {
            this.#sink.networkError(new ERR_EVENTSOURCE_DECODING(headers['content-encoding'], details, err))
          }
        }
      })
      if (this.#paused) this.#decoder.pause()
    }
    if (!this.#timers.bodyStarted(policy.url, policy.displayUrl)) this.#timers = null
    return true
  }

  // The handler reports that the dispatcher speaks undici's older handler API inside: so will the next
  // handlers for it.
  hopUnwrapped (handler) {
    legacyDispatchers.add(this.#dispatcher)
  }

  // The handler reports that its request follows a redirect the dispatcher took by itself (undici's
  // RedirectHandler, used without regard to maxRedirections). Its rules are not ours: the request is
  // aborted before it is sent, and the attempt fails, as retrying would do the same.
  hopFollowedRedirect (handler, history) {
    if (handler !== this.#handler || this.#done) return
    this.#discardHop()
    const from = history[history.length - 1]
    if (this.#settle()) {
      this.#sink.failed(new ERR_EVENTSOURCE_DISPATCHER_REDIRECT(from, { url: this.#policy.displayUrl }))
    }
  }

  // The socket-to-parser path: undici -> UndiciHandler#onResponseData -> here -> sink.data -> parser.
  hopData (handler, chunk) {
    if (handler !== this.#handler || this.#done) return
    this.#timers?.bytesReceived()
    if (this.#decoder === null) {
      this.#sink.data(chunk)
    } else if (!this.#decoder.write(chunk) && !this.#done) {
      this.#decoderFull = true
      handler.pause()
    }
  }

  hopEnd (handler) {
    if (handler !== this.#handler || this.#done) return
    if (this.#decoder === null) {
      if (this.#settle()) this.#sink.ended()
    } else {
      this.#decoder.end()
    }
  }

  hopError (handler, err) {
    if (handler !== this.#handler || this.#done) return
    const url = this.#policy?.url ?? new URL(this.#href)
    if (this.#settle()) {
      this.#sink.networkError(new ERR_EVENTSOURCE_NETWORK(url.origin, err.message, { url: displayHref(url) }, err))
    }
  }

  // Ends the attempt before its one last report (ended, networkError or failed). Returns false when it
  // had ended already: then nothing is reported.
  #settle () {
    if (this.#done) return false
    this.#done = true
    this.#timers?.stop()
    this.#handler = null
    return true
  }
}

export { DispatcherAttempt }
