// `whatwg-eventsource/extensions` in browsers and workers (the `browser` and `worker` conditions): the
// EventSource with every extension of the EventSourceInit dictionary and `for await`
// (./web-extended-eventsource.js). The main entry's EventSource there is the standard's alone, so that a
// page that needs nothing more ships nothing more (docs/browser.md).

export { EventSource } from './web-extended-eventsource.js'
