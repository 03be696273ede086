'use strict'

// Every error code this package produces, as a class: the tables of this folder (arguments.js, http.js,
// parser.js, connection.js, node-transports.js, reconnect-policy.js, drop-in.js, extensions.js) loaded
// into one `codes` (./error-class.js says how a code becomes a class). lib/ itself requires the table it
// throws from, so that a bundle holds only the codes its modules can make; this is every code at once,
// for whoever needs them all (the tests, docs/errors.md's check).

const { codes, fromCallerOf } = require('./error-class')
require('./arguments')
require('./http')
require('./parser')
require('./connection')
require('./node-transports')
require('./reconnect-policy')
require('./drop-in')
require('./extensions')

module.exports = { codes, fromCallerOf }
