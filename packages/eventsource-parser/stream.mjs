// `import { EventSourceParserStream } from 'eventsource-parser/stream'` where this package stands in for
// eventsource-parser: the same objects as stream.js.
export * from 'whatwg-eventsource/parser/stream'
