// `whatwg-eventsource/polyfill`: defines globalThis.EventSource, and nothing else, when the runtime has
// none (Node without --experimental-eventsource). An existing one is left alone.

import { EventSource } from '../eventsource/eventsource.js'

if (typeof globalThis.EventSource === 'undefined') {
  Object.defineProperty(globalThis, 'EventSource', {
    value: EventSource,
    // The shape of a Web IDL interface object on the global: writable and configurable, not enumerable.
    writable: true,
    configurable: true,
    enumerable: false
  })
}
