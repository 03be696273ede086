// ESM entry for browsers and workers: the classes of browser.js (made from the same code), as named
// exports, each taken from its own module of web/, the ES-module copy of lib/ that build/browser-esm.mjs
// generates (a bundler tree-shakes ES modules, not CommonJS), so that a bundler keeps only what is
// imported: `import { EventSourceParser } from 'whatwg-eventsource'` ships the parser without the
// EventSource (package.json's "sideEffects" says that no module but the polyfill's does anything on
// loading). test/package/bundle-size.test.js checks it.
import { EventSource } from './web/eventsource/eventsource.mjs'
import { EventSourceErrorEvent } from './web/eventsource/error-event.mjs'
import { EventSourceParser } from './web/parser/event-source-parser.mjs'
import { EventSourceParserStream } from './web/parser/web-stream.mjs'

export { EventSource, EventSourceErrorEvent, EventSourceParser, EventSourceParserStream }
export default { EventSource, EventSourceErrorEvent, EventSourceParser, EventSourceParserStream }
