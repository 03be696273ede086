'use strict'

// `require('whatwg-eventsource/eventsource')`: the `eventsource` package's API (versions 3 to 5) on this
// package's EventSource, for code written against that package (lib/eventsource-compat.js).

const { EventSource } = require('./lib/eventsource-compat')
const { ErrorEvent } = require('./lib/eventsource-compat-error-event')

module.exports = { ErrorEvent, EventSource }
