// What an EventSource publishes on diagnostics_channel (docs/diagnostics.md), and what it counts for it,
// on Node, Bun and Deno (lib/entries/node-eventsource.js gives it; the browsers' builds give none: nobody can
// subscribe there). A message is built only when its channel has subscribers; the counts are kept whatever,
// since `close` reports them to whoever subscribed meanwhile.

import {
  createChannel, connectChannel, openChannel, messageChannel, errorChannel, closeChannel, tracingAttempts,
  traceAttemptStart, traceAttemptEnd
} from '../platform/channels-node.js'
import { displayHref } from '../transport/url.js'
import { OPEN } from '../constants.js'

/** The diagnostics of one source: its counts, and its messages as it goes. */
class SourceDiagnostics {
  #source
  // Messages dispatched (to listeners or to nobody), body bytes received (decoded).
  #events = 0
  #bytes = 0
  // When the current attempt started; the time spent OPEN before the current connection, and since when
  // it is OPEN (0: it is not).
  #attemptStart = 0
  #msOpen = 0
  #openSince = 0
  // The current attempt's tracing context, while anyone traces attempts.
  #traceContext = null

  constructor (source, url) {
    this.#source = source
    if (createChannel.hasSubscribers) createChannel.publish({ source, url: displayHref(url) })
  }

  received (length) {
    this.#bytes += length
  }

  /** A message dispatched, to listeners or to nobody (then no event is made). */
  message (type, data, lastEventId) {
    this.#events++
    if (messageChannel.hasSubscribers) {
      messageChannel.publish({ source: this.#source, type, lastEventId, dataLength: data.length })
    }
  }

  // Starts the transport of an attempt: `connect` first, then the transport, inside the attempt's
  // tracing context when anyone traces attempts. `request` null: a source made by fromReadableStream(), which
  // sends none (nothing is published, and its `open` is timed from here).
  startAttempt (request, lastEventId, connection) {
    this.#attemptStart = performance.now()
    const tracing = tracingAttempts()
    if (request === null || (!connectChannel.hasSubscribers && !tracing)) {
      connection.start()
      return
    }
    const message = {
      source: this.#source,
      attempt: request.attempt,
      url: displayHref(new URL(request.url)),
      method: request.method,
      headers: request.headers,
      lastEventId
    }
    if (connectChannel.hasSubscribers) connectChannel.publish(message)
    if (!tracing) {
      connection.start()
      return
    }
    // Kept before the transport starts, which may end the attempt at once.
    const context = this.#traceContext = { ...message }
    traceAttemptStart(context, () => connection.start())
  }

  /** The current attempt is over, in `error` (null: the body ended, or the source let it go). */
  attemptOver (error) {
    const context = this.#traceContext
    if (context === null) return
    this.#traceContext = null
    traceAttemptEnd(context, error)
  }

  opened ({ status, statusText, headers }, url, attempt) {
    if (!openChannel.hasSubscribers) return
    const ms = performance.now() - this.#attemptStart
    openChannel.publish({ source: this.#source, attempt, status, statusText, headers, url: displayHref(url), ms })
  }

  /** readyState changes from `from` to `to`: the time spent OPEN is counted. */
  readyStateChanged (from, to) {
    if (from === OPEN) {
      this.#msOpen += performance.now() - this.#openSince
      this.#openSince = 0
    } else if (to === OPEN) {
      this.#openSince = performance.now()
    }
  }

  // `delay`: the wait before the next attempt; undefined when none follows.
  error (error, delay) {
    if (!errorChannel.hasSubscribers) return
    errorChannel.publish({
      source: this.#source,
      error,
      code: error.code,
      status: error.status,
      // As the error event has it (lib/eventsource/error-event.js): the underlying error, else the error itself.
      cause: error.cause ?? error,
      willReconnect: delay !== undefined,
      delay
    })
  }

  closed (reason, attempts) {
    if (!closeChannel.hasSubscribers) return
    closeChannel.publish({
      source: this.#source, reason, events: this.#events, bytes: this.#bytes, attempts, msOpen: this.#msOpen
    })
  }
}

export { SourceDiagnostics }
