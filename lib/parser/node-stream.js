// EventSourceStream: the parser as a node:stream Transform (docs/parser.md). Bytes in;
// `{ type, data, lastEventId }` objects out, in object mode; with `batch: true`, for each chunk written that
// completed any event, one array of those events.

import { EventSourceParser } from './event-source-parser.js'
import { fromCallerOf } from '../errors/error-class.js'
import { validateObject } from '../validators/values.js'
// (process.getBuiltinModule: lib/platform/bytes-node.js says why.)
const { Transform } = process.getBuiltinModule('node:stream')

class EventSourceStream extends Transform {
  #parser
  // The events of the chunk being written, with `batch`; else null, and each event is pushed as it comes.
  #batch

  // The latest valid `retry:` value, or null; each is also emitted as a `'retry'` event.
  reconnectionTime = null

  constructor (options = {}) {
    // A bad option's stack starts at the user's call (lib/errors/error-class.js, fromCallerOf).
    try {
      validateObject(options, 'options')
    } catch (err) {
      throw fromCallerOf(err, new.target)
    }
    const { maxEventSize, lastEventId, highWaterMark, incompleteEvent } = options
    super({ readableObjectMode: true, readableHighWaterMark: highWaterMark })
    this.#batch = options.batch ? [] : null
    try {
      this.#parser = new EventSourceParser({
        onEvent: (type, data, lastEventId) => {
          if (this.#batch === null) this.push({ type, data, lastEventId })
          else this.#batch.push({ type, data, lastEventId })
        },
        onRetry: (ms) => {
          this.reconnectionTime = ms
          this.emit('retry', ms)
        },
        maxEventSize,
        lastEventId,
        incompleteEvent
      })
    } catch (err) {
      throw fromCallerOf(err, new.target)
    }
  }

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
    this.#endBatch()
    callback()
  }

  // Pushes the chunk's events as one array, once it is parsed.
  #endBatch () {
    const batch = this.#batch
    if (batch === null || batch.length === 0) return
    this.#batch = []
    this.push(batch)
  }

  _flush (callback) {
    this.#parser.end()
    this.#endBatch()
    callback()
  }
}

export { EventSourceStream }
