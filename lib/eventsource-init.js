'use strict'

// The EventSourceInit dictionary: WebIDL conversion of the standard member (withCredentials) and
// validation of the Node extensions. undici's shape (`node: { dispatcher, reconnectionTime }`) is
// accepted as it is, so code written for Node's built-in EventSource works unchanged.

const { invalidArgType } = require('./errors')
const { validateLimit } = require('./validators')

function isObject (value) {
  return value !== null && (typeof value === 'object' || typeof value === 'function')
}

function validateDispatcher (value, name) {
  if (!isObject(value) || typeof value.dispatch !== 'function') {
    throw invalidArgType(name, 'an undici Dispatcher (an object with a dispatch() method)', value)
  }
}

/**
 * @param {unknown} dict the constructor's second argument
 * @returns {{ withCredentials: boolean, dispatcher?: object, reconnectionTime?: number, maxEventSize?: number }}
 */
function resolveInit (dict) {
  // WebIDL: undefined and null are an empty dictionary; other non-objects are a TypeError.
  if (dict === undefined || dict === null) return { withCredentials: false }
  if (!isObject(dict)) {
    throw new TypeError("Failed to construct 'EventSource': The provided value is not of type 'EventSourceInit'.")
  }
  const init = { withCredentials: Boolean(dict.withCredentials) }

  const node = dict.node
  if (node !== undefined) {
    if (!isObject(node)) throw invalidArgType('eventSourceInitDict.node', 'of type object', node)
    if (node.dispatcher !== undefined) {
      validateDispatcher(node.dispatcher, 'eventSourceInitDict.node.dispatcher')
      init.dispatcher = node.dispatcher
    }
    if (node.reconnectionTime !== undefined) {
      validateLimit(node.reconnectionTime, 'eventSourceInitDict.node.reconnectionTime')
      init.reconnectionTime = node.reconnectionTime
    }
  }
  if (dict.dispatcher !== undefined) {
    validateDispatcher(dict.dispatcher, 'eventSourceInitDict.dispatcher')
    init.dispatcher = dict.dispatcher
  }
  if (dict.reconnectionTime !== undefined) {
    validateLimit(dict.reconnectionTime, 'eventSourceInitDict.reconnectionTime')
    init.reconnectionTime = dict.reconnectionTime
  }
  if (dict.maxEventSize !== undefined) {
    validateLimit(dict.maxEventSize, 'eventSourceInitDict.maxEventSize', { min: 1, allowInfinity: true })
    init.maxEventSize = dict.maxEventSize
  }
  return init
}

module.exports = { resolveInit }
