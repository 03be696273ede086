// EventSourceParserStream: the parser as a WHATWG TransformStream (docs/parser.md), yielding the same
// objects as EventSourceStream. It takes bytes, or strings, which it encodes as UTF-8 (./string-chunk-encoder.js).
// With `batch: true` it yields, for each chunk written that completed any event, one array of those events: a
// reader takes a network chunk's events in one read, for one update of what they feed.

import { isUint8Array } from '#bytes'
import { EventSourceParser } from './event-source-parser.js'
import { StringChunkEncoder } from './string-chunk-encoder.js'
import { fromCallerOf } from '../errors/error-class.js'
import { codes } from '../errors/arguments.js'
import { validateObject, validateOptionalFunction } from '../validators/values.js'
const { ERR_INVALID_ARG_TYPE } = codes

class EventSourceParserStream extends TransformStream {
  constructor (options = {}) {
    // A bad option's stack starts at the user's call (lib/errors/error-class.js, fromCallerOf).
    const entry = new.target
    try {
      validateObject(options, 'options')
      validateOptionalFunction(options.onRetry, 'options.onRetry')
    } catch (err) {
      throw fromCallerOf(err, entry)
    }
    const { maxEventSize, lastEventId, onRetry, incompleteEvent } = options
    // The events of the chunk being written, with `batch`; else null, and each event is enqueued as it comes.
    let batch = options.batch ? [] : null
    // Enqueues the chunk's events as one array, once it is parsed.
    const endBatch = (controller) => {
      if (batch === null || batch.length === 0) return
      controller.enqueue(batch)
      batch = []
    }
    let parser
    // Made at the first string chunk.
    let encoder = null
    // start() makes the parser, whose options it checks, during super().
    try {
      super({
        start (controller) {
          parser = new EventSourceParser({
            onEvent (type, data, lastEventId) {
              if (batch === null) controller.enqueue({ type, data, lastEventId })
              else batch.push({ type, data, lastEventId })
            },
            onRetry,
            maxEventSize,
            lastEventId,
            incompleteEvent
          })
        },
        // A throw here (a chunk neither bytes nor a string, an event over maxEventSize) errors both
        // sides of the stream.
        transform (chunk, controller) {
          if (typeof chunk === 'string') {
            if (encoder === null) encoder = new StringChunkEncoder()
            parser.write(encoder.encode(chunk))
            endBatch(controller)
            return
          }
          if (!isUint8Array(chunk)) {
            throw new ERR_INVALID_ARG_TYPE('chunk', 'of type string or an instance of Buffer or Uint8Array', chunk)
          }
          // Half a surrogate pair held back from the last string is not going to be completed.
          const held = encoder?.flush() ?? null
          if (held !== null) parser.write(held)
          parser.write(chunk)
          endBatch(controller)
        },
        flush (controller) {
          const held = encoder?.flush() ?? null
          if (held !== null) parser.write(held)
          parser.end()
          endBatch(controller)
        }
      })
    } catch (err) {
      throw fromCallerOf(err, entry)
    }
  }
}

export { EventSourceParserStream }
