'use strict'

// EventSourceParserStream: the parser as a WHATWG TransformStream, for
// `response.body.pipeThrough(new EventSourceParserStream())`. Yields the same
// `{ type, data, lastEventId }` objects as EventSourceStream.

const { EventSourceParser } = require('./parser')
const { validateObject, validateOptionalFunction } = require('./validators')

class EventSourceParserStream extends TransformStream {
  /**
   * @param {object} [options]
   * @param {number} [options.maxEventSize] see EventSourceParser
   * @param {string} [options.lastEventId] see EventSourceParser
   * @param {(ms: number) => void} [options.onRetry] called with each valid `retry:` value
   */
  constructor (options = {}) {
    validateObject(options, 'options')
    const { maxEventSize, lastEventId, onRetry } = options
    validateOptionalFunction(onRetry, 'options.onRetry')
    let parser
    super({
      start (controller) {
        parser = new EventSourceParser({
          onEvent (type, data, lastEventId) {
            controller.enqueue({ type, data, lastEventId })
          },
          onRetry,
          maxEventSize,
          lastEventId
        })
      },
      // A throw here (a non-byte chunk, an event over maxEventSize) errors both sides of the stream.
      transform (chunk) {
        parser.write(chunk)
      },
      flush () {
        parser.end()
      }
    })
  }
}

module.exports = { EventSourceParserStream }
