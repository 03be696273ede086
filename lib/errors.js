'use strict'

// Node-style errors: `code` on the instance and `Name [CODE]: message` as the first line of the stack
// and as toString(), the shape Node core gives its own errors. Codes that Node also uses keep Node's
// meaning; conditions specific to this package carry the ERR_EVENTSOURCE_ prefix.

const { inspect } = require('node:util')

/**
 * Describes a received value the way Node's ERR_INVALID_ARG_TYPE message does.
 * @param {unknown} value
 * @returns {string}
 */
function describeReceived (value) {
  if (value == null) return ` Received ${value}`
  if (typeof value === 'function') return ` Received function ${value.name || '<anonymous>'}`
  if (typeof value === 'object') {
    if (value.constructor?.name) return ` Received an instance of ${value.constructor.name}`
    return ` Received ${inspect(value, { depth: -1 })}`
  }
  let shown = inspect(value, { colors: false })
  if (shown.length > 28) shown = `${shown.slice(0, 25)}...`
  return ` Received type ${typeof value} (${shown})`
}

// A dotted name ("options.maxEventSize") is a property of an options bag; a plain one is an argument.
function describeName (name) {
  return name.includes('.') ? `"${name}" property` : `"${name}" argument`
}

function createError (Base, code, message, options) {
  const error = new Base(message, options)
  // Put the code into the name while the stack is captured, as Node core does, then remove it again.
  Object.defineProperty(error, 'name', { value: `${Base.name} [${code}]`, configurable: true, writable: true })
  error.stack // eslint-disable-line no-unused-expressions
  delete error.name
  error.code = code
  return error
}

// Node's errors print as `Name [CODE]: message`; ours do the same.
function toString () {
  return `${this.name} [${this.code}]: ${this.message}`
}

function withToString (error) {
  Object.defineProperty(error, 'toString', { value: toString, configurable: true, writable: true })
  return error
}

/**
 * @param {string} name
 * @param {string} expected e.g. "of type function" or "an instance of Uint8Array"
 * @param {unknown} value
 */
function invalidArgType (name, expected, value) {
  return withToString(createError(TypeError, 'ERR_INVALID_ARG_TYPE',
    `The ${describeName(name)} must be ${expected}.${describeReceived(value)}`))
}

function invalidArgValue (name, value, reason) {
  return withToString(createError(TypeError, 'ERR_INVALID_ARG_VALUE',
    `The ${describeName(name)} ${reason}. Received ${inspect(value)}`))
}

function outOfRange (name, range, value) {
  return withToString(createError(RangeError, 'ERR_OUT_OF_RANGE',
    `The value of "${name}" is out of range. It must be ${range}. Received ${inspect(value)}`))
}

function invalidHttpToken (name, value) {
  return withToString(createError(TypeError, 'ERR_INVALID_HTTP_TOKEN',
    `${name} must be a valid HTTP token ["${String(value)}"]`))
}

function invalidChar (name, value) {
  return withToString(createError(TypeError, 'ERR_INVALID_CHAR',
    `Invalid character in ${name} ${inspect(value)}: control characters other than tab cannot be sent`))
}

function eventTooLarge (limit) {
  return withToString(createError(RangeError, 'ERR_EVENTSOURCE_EVENT_TOO_LARGE',
    `An event exceeded the maximum event size of ${limit} bytes (maxEventSize)`))
}

function writeAfterEnd () {
  return withToString(createError(Error, 'ERR_EVENTSOURCE_WRITE_AFTER_END',
    'write() was called after end(); call reset() to parse a new stream'))
}

// Why a connection failed or was re-established. These are carried on error events (extensions);
// `details` adds what is known about the response (status, statusText, headers, url).
function connectionError (code, message, details, cause) {
  const error = withToString(createError(Error, code, message, cause === undefined ? undefined : { cause }))
  if (details !== undefined) Object.assign(error, details)
  return error
}

module.exports = {
  connectionError,
  describeReceived,
  invalidArgType,
  invalidArgValue,
  outOfRange,
  invalidHttpToken,
  invalidChar,
  eventTooLarge,
  writeAfterEnd
}
