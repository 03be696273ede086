// `whatwg-eventsource` on Node, Bun and Deno (package.json's exports map, every condition but `browser`
// and `worker`): the EventSource, its error event, the byte parser and the parser's two streams.

import { EventSource } from './node-eventsource.js'
import { EventSourceErrorEvent } from '../eventsource/error-event.js'
import { EventSourceParser } from '../parser/event-source-parser.js'
import { EventSourceStream } from '../parser/node-stream.js'
import { EventSourceParserStream } from '../parser/web-stream.js'

export { EventSource, EventSourceErrorEvent, EventSourceParser, EventSourceStream, EventSourceParserStream }
// The default export the package has always had for `import pkg from 'whatwg-eventsource'`.
export default { EventSource, EventSourceErrorEvent, EventSourceParser, EventSourceStream, EventSourceParserStream }
