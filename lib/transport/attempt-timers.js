// The clocks of an attempt, the same for every transport: connectTimeout, from sending a request to its
// response head, and idleTimeout (an extension), the longest silence of a body being read. Either ends
// the attempt as a network error: the timers call their owner's timedOut(error) once their timer stopped
// (the owner is the attempt, not a closure, which would cost every idle connection its bytes). A limit of
// 0 is none. One timer runs at a time: the idle clock starts when the head came.
//
// ConnectTimer has the first clock alone, all the standard's request needs: a browser build without the
// extensions holds nothing else of this file. Its body clock's methods do nothing, so that an attempt
// drives either class the same way. AttemptTimers adds the second clock, for every other attempt.

import { codes } from '../errors/connection.js'
const { ERR_EVENTSOURCE_CONNECT_TIMEOUT, ERR_EVENTSOURCE_IDLE_TIMEOUT } = codes

class ConnectTimer {
  #connectTimeout
  #owner
  #timer = null

  constructor (request, owner) {
    this.#connectTimeout = request.connectTimeout
    this.#owner = owner
  }

  // A request was sent to `url`: its head must come within connectTimeout.
  requestSent (url, displayUrl) {
    const timeout = this.#connectTimeout
    if (timeout === 0) return
    this.#timer = setTimeout(() => {
      this.fire(new ERR_EVENTSOURCE_CONNECT_TIMEOUT(url.origin, timeout, { url: displayUrl }))
    }, timeout)
  }

  // The body is read from now on: the head came in time. Returns whether a clock runs; here none does.
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

  // Arms the one timer, stopped by stop(); `callback` ends with fire(error) when a limit is passed.
  arm (callback, delay) {
    this.#timer = setTimeout(callback, delay)
  }

  fire (error) {
    this.#timer = null
    this.#owner.timedOut(error)
  }
}

class AttemptTimers extends ConnectTimer {
  #idleTimeout
  #lastActivity = 0
  #paused = false

  constructor (request, owner) {
    super(request, owner)
    this.#idleTimeout = request.idleTimeout
  }

  // The body is read from now on: a silence longer than idleTimeout ends it. Returns whether a clock runs.
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
