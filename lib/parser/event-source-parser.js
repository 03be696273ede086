// EventSourceParser, the public parser: the byte parser (./parser.js) with its options (types/index.d.ts)
// checked once, when it is constructed. An EventSource's parser (lib/eventsource/source-parser.js) extends
// the byte parser directly, from a resolved init: a browser bundle of the EventSource holds no validators.

import { EventStreamParser } from './parser.js'
import { fromCallerOf } from '../errors/error-class.js'
import {
  validateObject, validateFunction, validateOptionalFunction, validateString, validateLimit
} from '../validators/values.js'
import { codes } from '../errors/arguments.js'
const { ERR_INVALID_ARG_VALUE } = codes

// The constructor's options, checked: a bad one throws with a stack that starts at the user's call
// (entry: new.target).
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
    // validators/options.js's validateOneOf() says the same, at 32 B more in this class's browser bundle.
    const { incompleteEvent } = options
    if (incompleteEvent !== undefined && incompleteEvent !== 'discard' && incompleteEvent !== 'dispatch') {
      throw new ERR_INVALID_ARG_VALUE('options.incompleteEvent', incompleteEvent, "must be 'discard' or 'dispatch'")
    }
  } catch (err) {
    throw fromCallerOf(err, entry)
  }
  return options
}

class EventSourceParser extends EventStreamParser {
  constructor (options) {
    super(validOptions(options, new.target))
  }
}

export { EventSourceParser }
