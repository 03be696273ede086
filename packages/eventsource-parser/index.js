'use strict'

// `require('eventsource-parser')` where this package stands in for eventsource-parser: whatwg-eventsource's
// entry point for that package's API, the same object (packages/README.md).
module.exports = require('whatwg-eventsource/parser')
