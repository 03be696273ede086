'use strict'

// Every error code this package produces, as a class: the tables of lib/errors/arguments.js,
// lib/errors/http.js, lib/errors/parser.js, lib/errors/connection.js, lib/errors/drop-in.js and lib/errors/extensions.js loaded into one `codes`
// (lib/errors/error-class.js says how a code becomes a class). lib/ itself requires the table it throws from, so that a bundle holds
// only the codes its modules can make; this is every code at once, for whoever needs them all (the
// tests, docs/errors.md's check).

const { codes, fromCallerOf } = require('./error-class')
require('./arguments')
require('./http')
require('./parser')
require('./connection')
require('./drop-in')
require('./extensions')

module.exports = { codes, fromCallerOf }
