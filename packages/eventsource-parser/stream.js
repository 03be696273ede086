'use strict'

// `require('eventsource-parser/stream')` where this package stands in for eventsource-parser (also
// found by resolvers that read no `exports`, as the original's stream.js is): whatwg-eventsource's
// entry point, the same object.
module.exports = require('whatwg-eventsource/parser/stream')
