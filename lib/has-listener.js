'use strict'

// Whether firing an event of a given type at an EventTarget could run anything. Firing an event that
// has no listener has no effect anyone can observe, so EventSource does not even create a
// MessageEvent for it (a server may send types nobody listens for: heartbeats, `event: ping`).
//
// node:events' getEventListeners() reads EventTarget's own list, so listeners added by any path
// count (EventTarget.prototype.addEventListener.call included), and listeners gone by `once` or an
// aborted `signal` do not. It costs about 40 to 90 ns a call (an array of the listeners each time),
// so `message`, the type nearly every stream sends and nearly every consumer listens for, is not
// checked: there the check would cost more than it saves.

const { getEventListeners } = require('node:events')

/**
 * @param {EventTarget} target
 * @param {string} type
 * @returns {boolean} false only when no listener of that type is registered now
 */
function hasListener (target, type) {
  if (type === 'message') return true
  // getEventListeners() calls a `listeners` method instead of asking EventTarget when the object has
  // one (an EventEmitter's), and a subclass or an expando may define one: then nothing is skipped.
  if (typeof target.listeners === 'function') return true
  return getEventListeners(target, type).length !== 0
}

module.exports = { hasListener }
