// EventSourceStream: the parser as a node:stream Transform (docs/parser.md). Bytes in;
// `{ type, data, lastEventId }` objects out, in object mode.

import { EventSourceParser } from './event-source-parser.js'
import { fromCallerOf } from '../errors/error-class.js'
import { validateObject } from '../validators/values.js'
// (process.getBuiltinModule: lib/platform/bytes-node.js says why.)
const { Transform } = process.getBuiltinModule('node:stream')

class EventSourceStream extends Transform {
  #parser

  // The latest valid `retry:` value, or null; each is also emitted as a `'retry'` event.
  reconnectionTime = null

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
