// `whatwg-eventsource` in browsers and workers (package.json's `browser` and `worker` conditions):
// ./index.js less EventSourceStream, a node:stream Transform, and with the standard's EventSource alone
// (./web-eventsource.js; the one with the extensions is `whatwg-eventsource/extensions`). Nothing on this
// path loads a Node built-in or undici, and a bundler keeps only what is imported
// (test/package/bundle.test.cjs and bundle-size.test.cjs check both).

import { EventSource } from './web-eventsource.js'
import { EventSourceErrorEvent } from '../eventsource/error-event.js'
import { EventSourceParser } from '../parser/event-source-parser.js'
import { EventSourceParserStream } from '../parser/web-stream.js'

export { EventSource, EventSourceErrorEvent, EventSourceParser, EventSourceParserStream }
export default { EventSource, EventSourceErrorEvent, EventSourceParser, EventSourceParserStream }
