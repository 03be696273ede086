// The MessageEvents an EventSource dispatches. They are the runtime's MessageEvents for every check the
// standard and the web-platform tests make: `instanceof MessageEvent`, `constructor === MessageEvent`,
// `[object MessageEvent]` (the runtime's own toStringTag), the Event methods (composedPath,
// stopImmediatePropagation, preventDefault...), and the MessageEvent attributes data, origin,
// lastEventId, source (null) and ports (an empty frozen array), read-only and enumerable on the prototype.
//
// What they skip is the runtime constructor's WebIDL dictionary conversion: on Node 22 and later the
// global MessageEvent is undici's, whose `new MessageEvent(type, { data, origin, lastEventId })` converts
// and checks each member of the dictionary, several times what the rest of the dispatch costs
// (benchmarks/e2e/hot-path.bench.mjs; benchmarks/README.md, "Where a small event goes on Node 22 and
// later"). An EventSource's values need no conversion: its type, data, origin and ID are strings it made.
// So the event is built by a class that extends Event (the runtime's, whose constructor is cheap without
// options) and whose prototype sits on the runtime's MessageEvent.prototype: the attributes are its own
// getters, which shadow the runtime's (those check for the runtime's internal slots, which this event
// does not have).
//
// The class is made for the MessageEvent that is global when the first event is dispatched, and made
// again if a program replaces globalThis.MessageEvent (a polyfill, a test): an event is always an
// instance of the MessageEvent of the moment.

import { unshared } from '../parser/unshared-string.js'

// The class made for `base`, the MessageEvent it was made for.
let base = null
let EventSourceMessageEvent = null

const NO_PORTS = Object.freeze([])

// The class of an EventSource's MessageEvents, for the global MessageEvent of the moment.
function messageEventClass () {
  const Runtime = globalThis.MessageEvent
  if (Runtime !== base) {
    EventSourceMessageEvent = makeClass(Runtime)
    base = Runtime
  }
  return EventSourceMessageEvent
}

function makeClass (Runtime) {
  class MessageEvent extends Event {
    #data
    #origin
    #lastEventId

    constructor (type, data, origin, lastEventId) {
      super(type)
      this.#data = data
      this.#origin = origin
      this.#lastEventId = lastEventId
    }

    get data () {
      return this.#data
    }

    get origin () {
      return this.#origin
    }

    get lastEventId () {
      return this.#lastEventId
    }

    get source () {
      this.#data // eslint-disable-line no-unused-expressions -- the brand check: throws on a foreign receiver
      return null
    }

    get ports () {
      this.#data // eslint-disable-line no-unused-expressions -- the brand check
      return NO_PORTS
    }

    // The legacy initializer (HTML's initMessageEvent): sets what the constructor sets, except while the
    // event is being dispatched, as initEvent() does nothing then.
    initMessageEvent (type, bubbles = false, cancelable = false, data = null, origin = '', lastEventId = '') {
      this.#data // eslint-disable-line no-unused-expressions -- the brand check
      if (this.eventPhase !== Event.NONE) return
      this.initEvent(type, bubbles, cancelable)
      this.#data = data
      this.#origin = `${origin}`
      this.#lastEventId = `${lastEventId}`
    }
  }
  const prototype = MessageEvent.prototype
  Object.setPrototypeOf(prototype, Runtime.prototype)
  // As WebIDL attributes and operations: enumerable on the prototype; and the runtime's constructor.
  for (const name of ['data', 'origin', 'lastEventId', 'source', 'ports', 'initMessageEvent']) {
    Object.defineProperty(prototype, name, { enumerable: true })
  }
  Object.defineProperty(prototype, 'constructor', {
    value: Runtime, writable: true, enumerable: false, configurable: true
  })
  return MessageEvent
}

// The origin of the last response, for the next one's: the sources of a process mostly connect to the
// same origin, and URL#origin builds a string (of pieces of the href) each time it is asked, which every
// idle source would keep.
let lastOrigin = ''

// The origin of the events of a response from `url` (MessageEvent#origin), shared with the last one.
function eventOrigin (url) {
  const origin = url.origin
  if (origin !== lastOrigin) lastOrigin = unshared(origin)
  return lastOrigin
}

export { messageEventClass, eventOrigin }
