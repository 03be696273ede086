'use strict'

const { EventSource } = require('./lib/eventsource/eventsource')
const { EventSourceParser } = require('./lib/parser/event-source-parser')

module.exports = {
  EventSource,
  EventSourceParser
}

// The other classes are loaded on first use. The stream classes load node:stream and Node's web
// streams, about 9 ms of a fresh process's start (benchmarks/startup) that an EventSource never needs;
// the error event's file is needed with the first error (lib/eventsource/init.js loads it then), and a
// file is a few tenths of a millisecond. Each getter hands out the same class every time; index.mjs,
// which names every export, reads them as it loads.
Object.defineProperties(module.exports, {
  EventSourceErrorEvent: {
    enumerable: true,
    get () { return require('./lib/eventsource/error-event').EventSourceErrorEvent }
  },
  EventSourceStream: {
    enumerable: true,
    get () { return require('./lib/parser/node-stream').EventSourceStream }
  },
  EventSourceParserStream: {
    enumerable: true,
    get () { return require('./lib/parser/web-stream').EventSourceParserStream }
  }
})
