'use strict'

// `require('eventsource')` where this package stands in for eventsource: whatwg-eventsource's entry
// point for that package's API, the same object (packages/README.md).
module.exports = require('whatwg-eventsource/eventsource')
