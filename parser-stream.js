'use strict'

// `require('whatwg-eventsource/parser/stream')`: a drop-in for `eventsource-parser/stream` (version 4):
// EventSourceParserStream, strings in, `{ id, event, data }` out.

const { EventSourceParserStream } = require('./lib/compat/eventsource-parser/stream')
const { ParseError } = require('./lib/compat/eventsource-parser/parse-error')

module.exports = { EventSourceParserStream, ParseError }
