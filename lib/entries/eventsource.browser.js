// `whatwg-eventsource/eventsource` in browsers and workers (the `browser` and `worker` conditions): as
// ./eventsource.js, on the browsers' EventSource with the extensions (./web-extended-eventsource.js).

import { EventSource as CoreEventSource } from './web-extended-eventsource.js'
import { defineEventSourcePackage } from '../compat/eventsource/eventsource.js'

const EventSource = defineEventSourcePackage(CoreEventSource)

export { EventSource }
export { ErrorEvent } from '../compat/eventsource/error-event.js'
