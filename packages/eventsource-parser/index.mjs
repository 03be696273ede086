// `import { createParser } from 'eventsource-parser'` where this package stands in for
// eventsource-parser: the same objects as index.js.
export * from 'whatwg-eventsource/parser'
