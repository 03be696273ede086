'use strict'

// The two clocks of an attempt (extensions), the same for every transport: connectTimeout, from sending
// a request to its response head (./connect-timer.js), and idleTimeout, the longest silence of a body
// being read. Either ends the attempt as a network error, which reestablishes the connection: the timers
// call their owner's timedOut(error). One timer runs at a time: the idle clock starts when the head came.

const { codes: { ERR_EVENTSOURCE_IDLE_TIMEOUT } } = require('../errors/connection')
const { ConnectTimer } = require('./connect-timer')

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
   * @param {URL} url
   * @param {string} displayUrl
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

module.exports = { AttemptTimers }
