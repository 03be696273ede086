// ESM entry: the same objects as the CommonJS entry, as named exports.
import cjs from './index.js'

export const { EventSource, EventSourceErrorEvent, EventSourceParser, EventSourceStream, EventSourceParserStream } = cjs
export default cjs
