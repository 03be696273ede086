// The Dispatcher transport: one attempt of an EventSource sent through an undici Dispatcher, Node's fast path.
// Response bytes (decoded if the body has a Content-Encoding) go straight to the sink; no fetch() and no web
// streams. Redirects and 401 challenges are answered here, by the rules of ./redirect-policy-node.js. What it
// reports, and when, is the transport interface of ./transport-node.js.
//
// Each hop is a request on the dispatcher with a handler of its own (UndiciHandler, inside DispatcherAttempt),
// so that the attempt can tell its current hop from one it has let go. The handler speaks both of undici's
// handler APIs, onConnect/onHeaders/onData (undici 6 and 7) and onRequestStart/onResponseStart/onResponseData
// (undici 7 and 8), so any global dispatcher works, whoever installed it. The body's bytes go from undici's
// call to the sink with one frame of this file between them, on either API.
//
// The attempt sees final responses only. undici reports an interim response (1xx) through the same call as the
// final one; fetch skips them, and so does the handler (the connect timer keeps running, so a server that sends
// nothing but 1xx is still bounded by connectTimeout). A 101 is an upgrade this request never asked for, and
// nothing after it is HTTP: a network error, as in fetch.

import { codes as connectionCodes } from '../errors/connection.js'
import { codes as nodeTransportsCodes } from '../errors/node-transports.js'
import { RedirectPolicy, isRedirect } from './redirect-policy-node.js'
import { isHttpScheme, displayHref } from './url.js'
import { AttemptTimers } from './attempt-timers.js'
import { acceptEncoding } from './codings.js'
// Its node:zlib is loaded with the first response that names a coding: most event streams are sent as they are.
import { parseContentEncoding, MAX_CODINGS, ContentDecoder } from './content-decoding.js'
const {
  ERR_EVENTSOURCE_ABORTED, ERR_EVENTSOURCE_DECODING, ERR_EVENTSOURCE_NETWORK, ERR_EVENTSOURCE_UNSUPPORTED_SCHEME
} = connectionCodes
const { ERR_EVENTSOURCE_DISPATCHER_REDIRECT, ERR_EVENTSOURCE_TOO_MANY_CODINGS } = nodeTransportsCodes

// What Node's fetch sends for an EventSource's request beyond the request's own headers (docs/api.md, "The
// request"), so that a server sees the same request from this transport as from Node's built-in EventSource.
// Sec-Fetch-Mode is always fetch's, not the user's; Accept-Encoding is per hop (lib/transport/codings.js).
const FETCH_HEADERS = [
  ['accept-language', '*'], ['user-agent', userAgent()], ['pragma', 'no-cache'], ['cache-control', 'no-cache']
]

// Node's fetch says `node`; Deno's, which runs this transport through its Node compatibility, `Deno/<version>`.
function userAgent () {
  const deno = process.versions.deno
  return deno === undefined ? 'node' : `Deno/${deno}`
}

// The dispatchers that take undici's older handler API natively (see UndiciHandler#onRequestStart).
const legacyDispatchers = new WeakSet()
// The dispatchers of ours that take the newer API alone, whatever undici dispatcher they hand a request to.
const newerApiDispatchers = new WeakSet()

/** Says that `dispatcher` takes undici's newer handler API alone (init.http2's agent). */
function takesNewerHandlerApi (dispatcher) {
  newerApiDispatchers.add(dispatcher)
}
// The methods of undici's newer handler API, which LegacyUndiciHandler does without.
const CONTROLLER_METHODS = [
  'onRequestStart', 'onResponseStart', 'onResponseData', 'onResponseEnd', 'onResponseError', 'onRequestUpgrade'
]

function withFetchHeaders (requestHeaders) {
  const headers = { ...requestHeaders }
  for (const [name, value] of FETCH_HEADERS) headers[name] ??= value
  headers['sec-fetch-mode'] = 'cors'
  return headers
}

