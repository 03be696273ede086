// EventSourceParser, the public parser: the byte parser (./parser.js) with its options checked once,
// when it is constructed. The parser of an EventSource (lib/eventsource/source-parser.js) is made from a
// resolved init, whose values are checked already, and extends the byte parser directly: a browser
// bundle of the EventSource then holds no option checks and none of the validators they need
// (benchmarks/size.mjs weighs the bundles).

import { EventStreamParser } from './parser.js'
import { fromCallerOf } from '../errors/error-class.js'
import {
  validateObject, validateFunction, validateOptionalFunction, validateString, validateLimit
} from '../validators/values.js'

/**
 * The constructor's options, checked: a bad one throws with a stack that starts at the user's call.
 * @param {unknown} options
 * @param {Function} entry the constructor the user called (new.target)
 */
function validOptions (options, entry) {
  try {
    validateObject(options, 'options')
    validateFunction(options.onEvent, 'options.onEvent')
    validateOptionalFunction(options.onRetry, 'options.onRetry')
    validateOptionalFunction(options.onComment, 'options.onComment')
    if (options.maxEventSize !== undefined) {
      validateLimit(options.maxEventSize, 'options.maxEventSize', { min: 1, allowInfinity: true })
    }
    if (options.lastEventId !== undefined) validateString(options.lastEventId, 'options.lastEventId')
  } catch (err) {
    throw fromCallerOf(err, entry)
  }
  return options
}

class EventSourceParser extends EventStreamParser {
  /**
   * @param {object} options
   * @param {(type: string, data: string, lastEventId: string) => void} options.onEvent
   * @param {(ms: number) => void} [options.onRetry] called as soon as a valid `retry` line is parsed
   * @param {(text: string) => void} [options.onComment] called with the text after `:` (one leading space removed)
   * @param {number} [options.maxEventSize] the limit on what one event holds in memory (see ./parser.js)
   * @param {string} [options.lastEventId] the last event ID string to start from
   */
  constructor (options) {
    super(validOptions(options, new.target))
  }
}

export { EventSourceParser }
