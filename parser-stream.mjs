// `import { EventSourceParserStream } from 'whatwg-eventsource/parser/stream'`: the same objects as the
// CommonJS entry.
import cjs from './parser-stream.js'

export const { EventSourceParserStream, ParseError } = cjs
