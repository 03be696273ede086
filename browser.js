'use strict'

// The entry for browsers and workers (package.json's `browser` and `worker` conditions): index.js less
// EventSourceStream, a node:stream Transform (EventSourceParserStream is its WHATWG counterpart). Nothing
// on this path loads a Node built-in or undici: package.json's "imports" give lib/ the web side of each
// platform helper, and every connection goes through a fetch (lib/transport/transport-web.js).

const { EventSource } = require('./lib/eventsource/eventsource')
const { EventSourceErrorEvent } = require('./lib/eventsource/error-event')
const { EventSourceParser } = require('./lib/parser/event-source-parser')
const { EventSourceParserStream } = require('./lib/parser/web-stream')

module.exports = {
  EventSource,
  EventSourceErrorEvent,
  EventSourceParser,
  EventSourceParserStream
}
