// Every error code this package produces, as a class: the tables of this folder (arguments.js, http.js,
// parser.js, connection.js, node-transports.js, reconnect-policy.js, drop-in.js, extensions.js) loaded
// into one `codes` (./error-class.js says how a code becomes a class). lib/ itself imports the table it
// throws from, so that a bundle holds only the codes its modules can make; this is every code at once,
// for whoever needs them all (the tests, docs/errors.md's check).

import { codes, fromCallerOf } from './error-class.js'
import './arguments.js'
import './http.js'
import './parser.js'
import './connection.js'
import './node-transports.js'
import './reconnect-policy.js'
import './drop-in.js'
import './extensions.js'

export { codes, fromCallerOf }
