// ReadableStreamAttempt: the one attempt of a source made by EventSource.fromReadableStream() (whatwg/html
// PR #12272, a proposal): no request is sent, the application's stream is the body. It reports to the sink as
// every transport does (./transport-node.js): opened() with the response the proposal stands for, data() for
// each chunk, then ended() when the stream is done, or failed() when it errors or yields something other than
// bytes. failed(), not networkError(): there is nobody to reconnect to, and no stream to read again. (No
// setSink(): the source hands only a response it does not take to another sink, and this one is a 200.)

// #bytes: lib/platform/bytes-node.js on Node, Bun and Deno (a Uint8Array of any realm); bytes-web.js elsewhere.
import { isUint8Array } from '#bytes'
import { codes as argumentsCodes } from '../errors/arguments.js'
import { codes as connectionCodes } from '../errors/connection.js'
const { ERR_INVALID_ARG_TYPE } = argumentsCodes
const { ERR_EVENTSOURCE_NETWORK } = connectionCodes

// The URL of every source made from a stream. Its origin is opaque: a MessageEvent's origin is "null".
const STREAM_URL = 'about:event-stream'

// The response a stream stands for: the one a network source would take, at a URL of no origin. method null:
// there is no request to send again.
const STREAM_RESPONSE = Object.freeze({
  status: 200,
  statusText: '',
  headers: Object.freeze({ 'content-type': 'text/event-stream' }),
  url: STREAM_URL,
  method: null
})

class ReadableStreamAttempt {
  #reader
  #sink
  #reading = false
  #paused = false
  #done = false

  /** @param {ReadableStreamDefaultReader} reader the stream's, taken when the source was made (the stream is locked) */
  constructor (reader, sink) {
    this.#reader = reader
    this.#sink = sink
  }

  start () {
    if (this.#done) return
    this.#sink.opened(STREAM_RESPONSE)
    if (!this.#done && !this.#paused) this.#read()
  }

  pause () {
    this.#paused = true
  }

  resume () {
    if (!this.#paused) return
    this.#paused = false
    if (!this.#reading && !this.#done) this.#read()
  }

  // close(): the stream is cancelled, as the proposal's close() steps say, and its reader released with it.
  abort () {
    if (!this.#settle()) return
    this.#reader.cancel().catch(() => {})
  }

  // Reads the stream until it is done, errors, or the attempt is paused or aborted. One loop at a time.
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
        // Bytes, as a fetch's body yields them (from another realm too: a test's jsdom, a vm context).
        if (!isUint8Array(value)) {
          this.#settle()
          reader.cancel().catch(() => {})
          this.#sink.failed(new ERR_INVALID_ARG_TYPE('chunk', 'an instance of Uint8Array', value))
          return
        }
        this.#sink.data(value)
      }
    } catch (err) {
      // The stream errored (its source called controller.error(), a fetch body was cut): the error is the cause.
      if (!this.#settle()) return
      const cause = err instanceof Error ? err : new Error(String(err))
      this.#sink.failed(new ERR_EVENTSOURCE_NETWORK(STREAM_URL, cause.message, { url: STREAM_URL }, cause))
    } finally {
      this.#reading = false
    }
  }

  // Ends the attempt before its one last report. Returns false when it had ended already.
  #settle () {
    if (this.#done) return false
    this.#done = true
    return true
  }
}

export { ReadableStreamAttempt, STREAM_URL }
