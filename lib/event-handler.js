'use strict'

// `on<type>` event handler attributes with the HTML semantics:
// https://html.spec.whatwg.org/multipage/webappapis.html#event-handler-attributes
// - the first non-null value registers one listener; later values replace the function that
//   listener calls, so the handler keeps its place among the listeners (Node core's
//   defineEventHandler does the same; undici's remove-then-add moves it to the end);
// - null removes that listener; setting a value again later registers it anew, at the end;
// - WebIDL [LegacyTreatNonObjectAsNull]: a value that is not an object is null; an object is kept
//   as it is and called only if it is callable;
// - a handler returning false cancels the event, as the event handler processing algorithm says.

/**
 * @param {object} prototype
 * @param {string} type
 * @param {(receiver: unknown) => void} brandCheck throws on a foreign receiver
 */
function defineEventHandler (prototype, type, brandCheck) {
  // receiver -> { value, listener }, only for receivers with a handler set.
  const handlers = new WeakMap()
  Object.defineProperty(prototype, `on${type}`, {
    enumerable: true,
    configurable: true,
    get () {
      brandCheck(this)
      return handlers.get(this)?.value ?? null
    },
    set (value) {
      brandCheck(this)
      if (value === null || (typeof value !== 'object' && typeof value !== 'function')) value = null
      let state = handlers.get(this)
      if (value === null) {
        if (state !== undefined) {
          handlers.delete(this)
          this.removeEventListener(type, state.listener)
        }
        return
      }
      if (state !== undefined) {
        state.value = value
        return
      }
      state = {
        value,
        listener (event) {
          const callback = state.value
          if (typeof callback !== 'function') return
          // `this` is the target: EventTarget calls listeners with it (event.currentTarget would do
          // too, but Node 20 clears it between listeners).
          if (callback.call(this, event) === false) event.preventDefault()
        }
      }
      handlers.set(this, state)
      this.addEventListener(type, state.listener)
    }
  })
}

module.exports = { defineEventHandler }
