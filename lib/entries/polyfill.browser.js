// `whatwg-eventsource/polyfill` in browsers and workers (the `browser` and `worker` conditions): the
// standard EventSource (./web-eventsource.js) as globalThis.EventSource where the runtime has none (a
// service worker). An existing one is left alone.

import { EventSource } from './web-eventsource.js'
import { defineGlobalEventSource } from '../eventsource/webidl.js'

defineGlobalEventSource(EventSource)
