'use strict'

// `require('whatwg-eventsource/parser')`: a drop-in for eventsource-parser (version 4), a parser of
// strings. Change `eventsource-parser` to `whatwg-eventsource/parser` in an import and the
// code works as before; docs/migrating-from-eventsource-parser.md says what differs.

const { createParser } = require('./lib/compat/eventsource-parser/create-parser')
const { ParseError } = require('./lib/compat/eventsource-parser/parse-error')

module.exports = { createParser, ParseError }
