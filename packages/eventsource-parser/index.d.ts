// The types of whatwg-eventsource/parser: eventsource-parser's API.
export * from 'whatwg-eventsource/parser'
