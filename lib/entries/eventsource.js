// `whatwg-eventsource/eventsource` on Node, Bun and Deno: the `eventsource` package's API (versions 3 to 5)
// on this package's EventSource, for code written against that package (lib/compat/eventsource/eventsource.js).

import { EventSource as CoreEventSource } from './node-eventsource.js'
import { defineEventSourcePackage } from '../compat/eventsource/eventsource.js'

const EventSource = defineEventSourcePackage(CoreEventSource)

export { EventSource }
export { ErrorEvent } from '../compat/eventsource/error-event.js'
