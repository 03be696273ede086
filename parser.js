'use strict'

// `require('whatwg-eventsource/parser')`: a drop-in for eventsource-parser (version 4), on this
// package's parser. Change `eventsource-parser` to `whatwg-eventsource/parser` in an import and the
// code works as before; docs/migrating-from-eventsource-parser.md says what differs.

const { createParser } = require('./lib/parser-drop-in')
const { ParseError } = require('./lib/parse-error')

module.exports = { createParser, ParseError }
