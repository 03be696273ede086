// The handler of one request on an undici Dispatcher (one hop of an attempt). It speaks both of
// undici's handler APIs: the one with onConnect/onHeaders/onData (undici 6, which Node 20 and 22
// bundle for their fetch, and undici 7) and the one with onRequestStart/onResponseStart/
// onResponseData (undici 7 and 8), so any global dispatcher works, whoever installed it. Both are
// turned into plain calls on its owner (lib/transport/dispatcher-transport.js), which passes the handler along
// so that it can tell a current hop from one it has let go:
//   owner.hopResponse(handler, status, headers, statusText)  -> false when the body is not wanted
//   owner.hopData(handler, chunk)
//   owner.hopEnd(handler)
//   owner.hopError(handler, error)
//   owner.hopFollowedRedirect(handler, history)  the dispatcher followed a redirect by itself
//   owner.hopUnwrapped(handler)  the dispatcher turned the controller API into the older one (below)
// The owner sees final responses only. undici reports an interim response (1xx: 103 Early Hints, 102)
// through the same call as the final one, then the final one on the same request; fetch skips interim
// responses, and so does this handler (the request's connect timer keeps running meanwhile, so a server
// that sends nothing but 1xx is still bounded by connectTimeout). A 101 is an upgrade this request never
// asked for, and nothing after it is HTTP: a network error, as in fetch. (undici itself refuses a 100,
// which it never asks for, and a 1xx with a body, as a network error.)

import { codes } from '../errors/connection.js'
const { ERR_EVENTSOURCE_ABORTED } = codes

// undici's response headers as lib/transport/response-headers.js has them: a plain object with lower-case
// names, a repeated header combined with ", ".

/**
 * @param {Array<Buffer | string>} raw
 * @returns {Record<string, string>}
 */
function fromRawHeaders (raw) {
  const headers = Object.create(null)
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i].toString('latin1').toLowerCase()
    const value = raw[i + 1].toString('latin1')
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`
  }
  return headers
}

/**
 * @param {Record<string, string | string[]>} parsed
 * @returns {Record<string, string>}
 */
function fromParsedHeaders (parsed) {
  const headers = Object.create(null)
  for (const name of Object.keys(parsed)) {
    const value = parsed[name]
    headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value)
  }
  return headers
}

class UndiciHandler {
  #owner
  #abort = null
  #controller = null
  #resume = null
  #aborted = false
  #paused = false

  constructor (owner) {
    this.#owner = owner
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
    else if (context?.history?.length > 0) this.#owner.hopFollowedRedirect(this, context.history)
  }

  onHeaders (status, rawHeaders, resume, statusText) {
    if (status < 200) return this.#interim(status)
    this.#resume = resume
    return this.#owner.hopResponse(this, status, fromRawHeaders(rawHeaders), statusText) && !this.#paused
  }

  onData (chunk) {
    this.#owner.hopData(this, chunk)
    return !this.#paused
  }

  onComplete () {
    this.#owner.hopEnd(this)
  }

  onError (err) {
    this.#owner.hopError(this, err)
  }

  onUpgrade () {}

  // undici 7/8 handler API

  onRequestStart (controller, context) {
    // undici 7 (the package on Node 20, Node 24's own) speaks the older API inside, and wraps a handler of
    // the newer one in two objects per request (UnwrapHandler and UnwrapController, kept by every idle
    // connection): its controller's class says so, and the owner's later handlers for that dispatcher speak
    // the older API only (LegacyUndiciHandler), which it takes as it is.
    if (controller?.constructor?.name === 'UnwrapController') this.#owner.hopUnwrapped(this)
    this.#controller = controller
    if (this.#aborted) controller.abort(new ERR_EVENTSOURCE_ABORTED())
    else if (context?.history?.length > 0) this.#owner.hopFollowedRedirect(this, context.history)
  }

  onResponseStart (controller, status, headers, statusText) {
    if (status < 200) {
      this.#interim(status)
      return
    }
    // undici 7 runs this API through its UnwrapHandler, whose controller keeps the raw header Buffers
    // for the life of the response (on every idle connection); they are parsed already.
    if (controller.rawHeaders != null) controller.rawHeaders = null
    if (!this.#owner.hopResponse(this, status, fromParsedHeaders(headers), statusText)) return
    if (this.#paused) controller.pause()
  }

  onResponseData (controller, chunk) {
    this.#owner.hopData(this, chunk)
  }

  onResponseEnd () {
    this.#owner.hopEnd(this)
  }

  onResponseError (controller, err) {
    this.#owner.hopError(this, err)
  }

  onRequestUpgrade () {}

  // An interim response (see the top of this file). Returns what undici 6's onHeaders() returns: keep
  // reading, for the final response.
  #interim (status) {
    if (status === 101) {
      // Reported before the request is aborted: the abort's own error then reaches an owner that has
      // let this hop go.
      this.#owner.hopError(this,
        new Error('the server switched protocols (101) for a request that asked for no upgrade'))
      this.abort()
      return false
    }
    return true
  }
}

// The same handler without the controller API, for the dispatchers that take the older one natively
// (see onRequestStart): undici passes it through when it has no onRequestStart.
class LegacyUndiciHandler extends UndiciHandler {}
const CONTROLLER_METHODS = [
  'onRequestStart', 'onResponseStart', 'onResponseData', 'onResponseEnd', 'onResponseError', 'onRequestUpgrade'
]
for (const method of CONTROLLER_METHODS) {
  LegacyUndiciHandler.prototype[method] = undefined
}

export { UndiciHandler, LegacyUndiciHandler }
