// validateX(value, name), as in ./values.js, for the kinds of value the EventSourceInit extensions take
// beyond plain values: one of a few strings, statuses, a dispatcher, a fetch, a signal.

import { codes } from '../errors/arguments.js'
import { validateFunction, validateLimit } from './values.js'
const { ERR_INVALID_ARG_TYPE, ERR_INVALID_ARG_VALUE, ERR_OUT_OF_RANGE } = codes

// One of a few strings.
function validateOneOf (value, name, allowed) {
  if (!allowed.includes(value)) {
    throw new ERR_INVALID_ARG_VALUE(name, value, `must be ${allowed.map((v) => `'${v}'`).join(' or ')}`)
  }
}

// true, false, or an options object (init.http2).
function validateBooleanOrObject (value, name) {
  if (typeof value !== 'boolean' && (value === null || typeof value !== 'object')) {
    throw new ERR_INVALID_ARG_TYPE(name, 'of type boolean or object', value)
  }
}

// HTTP statuses to reconnect on: from 100 to 599, and not 200, which opens the connection.
function validateStatusList (value, name) {
  if (!Array.isArray(value)) throw new ERR_INVALID_ARG_TYPE(name, 'an array of status codes', value)
  for (const status of value) {
    validateLimit(status, `${name}[]`, { min: 100 })
    if (status === 200 || status > 599) {
      throw new ERR_OUT_OF_RANGE(`${name}[]`, 'a status from 100 to 599 other than 200', status)
    }
  }
}

// An undici Dispatcher, or anything with its dispatch() method.
function validateDispatcher (value, name) {
  if (value === null || (typeof value !== 'object' && typeof value !== 'function') ||
      typeof value.dispatch !== 'function') {
    throw new ERR_INVALID_ARG_TYPE(name, 'an undici Dispatcher (an object with a dispatch() method)', value)
  }
}

// A fetch, for the fetch transport; not with a dispatcher, for the other transport: given both, which
// one the user meant cannot be told.
function validateFetch (value, name, dispatcher) {
  validateFunction(value, name)
  if (dispatcher !== undefined) {
    throw new ERR_INVALID_ARG_VALUE(name, value,
      'cannot be given with a dispatcher (give the dispatcher to that fetch instead)')
  }
}

function validateAbortSignal (value, name) {
  if (!(value instanceof AbortSignal)) throw new ERR_INVALID_ARG_TYPE(name, 'an instance of AbortSignal', value)
}

export {
  validateOneOf, validateBooleanOrObject, validateStatusList, validateDispatcher, validateFetch, validateAbortSignal
}
