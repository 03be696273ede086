// The EventSource interface object as WebIDL and HTML define it, around the class: the readyState
// constants, the event handler attributes, which members are enumerable, the toStringTag.
//
// `on<type>` event handler attributes with the HTML semantics:
// https://html.spec.whatwg.org/multipage/webappapis.html#event-handler-attributes
// - the first non-null value registers one listener; later values replace the function that listener
//   calls, so the handler keeps its place among the listeners (as Node core's defineEventHandler does;
//   undici's remove-then-add moves it to the end); null removes it, and a later value adds it anew, at the end;
// - WebIDL [LegacyTreatNonObjectAsNull]: a value that is not an object is null; an object is kept, called if callable;
// - a handler returning false cancels the event, as the event handler processing algorithm says.
//
// One listener per type, shared by every receiver (`this` is the target); the handler value lives in the
// receiver's own slot: a closure per receiver and handler would cost every idle connection its bytes.

const { addEventListener, removeEventListener } = EventTarget.prototype

// brandCheck(receiver) throws on a foreign receiver; `slot` (get, set) is where each receiver keeps its
// handler value (undefined when none is set).
function defineEventHandler (prototype, type, brandCheck, slot) {
  function listener (event) {
    const callback = slot.get(this)
    if (typeof callback !== 'function') return
    // `this` is the target (event.currentTarget would do too, but Node 20 clears it between listeners).
    if (callback.call(this, event) === false) event.preventDefault()
  }
  const name = `on${type}`
  // An object literal's accessors with a computed key are named as WebIDL names them: `get onopen`,
  // `set onopen`. The handler's listener is added and removed with EventTarget's own methods, as a
  // browser does, whatever an object or subclass defines as addEventListener.
  const accessors = {
    get [name] () {
      brandCheck(this)
      return slot.get(this) ?? null
    },
    set [name] (value) {
      brandCheck(this)
      if (value === null || (typeof value !== 'object' && typeof value !== 'function')) value = null
      const previous = slot.get(this)
      if (value === null) {
        if (previous !== undefined) {
          slot.set(this, undefined)
          removeEventListener.call(this, type, listener)
        }
        return
      }
      slot.set(this, value)
      if (previous === undefined) addEventListener.call(this, type, listener)
    }
  }
  // Enumerable and configurable, as an object literal's accessors are and WebIDL attributes must be.
  Object.defineProperty(prototype, name, Object.getOwnPropertyDescriptor(accessors, name))
}

// Defines the interface's members that the class syntax cannot: WebIDL constants (read-only, on the
// constructor and the prototype), the event handlers (a slot per type), enumerable attributes and
// operations, and the toStringTag.
function defineInterface (EventSource, brandCheck, handlerSlots, constants) {
  for (const [name, value] of Object.entries(constants)) {
    const descriptor = { value, enumerable: true, writable: false, configurable: false }
    Object.defineProperty(EventSource, name, descriptor)
    Object.defineProperty(EventSource.prototype, name, descriptor)
  }
  for (const slot of handlerSlots) defineEventHandler(EventSource.prototype, slot.type, brandCheck, slot)
  Object.defineProperties(EventSource.prototype, {
    [Symbol.toStringTag]: { value: 'EventSource', configurable: true },
    url: { enumerable: true },
    withCredentials: { enumerable: true },
    readyState: { enumerable: true },
    lastEventId: { enumerable: true },
    reconnectionTime: { enumerable: true },
    close: { enumerable: true },
    reset: { enumerable: true }
  })
  Object.defineProperty(EventSource, 'fromReadableStream', { enumerable: true })
}

// The constructor's steps 3-5: the URL parsed against the document's base URL, when there is a document.
function parseUrl (urlString) {
  const base = globalThis.location?.href
  try {
    return base === undefined ? new URL(urlString) : new URL(urlString, `${base}`)
  } catch (cause) {
    // The URL parser's own words end the message, as in Node's built-in EventSource, whose whole
    // message they are ("TypeError: Invalid URL"): code that matches on them keeps working.
    throw new DOMException(`Failed to construct 'EventSource': The URL '${urlString}' is invalid: ${cause}`,
      { name: 'SyntaxError', cause })
  }
}

// Defines globalThis.EventSource when the runtime has none (the polyfill entry points), with the shape of a
// Web IDL interface object on the global: writable and configurable, not enumerable.
function defineGlobalEventSource (EventSource) {
  if (typeof globalThis.EventSource !== 'undefined') return
  Object.defineProperty(globalThis, 'EventSource', {
    value: EventSource,
    writable: true,
    configurable: true,
    enumerable: false
  })
}

export { defineInterface, parseUrl, defineGlobalEventSource }
