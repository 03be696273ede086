// `whatwg-eventsource/extensions` on Node, Bun and Deno: the EventSource with every extension of the
// EventSourceInit dictionary and `for await`, which here is the main entry's (./node-eventsource.js). The
// entry exists for code shared with browsers, where the main entry's EventSource is the standard's alone
// (./extensions.browser.js).

export { EventSource } from './node-eventsource.js'
