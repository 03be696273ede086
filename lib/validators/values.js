// validateX(value, name) for what any option is: an object, a function, a string, a number in a range,
// a count or a duration. The rest is by what is checked: lib/validators/options.js (the EventSourceInit
// extensions' own kinds of value) and lib/validators/http.js (what goes into a request). Each throws the
// Node-style error (lib/errors/arguments.js) for the first thing wrong with the value, and returns
// nothing; `name` is the option's full dotted path ("options.maxEventSize", "init.reconnect.delay") so
// the message points at it. They are in three modules so that a bundle of the parser, which checks
// values alone, holds none of the others.

import { codes } from '../errors/arguments.js'
const { ERR_INVALID_ARG_TYPE, ERR_OUT_OF_RANGE } = codes

/**
 * An object; with `allowFunction`, a function too (a WebIDL dictionary member accepts one).
 * @param {{ allowFunction?: boolean }} [options]
 */
function validateObject (value, name, options) {
  if (value === null ||
      (typeof value !== 'object' && (typeof value !== 'function' || options?.allowFunction !== true))) {
    throw new ERR_INVALID_ARG_TYPE(name, 'of type object', value)
  }
}

function validateFunction (value, name) {
  if (typeof value !== 'function') throw new ERR_INVALID_ARG_TYPE(name, 'of type function', value)
}

function validateOptionalFunction (value, name) {
  if (value !== undefined && typeof value !== 'function') {
    throw new ERR_INVALID_ARG_TYPE(name, 'of type function', value)
  }
}

function validateString (value, name) {
  if (typeof value !== 'string') throw new ERR_INVALID_ARG_TYPE(name, 'of type string', value)
}

// A number from `min` to `max`, fractions included.
function validateNumber (value, name, min, max) {
  if (typeof value !== 'number') throw new ERR_INVALID_ARG_TYPE(name, 'of type number', value)
  if (!(value >= min && value <= max)) throw new ERR_OUT_OF_RANGE(name, `>= ${min} and <= ${max}`, value)
}

/**
 * A byte count or a count: a non-negative safe integer, or Infinity when `allowInfinity`.
 * @param {{ min?: number, allowInfinity?: boolean }} [options]
 */
function validateLimit (value, name, { min = 0, allowInfinity = false } = {}) {
  if (typeof value !== 'number') throw new ERR_INVALID_ARG_TYPE(name, 'of type number', value)
  if (value === Infinity && allowInfinity) return
  if (!Number.isSafeInteger(value) || value < min) {
    throw new ERR_OUT_OF_RANGE(name, `an integer >= ${min}${allowInfinity ? ' or Infinity' : ''}`, value)
  }
}

// A duration in milliseconds: a non-negative safe integer.
function validateTime (value, name) {
  validateLimit(value, name)
}

export {
  validateObject, validateFunction, validateOptionalFunction, validateString, validateNumber, validateLimit,
  validateTime
}
