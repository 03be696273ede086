// EventSourceStream: the parser as a node:stream Transform. Bytes in; `{ type, data, lastEventId }`
// objects out, in object mode, with the usual backpressure (push() returning false holds the writable
// side until the reader catches up) and errors through stream.pipeline.

import { Transform } from 'node:stream'
import { EventSourceParser } from './event-source-parser.js'
import { fromCallerOf } from '../errors/error-class.js'
import { validateObject } from '../validators/values.js'

class EventSourceStream extends Transform {
  #parser

  /**
   * The reconnection time the stream asked for with its latest valid `retry:` line, or null.
   * Each change is also emitted as a `'retry'` event with the number of milliseconds.
   * @type {number | null}
   */
  reconnectionTime = null

  /**
   * @param {object} [options]
   * @param {number} [options.maxEventSize] see EventSourceParser
   * @param {string} [options.lastEventId] see EventSourceParser
   * @param {number} [options.highWaterMark] events buffered on the readable side
   */
  constructor (options = {}) {
    // A bad option's stack starts at the user's call (lib/errors/error-class.js, fromCallerOf).
    try {
      validateObject(options, 'options')
    } catch (err) {
      throw fromCallerOf(err, new.target)
    }
    const { maxEventSize, lastEventId, highWaterMark } = options
    super({ readableObjectMode: true, readableHighWaterMark: highWaterMark })
    try {
      this.#parser = new EventSourceParser({
        onEvent: (type, data, lastEventId) => {
          this.push({ type, data, lastEventId })
        },
        onRetry: (ms) => {
          this.reconnectionTime = ms
          this.emit('retry', ms)
        },
        maxEventSize,
        lastEventId
      })
    } catch (err) {
      throw fromCallerOf(err, new.target)
    }
  }

  /** The last event ID string, as EventSourceParser#lastEventId. */
  get lastEventId () {
    return this.#parser.lastEventId
  }

  _transform (chunk, encoding, callback) {
    try {
      this.#parser.write(chunk)
    } catch (err) {
      callback(err)
      return
    }
    callback()
  }

  _flush (callback) {
    this.#parser.end()
    callback()
  }
}

export { EventSourceStream }
