'use strict'

const { EventSource } = require('./lib/eventsource')
const { EventSourceErrorEvent } = require('./lib/error-event')
const { EventSourceParser } = require('./lib/parser')

module.exports = {
  EventSource,
  EventSourceErrorEvent,
  EventSourceParser
}

// The stream classes are loaded on first use: they load node:stream and Node's web streams, about 9 ms
// of a fresh process's start (benchmarks/startup) that an EventSource never needs. Each getter hands
// out the same class every time; index.mjs, which names every export, reads them as it loads.
Object.defineProperties(module.exports, {
  EventSourceStream: {
    enumerable: true,
    get () { return require('./lib/eventsource-stream').EventSourceStream }
  },
  EventSourceParserStream: {
    enumerable: true,
    get () { return require('./lib/eventsource-parser-stream').EventSourceParserStream }
  }
})
