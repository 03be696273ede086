'use strict'

// Every error code this package produces, as a class: the three tables of lib/errors-arguments.js,
// lib/errors-parser.js and lib/errors-connection.js loaded into one `codes` (lib/error-class.js says
// how a code becomes a class). lib/ itself requires the table it throws from, so that a bundle holds
// only the codes its modules can make; this is every code at once, for whoever needs them all (the
// tests, docs/errors.md's check).

const { codes, fromCallerOf } = require('./error-class')
require('./errors-arguments')
require('./errors-parser')
require('./errors-connection')

module.exports = { codes, fromCallerOf }
