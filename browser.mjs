// ESM entry for browsers and workers: the same objects as browser.js, as named exports.
import cjs from './browser.js'

export const { EventSource, EventSourceErrorEvent, EventSourceParser, EventSourceParserStream } = cjs
export default cjs
