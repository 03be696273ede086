'use strict'

const { EventSource } = require('./lib/eventsource')
const { EventSourceErrorEvent } = require('./lib/error-event')
const { EventSourceParser } = require('./lib/parser')
const { EventSourceStream } = require('./lib/eventsource-stream')
const { EventSourceParserStream } = require('./lib/eventsource-parser-stream')

module.exports = {
  EventSource,
  EventSourceErrorEvent,
  EventSourceParser,
  EventSourceStream,
  EventSourceParserStream
}
