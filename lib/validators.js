'use strict'

// validateX(value, name) for options that the WHATWG interface does not define. Each throws the
// Node-style error for the first thing wrong with the value; `name` is the option's full dotted path
// ("options.maxEventSize") so the message points at it.

const { invalidArgType, outOfRange } = require('./errors')

function validateObject (value, name) {
  if (value === null || typeof value !== 'object') throw invalidArgType(name, 'of type object', value)
}

function validateFunction (value, name) {
  if (typeof value !== 'function') throw invalidArgType(name, 'of type function', value)
}

function validateOptionalFunction (value, name) {
  if (value !== undefined && typeof value !== 'function') throw invalidArgType(name, 'of type function', value)
}

function validateString (value, name) {
  if (typeof value !== 'string') throw invalidArgType(name, 'of type string', value)
}

/**
 * A byte count or a duration: a non-negative safe integer, or Infinity when `allowInfinity`.
 * @param {unknown} value
 * @param {string} name
 * @param {{ min?: number, allowInfinity?: boolean }} [options]
 */
function validateLimit (value, name, { min = 0, allowInfinity = false } = {}) {
  if (typeof value !== 'number') throw invalidArgType(name, 'of type number', value)
  if (value === Infinity && allowInfinity) return
  if (!Number.isSafeInteger(value) || value < min) {
    throw outOfRange(name, `an integer >= ${min}${allowInfinity ? ' or Infinity' : ''}`, value)
  }
}

module.exports = {
  validateObject,
  validateFunction,
  validateOptionalFunction,
  validateString,
  validateLimit
}
