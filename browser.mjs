// ESM entry for browsers and workers: the same objects as browser.js, as named exports, each taken from
// its own module so that a bundler keeps only what is imported: `import { EventSourceParser } from
// 'whatwg-eventsource'` ships the parser without the EventSource (package.json's "sideEffects" says
// that no module but the polyfill's does anything on loading). test/bundle-size.test.js checks it.
import { EventSource } from './lib/eventsource/eventsource.js'
import { EventSourceErrorEvent } from './lib/eventsource/error-event.js'
import { EventSourceParser } from './lib/parser/parser.js'
import { EventSourceParserStream } from './lib/parser/web-stream.js'

export { EventSource, EventSourceErrorEvent, EventSourceParser, EventSourceParserStream }
export default { EventSource, EventSourceErrorEvent, EventSourceParser, EventSourceParserStream }
