'use strict'

const { EventSourceParser } = require('./lib/parser')
const { EventSourceStream } = require('./lib/eventsource-stream')
const { EventSourceParserStream } = require('./lib/eventsource-parser-stream')

module.exports = {
  EventSourceParser,
  EventSourceStream,
  EventSourceParserStream
}
