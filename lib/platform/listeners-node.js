// Whether firing an event of a given type at an EventTarget could run anything. EventSource asks it
// before each message: an event nobody listens for is not even created (a server may send types
// nobody listens for: heartbeats, `event: ping`), and a message whose type has no listener right now
// waits for a full microtask checkpoint first, in case a continuation is about to add one (the next
// round of an `await once(source, type)` loop; see lib/eventsource/eventsource.js, #runTasks).
//
// Asked once per event, so it must be cheap. Node's EventTarget keeps its listeners in a Map under an own
// symbol property described as 'kEvents', type -> a list whose `size` counts them; that map is read
// directly when it behaves as expected (checked once, below). Anywhere else, node:events'
// getEventListeners() gives the same answer, building an array of the listeners each time.

// (process.getBuiltinModule: lib/platform/bytes-node.js says why.)
const { getEventListeners } = process.getBuiltinModule('node:events')

// The symbol, if this runtime's EventTarget has it and counts listeners as described, in place. (Node
// 24 and later create the map at the first addEventListener: until then the property is undefined.)
const kEvents = (() => {
  const probe = new EventTarget()
  const symbol = Object.getOwnPropertySymbols(probe).find((s) => s.description === 'kEvents')
  if (symbol === undefined) return null
  const listener = () => {}
  probe.addEventListener('probe', listener)
  // (Node's map is a SafeMap of its internal primordials: not `instanceof Map` here, but a Map.)
  const map = probe[symbol]
  const record = typeof map?.get === 'function' ? map.get('probe') : undefined
  const added = record?.size === 1
  probe.removeEventListener('probe', listener)
  // The record read before counts the removal too: listenersOf()'s callers read it again later.
  const removed = added && record.size === 0 && !(probe[symbol]?.get('probe')?.size > 0)
  return removed ? symbol : null
})()

// What listenersOf() returns where nothing listens, and where nothing can be asked (1: listened-for).
const NONE = Object.freeze({ size: 0 })
const UNKNOWN = Object.freeze({ size: 1 })

// The listeners of a type on an EventTarget, as an object whose `size` counts them now and later: the
// task queue reads it before a dispatch and again after, to see whether a listener went away (a `once`
// one), with one lookup per event. On Node it is the EventTarget's own list record, whose size Node
// updates in place (a type whose last listener went leaves a record at 0, as its new listeners get a new
// one: a count that went down either way). `size` is 1 when it cannot be asked (an object with a
// `listeners` method of its own: getEventListeners() would call it instead of asking EventTarget).
function listenersOf (target, type) {
  if (kEvents !== null && kEvents in target) {
    // undefined until the first listener is added (Node 24 and later).
    return target[kEvents]?.get(type) ?? NONE
  }
  if (typeof target.listeners === 'function') return UNKNOWN
  return { get size () { return getEventListeners(target, type).length } }
}

// Node 20 and 22 give every EventTarget a map for the `on<type>` handlers of Node's own classes
// (internal/event_target.js, defineEventHandler), made by the constructor: an empty Map that every
// EventSource keeps and never uses, since it defines its handlers itself (lib/eventsource/webidl.js).
// The symbol, where this runtime's EventTarget makes an empty map at once (Node 24 makes it lazily).
const kHandlers = (() => {
  const probe = new EventTarget()
  const symbol = Object.getOwnPropertySymbols(probe).find((s) => s.description === 'kHandlers')
  return symbol !== undefined && probe[symbol]?.size === 0 && typeof probe[symbol].get === 'function' ? symbol : null
})()

// Drops that map, for a subclass whose `on<type>` handlers are its own.
function releaseHandlerMap (target) {
  if (kHandlers !== null) target[kHandlers] = undefined
}

// Listeners can be counted here (lib/platform/listeners-web.js's cannot): the task queue waits one promise
// job before a message whose listeners all stayed.
const countsListeners = true
// Which of the two ways above this runtime uses, which EventSource cannot show:
// test/platform/platform-listeners.test.cjs reads it to check that Node takes the fast one.
const usesListenerMap = kEvents !== null

export { listenersOf, countsListeners, releaseHandlerMap, usesListenerMap }
