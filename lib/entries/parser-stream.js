// `whatwg-eventsource/parser/stream`: a drop-in for `eventsource-parser/stream` (version 4):
// EventSourceParserStream, strings in, `{ id, event, data }` out.

export { EventSourceParserStream } from '../compat/eventsource-parser/stream.js'
export { ParseError } from '../compat/eventsource-parser/parse-error.js'
