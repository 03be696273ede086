// `whatwg-eventsource/polyfill`: defines globalThis.EventSource, and nothing else, when the runtime has
// none (Node without --experimental-eventsource). An existing one is left alone.

import { EventSource } from './node-eventsource.js'
import { defineGlobalEventSource } from '../eventsource/webidl.js'

defineGlobalEventSource(EventSource)
