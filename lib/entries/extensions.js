// `whatwg-eventsource/extensions` on Node, Bun and Deno: the main entry's EventSource, which here has every
// extension (./node-eventsource.js). The entry exists for code shared with browsers, where the main entry's
// EventSource is the standard's alone (./extensions.browser.js).

export { EventSource } from './node-eventsource.js'
