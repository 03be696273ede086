// `import { EventSource } from 'eventsource'` where this package stands in for eventsource: the same
// objects as index.js.
export * from 'whatwg-eventsource/eventsource'
