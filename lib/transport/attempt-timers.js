// The clocks of an attempt, the same for every transport: connectTimeout, from sending a request to its
// response head, and idleTimeout (an extension), the longest silence of a body being read. Either ends
// the attempt as a network error, which reestablishes the connection: the timers call their owner's
// timedOut(error) (the owner is the attempt, not a closure, which would cost every idle connection its
// bytes). One timer runs at a time: the idle clock starts when the head came.
//
// ConnectTimer has the first clock alone: it is all the standard's request needs
// (lib/transport/standard-fetch.js; an init without extensions has no idleTimeout), and a browser build
// without the extensions holds nothing else of this file. The methods of the body's clock are there,
// doing nothing, so that an attempt drives either class the same way. AttemptTimers adds the second
// clock, for every other attempt.

import { codes } from '../errors/connection.js'
const { ERR_EVENTSOURCE_CONNECT_TIMEOUT, ERR_EVENTSOURCE_IDLE_TIMEOUT } = codes

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
   * @param {string} displayUrl the URL as errors show it
   */
  requestSent (url, displayUrl) {
    const timeout = this.#connectTimeout
    if (timeout === 0) return
    this.#timer = setTimeout(() => {
      this.fire(new ERR_EVENTSOURCE_CONNECT_TIMEOUT(url.origin, timeout, { url: displayUrl }))
    }, timeout)
  }

  /**
   * The body is read from now on: the head came in time.
   * @returns {boolean} whether a clock runs; here none does
   */
  bodyStarted () {
    this.stop()
    return false
  }

  bytesReceived () {}

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
   * @param {number} delay ms
   */
  arm (callback, delay) {
    this.#timer = setTimeout(callback, delay)
  }

  // The timer expired: the owner is told.
  fire (error) {
    this.#timer = null
    this.#owner.timedOut(error)
  }
}

class AttemptTimers extends ConnectTimer {
  #idleTimeout
  #lastActivity = 0
  #paused = false

  /**
   * @param {{ connectTimeout: number, idleTimeout: number }} request 0 for no limit
   * @param {{ timedOut: (error: Error) => void }} owner told once a limit is passed, after the timer stopped
   */
  constructor (request, owner) {
    super(request, owner)
    this.#idleTimeout = request.idleTimeout
  }

  /**
   * The body is read from now on: a silence longer than idleTimeout ends it.
   * @returns {boolean} whether a clock runs (idleTimeout); if not, the timers have nothing more to do
   */
  bodyStarted (url, displayUrl) {
    this.stop()
    if (this.#idleTimeout === 0) return false
    this.#lastActivity = performance.now()
    // The idle timer's error needs these two strings, not the URL object.
    this.#armIdle(this.#idleTimeout, url.origin, displayUrl)
    return true
  }

  /** Bytes came. Called per chunk: it stamps the time rather than resetting a timer. */
  bytesReceived () {
    if (this.#idleTimeout !== 0) this.#lastActivity = performance.now()
  }

  /** Time spent paused by the consumer is not silence from the server. */
  pause () {
    this.#paused = true
  }

  resume () {
    this.#paused = false
    this.#lastActivity = performance.now()
  }

  // The idle timer is not reset per chunk (that would cost a timer operation per chunk): chunks stamp
  // the time, and the timer, when it fires, waits again for whatever is left of the period.
  #armIdle (delay, origin, displayUrl) {
    this.arm(() => {
      const idle = performance.now() - this.#lastActivity
      if (this.#paused || idle < this.#idleTimeout) {
        this.#armIdle(this.#paused ? this.#idleTimeout : this.#idleTimeout - idle, origin, displayUrl)
        return
      }
      this.fire(new ERR_EVENTSOURCE_IDLE_TIMEOUT(origin, this.#idleTimeout, { url: displayUrl }))
    }, Math.ceil(delay))
  }
}

export { ConnectTimer, AttemptTimers }
