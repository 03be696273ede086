'use strict'

// ConnectTimer: the first clock of an attempt, connectTimeout, from sending a request to its response
// head. Past it, the attempt ends as a network error, which reestablishes the connection: the timer calls
// its owner's timedOut(error) (the owner is the attempt, not a closure, which would cost every idle
// connection its bytes). It is all the standard's request needs (lib/transport/standard-fetch.js: an
// init without extensions has no idleTimeout); AttemptTimers (./attempt-timers.js) adds the second clock
// for every other attempt. The methods of the body's clock are here, doing nothing, so that an attempt
// drives either the same way.

const { codes: { ERR_EVENTSOURCE_CONNECT_TIMEOUT } } = require('../errors/connection')

class ConnectTimer {
  #connectTimeout
  #owner
  #timer = null

  /**
   * @param {{ connectTimeout: number }} request 0 for no limit
   * @param {{ timedOut: (error: Error) => void }} owner told once a limit is passed, after the timer stopped
   */
  constructor (request, owner) {
    this.#connectTimeout = request.connectTimeout
    this.#owner = owner
  }

  /**
   * A request was sent to `url`: its head must come within connectTimeout.
   * @param {URL} url
   * @param {string} displayUrl the URL as errors show it
   */
  requestSent (url, displayUrl) {
    const timeout = this.#connectTimeout
    if (timeout === 0) return
    this.#timer = setTimeout(() => this.fire(new ERR_EVENTSOURCE_CONNECT_TIMEOUT(url.origin, timeout, { url: displayUrl })), timeout)
  }

  /**
   * The body is read from now on: the head came in time.
   * @returns {boolean} whether a clock runs; here none does
   */
  bodyStarted () {
    this.stop()
    return false
  }

  /** Bytes came. */
  bytesReceived () {}

  /** The consumer paused the body. */
  pause () {}

  resume () {}

  stop () {
    if (this.#timer !== null) {
      clearTimeout(this.#timer)
      this.#timer = null
    }
  }

  /**
   * Arms the one timer: `fire(error)` is called when it expires, unless stop() comes first.
   * @param {() => void} callback
   * @param {number} delay ms
   */
  arm (callback, delay) {
    this.#timer = setTimeout(callback, delay)
  }

  /**
   * The timer expired: the owner is told.
   * @param {Error} error
   */
  fire (error) {
    this.#timer = null
    this.#owner.timedOut(error)
  }
}

module.exports = { ConnectTimer }
