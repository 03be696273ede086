// The MessageEvents an EventSource dispatches: the runtime's MessageEvents for every check the standard and
// the web-platform tests make (instanceof, constructor, toStringTag, the Event methods, the attributes
// read-only and enumerable on the prototype). An entry point chooses how they are made (lib/entries/): ours
// on Node, Bun and Deno (createMessageEvent), the runtime's own in browsers and workers (runtimeMessageEvent).
//
// Ours skip the runtime constructor's WebIDL dictionary conversion, which on Node 22 and later (undici's
// MessageEvent) costs more than the rest of the dispatch (docs/performance.md); an EventSource's values are
// strings it made. So the event is built by a class that extends Event (cheap without options) and whose
// prototype sits on the runtime's MessageEvent.prototype: its own getters shadow the runtime's (which check
// for internal slots this event does not have). In a browser the class would be bytes of every bundle.
//
// The class is made again if a program replaces globalThis.MessageEvent (a polyfill, a test): an event is
// always an instance of the MessageEvent of the moment.

import { unshared } from '../parser/unshared-string.js'

// The class made for `base`, the MessageEvent it was made for.
let base = null
let EventSourceMessageEvent = null

const NO_PORTS = /* @__PURE__ */ Object.freeze([])

// The class of an EventSource's MessageEvents, for the global MessageEvent of the moment (exported for
// benchmarks/e2e/hot-path.bench.mjs).
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

// The MessageEvent of a message, ours; no more calls per event than the class's.
function createMessageEvent (type, data, origin, lastEventId) {
  if (globalThis.MessageEvent !== base) messageEventClass()
  return new EventSourceMessageEvent(type, data, origin, lastEventId)
}

// The MessageEvent of a message, the runtime's own. Cloudflare's workerd took only `data` from the dictionary
// before 2026-08 (cloudflare/workerd#6995): origin and lastEventId are then own properties given here.
function runtimeMessageEvent (type, data, origin, lastEventId) {
  const event = new MessageEvent(type, { data, origin, lastEventId })
  if (event.origin !== origin || event.lastEventId !== lastEventId) {
    Object.defineProperties(event, {
      origin: { value: origin, enumerable: true },
      lastEventId: { value: lastEventId, enumerable: true }
    })
  }
  return event
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

export { messageEventClass, createMessageEvent, runtimeMessageEvent, eventOrigin }
