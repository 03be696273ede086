'use strict'

// Whether firing an event of a given type at an EventTarget could run anything. EventSource asks it
// before each message: an event nobody listens for is not even created (a server may send types
// nobody listens for: heartbeats, `event: ping`), and a message whose type has no listener right now
// waits for a full microtask checkpoint first, in case a continuation is about to add one (the next
// round of an `await once(source, type)` loop; see lib/eventsource/eventsource.js, #runTasks).
//
// Asked once per event, so it must be cheap. Node's EventTarget keeps its listeners in a Map under
// an own symbol property described as 'kEvents', type -> a list whose `size` counts them; that map is
// read directly when it is there and behaves as expected (checked once, below): about 10 ns. Anywhere
// else (another runtime, a Node that changed it), node:events' getEventListeners() gives the same
// answer at 40 to 90 ns (it builds an array of the listeners each time).

const { getEventListeners } = require('node:events')

// The symbol, if this runtime's EventTarget has it and it counts listeners as described. (Node 24 and
// later create the map at the first addEventListener: until then the property is there, undefined.)
const kEvents = (() => {
  const probe = new EventTarget()
  const symbol = Object.getOwnPropertySymbols(probe).find((s) => s.description === 'kEvents')
  if (symbol === undefined) return null
  const listener = () => {}
  probe.addEventListener('probe', listener)
  // (Node's map is a SafeMap of its internal primordials: not `instanceof Map` here, but a Map.)
  const map = probe[symbol]
  const added = typeof map?.get === 'function' && map.get('probe')?.size === 1
  probe.removeEventListener('probe', listener)
  const removed = !(probe[symbol]?.get('probe')?.size > 0)
  return added && removed ? symbol : null
})()

/**
 * How many listeners of a type an EventTarget has now. 1 when that cannot be asked (an object with a
 * `listeners` method of its own: getEventListeners() would call it instead of asking EventTarget).
 * @param {EventTarget} target
 * @param {string} type
 * @returns {number}
 */
function listenerCount (target, type) {
  if (kEvents !== null && kEvents in target) {
    // undefined until the first listener is added (Node 24 and later).
    return target[kEvents]?.get(type)?.size ?? 0
  }
  if (typeof target.listeners === 'function') return 1
  return getEventListeners(target, type).length
}

module.exports = {
  listenerCount,
  // Which of the two ways above this runtime uses cannot be seen through EventSource, which gets the
  // same answer either way: test/platform-listeners.test.js reads it to check that Node takes the fast one.
  usesListenerMap: kEvents !== null
}
