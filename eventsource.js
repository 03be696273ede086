'use strict'

// `require('whatwg-eventsource/eventsource')`: the `eventsource` package's API (versions 3 to 5) on this
// package's EventSource, for code written against that package (lib/compat/eventsource/eventsource.js).

const { EventSource } = require('./lib/compat/eventsource/eventsource')
const { ErrorEvent } = require('./lib/compat/eventsource/error-event')

module.exports = { ErrorEvent, EventSource }
