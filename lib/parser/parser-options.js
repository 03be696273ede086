'use strict'

// The options of an EventSourceParser (./parser.js), checked once, when it is constructed.

const { fromCallerOf } = require('../error-class')
const { validateObject, validateFunction, validateOptionalFunction, validateString, validateLimit } = require('../validators-values')

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
    if (options.maxEventSize !== undefined) validateLimit(options.maxEventSize, 'options.maxEventSize', { min: 1, allowInfinity: true })
    if (options.lastEventId !== undefined) validateString(options.lastEventId, 'options.lastEventId')
  } catch (err) {
    throw fromCallerOf(err, entry)
  }
  return options
}

module.exports = { validOptions }
