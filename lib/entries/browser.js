// `whatwg-eventsource` in browsers and workers (package.json's `browser` and `worker` conditions):
// ./index.js less EventSourceStream, a node:stream Transform (EventSourceParserStream is its WHATWG
// counterpart), and with the standard's EventSource alone (./web-eventsource.js; the one with the
// extensions is `whatwg-eventsource/extensions`). Nothing on this path loads a Node built-in or undici:
// package.json's "imports" give lib/ the web side of each platform helper, and every connection goes
// through a fetch (lib/transport/transport-web.js). A bundler keeps only what is imported:
// `import { EventSourceParser }` ships the parser without the EventSource (package.json's "sideEffects"
// says which modules do anything on loading); test/package/bundle-size.test.cjs checks it.

import { EventSource } from './web-eventsource.js'
import { EventSourceErrorEvent } from '../eventsource/error-event.js'
import { EventSourceParser } from '../parser/event-source-parser.js'
import { EventSourceParserStream } from '../parser/web-stream.js'

export { EventSource, EventSourceErrorEvent, EventSourceParser, EventSourceParserStream }
export default { EventSource, EventSourceErrorEvent, EventSourceParser, EventSourceParserStream }
