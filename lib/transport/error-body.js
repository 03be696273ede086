// The body of a response a source does not take (a status other than 200, or a Content-Type other than
// text/event-stream), read as text for its error (init.errorBody, docs/errors.md#what-the-body-said): an
// API says there why it refused a request. The one place such a body is read, whatever the transport:
// rather than abort the attempt, the source hands it to a reader here, which takes its reports from then
// on (setSink(): the body as an event stream's would come, decoded by the transport) and stands for it in
// the source until the body is read; then the source ends the attempt and fails (or retries) with the error.
//
// Both bounds hold, whatever the server does: at most maxBytes are kept, counted after decoding (a few
// compressed bytes may stand for any number), and the chunk that passes them ends the reading and the
// attempt; the error waits at most `timeout` ms for the body to end, so a server that sends its head and
// then nothing, or a byte now and then, gets the error sent with what had arrived.

// #bytes: Buffer.concat on Node, its web twin elsewhere.
import { concatBytes } from '#bytes'
import { MAX_TIMER_DELAY } from '../constants.js'
import { mimeCharset } from './response-headers.js'

class ErrorBodyReader {
  #error
  #owner
  #attempt
  #maxBytes
  #chunks = []
  #length = 0
  #timer
  #done = false

  /**
   * Takes the attempt's reports from now on. Made in the source's opened(), during which a transport
   * reports nothing: nothing reaches the owner before the source holds the reader.
   * @param {Error & { headers: Record<string, string> }} error the response's, which gets `body` and
   *   `bodyTruncated`
   * @param {{ maxBytes: number, timeout: number }} bounds init.errorBody, resolved
   * @param {{ refused: (error: Error) => void }} owner the source's internals, told once the body is read
   * @param {import('./transport-node').TransportAttempt} attempt the attempt, its response opened
   */
  constructor (error, bounds, owner, attempt) {
    this.#error = error
    this.#owner = owner
    this.#attempt = attempt
    this.#maxBytes = bounds.maxBytes
    this.#timer = setTimeout(() => this.#finish(true), Math.min(bounds.timeout, MAX_TIMER_DELAY))
    attempt.setSink(this)
    // Read even when a `for await` queue paused the attempt: the body goes in no queue.
    attempt.resume()
  }

  // The attempt's reports (the sink of lib/transport/transport-node.js), after opened().
  data (chunk) {
    if (this.#done) return
    const room = this.#maxBytes - this.#length
    if (chunk.length <= room) {
      this.#chunks.push(chunk)
      this.#length += chunk.length
      return
    }
    // Past the bound: what fits is kept, and the reading ends here.
    if (room > 0) {
      this.#chunks.push(chunk.subarray(0, room))
      this.#length += room
    }
    this.#finish(true)
  }

  ended () {
    this.#finish(false)
  }

  // The connection failed before the body ended: the error goes with what came.
  networkError () {
    this.#finish(true)
  }

  failed () {
    this.#finish(true)
  }

  // The attempt's methods: until refused(), the source holds the reader as its attempt, so that close()
  // (and the source's signal) stop it with the attempt. A `for await` queue does not pause the body.

  pause () {}

  resume () {}

  /** Ends the reading and the attempt: nothing is reported, no timer is left. */
  abort () {
    this.#stop()
    this.#attempt.abort()
  }

  #stop () {
    this.#done = true
    clearTimeout(this.#timer)
  }

  #finish (truncated) {
    if (this.#done) return
    this.#stop()
    const error = this.#error
    error.body = decode(this.#bytes(), mimeCharset(error.headers['content-type']), truncated)
    error.bodyTruncated = truncated
    this.#chunks = null
    this.#owner.refused(error)
  }

  // The bytes read, as one array.
  #bytes () {
    const chunks = this.#chunks
    return chunks.length === 1 ? chunks[0] : concatBytes(chunks)
  }
}

/**
 * The text of `bytes` in the encoding the Content-Type's charset names, by the Encoding standard's labels
 * as a browser's fetch takes them (UTF-8 when it names none TextDecoder knows).
 * @param {boolean} truncated the bytes stop before the body's end: a character they end inside is left out
 *   whole (the decoder streams), so a cut adds no replacement character
 */
function decode (bytes, label, truncated) {
  let decoder
  try {
    decoder = new TextDecoder(label)
  } catch {
    // '' (no charset), a label the Encoding standard does not have, or its "replacement" encoding.
    decoder = new TextDecoder()
  }
  return decoder.decode(bytes, { stream: truncated })
}

export { ErrorBodyReader }
