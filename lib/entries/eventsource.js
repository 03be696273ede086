// `whatwg-eventsource/eventsource`: the `eventsource` package's API (versions 3 to 5) on this package's
// EventSource, for code written against that package (lib/compat/eventsource/eventsource.js).

export { EventSource } from '../compat/eventsource/eventsource.js'
export { ErrorEvent } from '../compat/eventsource/error-event.js'
