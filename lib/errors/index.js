// Every error code this package produces, as a class: each table of this folder loaded into one `codes`.
// lib/ imports the table it throws from (./error-class.js says why); this is for whoever needs every code
// at once (the tests, docs/errors.md's check).

import { codes } from './error-class.js'
import './arguments.js'
import './http.js'
import './parser.js'
import './connection.js'
import './node-transports.js'
import './reconnect-policy.js'
import './drop-in.js'
import './extensions.js'

export { codes }
