// The types of whatwg-eventsource/parser/stream: eventsource-parser/stream's API.
export * from 'whatwg-eventsource/parser/stream'