// undici's raw response headers as ./response-headers.js has them: lower-case names, repeats joined with ", ".
function fromRawHeaders (raw) {
  const headers = Object.create(null)
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i].toString('latin1').toLowerCase()
    const value = raw[i + 1].toString('latin1')
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`
  }
  return headers
}

function fromParsedHeaders (parsed) {
  const headers = Object.create(null)
  for (const name of Object.keys(parsed)) {
    const value = parsed[name]
    headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value)
  }
  return headers
}

class DispatcherAttempt {
  #dispatcher
  #sink
  // The hops' rules until the response is final; then only its URL is kept (#href), for errors: an idle
  // connection keeps no URL object, headers or body.
  #policy
  #href = null
  // The current hop's handler, null once the attempt is done: a handler that is not this one has been let go,
  // or its attempt is over, and what it reports is not heard.
  #handler = null
  #decoder = null
  #done = false
  // null once the body is read without idleTimeout: no clock runs any more.
  #timers
  #paused = false
  // The decoder holds enough undecoded input: the socket is not read until it drains.
  #decoderFull = false

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

  abort () {
    if (this.#done) return
    this.#done = true
    this.#timers?.stop()
    this.#discardHop()
    this.#decoder?.destroy()
  }

  // A decoder stops too, or a small compressed body could still turn into any number of events.
  pause () {
    this.#paused = true
    this.#timers?.pause()
    this.#handler?.pause()
    this.#decoder?.pause()
  }

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

  #dispatch () {
    const policy = this.#policy
    const url = policy.url
    const headers = policy.hopHeaders()
    headers['accept-encoding'] ??= acceptEncoding(url)
    this.#timers.requestSent(url, policy.displayUrl)
    const handler = this.#handler = legacyDispatchers.has(this.#dispatcher)
      ? new DispatcherAttempt.#LegacyHandler(this)
      : new DispatcherAttempt.#Handler(this)
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
        // An event stream may be quiet as long as it likes; browsers do not time out a body (undici would, at 300 s).
        bodyTimeout: 0,
        // Redirects are ours to follow (RedirectPolicy). A dispatcher composed with undici's redirect interceptor,
        // or an undici 6 Agent given maxRedirections, would follow them before we see them: 0 makes it stand down,
        // as fetch() asks for it. One that follows them anyway is caught by its handler (#followedRedirect).
        maxRedirections: 0
      }, handler)
    } catch (err) {
      this.#error(handler, err)
    }
  }

  // Called by a hop's handler once its response head is known. Returns false when its body is not wanted.
  #response (handler, status, headers, statusText) {
    if (handler !== this.#handler) return false
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
      // Fetch would return a network error, which reestablishes; but the server would send the same header
      // again, so the connection fails, as for a redirect loop (the standard lets a user agent act on futility).
      this.#discardHop()
      if (this.#settle()) this.#sink.failed(new ERR_EVENTSOURCE_TOO_MANY_CODINGS(codings.length, MAX_CODINGS, details))
      return false
    }
    const href = this.#href = policy.href
    this.#policy = null
    // The source decides whether it wants this response (status, Content-Type), and aborts the attempt if not.
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

  // A handler reports that the dispatcher speaks undici's older handler API inside: so will the next handlers
  // for it, unless it takes the newer API alone (newerApiDispatchers: init.http2's agent, for its HTTP/2 origins).
  #unwrapped () {
    if (!newerApiDispatchers.has(this.#dispatcher)) legacyDispatchers.add(this.#dispatcher)
  }

  // A handler reports that its request follows a redirect the dispatcher took by itself (undici's
  // RedirectHandler, used without regard to maxRedirections). Its rules are not ours: the request is
  // aborted before it is sent, and the attempt fails, as retrying would do the same.
  #followedRedirect (handler, history) {
    if (handler !== this.#handler) return
    this.#discardHop()
    const from = history[history.length - 1]
    if (this.#settle()) {
      this.#sink.failed(new ERR_EVENTSOURCE_DISPATCHER_REDIRECT(from, { url: this.#policy.displayUrl }))
    }
  }

  // Bytes of a body with a Content-Encoding, from the current hop's handler (which sends the others to the sink
  // itself): the decoder's output goes to the sink.
  #decode (handler, chunk) {
    if (!this.#decoder.write(chunk) && !this.#done) {
      this.#decoderFull = true
      handler.pause()
    }
  }

  #end (handler) {
    if (handler !== this.#handler) return
    if (this.#decoder === null) {
      if (this.#settle()) this.#sink.ended()
    } else {
      this.#decoder.end()
    }
  }

  #error (handler, err) {
    if (handler !== this.#handler) return
    const url = this.#policy?.url ?? new URL(this.#href)
    if (this.#settle()) {
      this.#sink.networkError(new ERR_EVENTSOURCE_NETWORK(url.origin, err.message, { url: displayHref(url) }, err))
    }
  }

  // Ends the attempt before its one last report (ended, networkError or failed); false if it had ended already.
  #settle () {
    if (this.#done) return false
    this.#done = true
    this.#timers?.stop()
    this.#handler = null
    return true
  }

  // The handler of one hop, in either of undici's APIs: a class inside the attempt's, to reach its state.
  static #Handler = class UndiciHandler {
    #attempt
    #abort = null
    #controller = null
    #resume = null
    #aborted = false
    #paused = false

    constructor (attempt) {
      this.#attempt = attempt
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
      else if (context?.history?.length > 0) this.#attempt.#followedRedirect(this, context.history)
    }

    onHeaders (status, rawHeaders, resume, statusText) {
      if (status < 200) return this.#interim(status)
      this.#resume = resume
      return this.#attempt.#response(this, status, fromRawHeaders(rawHeaders), statusText) && !this.#paused
    }

    // The socket-to-source path, as onResponseData below (a call shared by the two would be one more frame on it).
    onData (chunk) {
      const attempt = this.#attempt
      if (attempt.#handler === this) {
        attempt.#timers?.bytesReceived()
        if (attempt.#decoder === null) attempt.#sink.data(chunk)
        else attempt.#decode(this, chunk)
      }
      return !this.#paused
    }

    onComplete () {
      this.#attempt.#end(this)
    }

    onError (err) {
      this.#attempt.#error(this, err)
    }

    onUpgrade () {}

    // undici 7/8 handler API

    onRequestStart (controller, context) {
      // undici 7 speaks the older API inside, and wraps a handler of the newer one in two objects per request
      // (UnwrapHandler and UnwrapController, kept by every idle connection): its controller's class says so,
      // and the attempt's later handlers for that dispatcher speak the older API only (LegacyUndiciHandler).
      if (controller?.constructor?.name === 'UnwrapController') this.#attempt.#unwrapped()
      this.#controller = controller
      if (this.#aborted) controller.abort(new ERR_EVENTSOURCE_ABORTED())
      else if (context?.history?.length > 0) this.#attempt.#followedRedirect(this, context.history)
    }

    onResponseStart (controller, status, headers, statusText) {
      if (status < 200) {
        this.#interim(status)
        return
      }
      // undici 7 runs this API through its UnwrapHandler, whose controller keeps the raw header Buffers
      // for the life of the response (on every idle connection); they are parsed already.
      if (controller.rawHeaders != null) controller.rawHeaders = null
      if (!this.#attempt.#response(this, status, fromParsedHeaders(headers), statusText)) return
      if (this.#paused) controller.pause()
    }

    // The socket-to-source path: undici -> here -> the sink's data() (the source, which parses).
    onResponseData (controller, chunk) {
      const attempt = this.#attempt
      if (attempt.#handler !== this) return
      attempt.#timers?.bytesReceived()
      if (attempt.#decoder === null) attempt.#sink.data(chunk)
      else attempt.#decode(this, chunk)
    }

    onResponseEnd () {
      this.#attempt.#end(this)
    }

    onResponseError (controller, err) {
      this.#attempt.#error(this, err)
    }

    onRequestUpgrade () {}

    // An interim response (see the top of this file). Returns what undici 6's onHeaders() returns: keep reading.
    #interim (status) {
      if (status === 101) {
        // Reported before the request is aborted: the abort's own error then reaches an attempt that has
        // let this hop go.
        this.#attempt.#error(this,
          new Error('the server switched protocols (101) for a request that asked for no upgrade'))
        this.abort()
        return false
      }
      return true
    }
  }

  // The same handler without the controller API, for the dispatchers that take the older one natively
  // (see onRequestStart): undici passes it through when it has no onRequestStart.
  static #LegacyHandler = class LegacyUndiciHandler extends DispatcherAttempt.#Handler {
    static {
      for (const method of CONTROLLER_METHODS) this.prototype[method] = undefined
    }
  }
}

export { DispatcherAttempt, takesNewerHandlerApi }
