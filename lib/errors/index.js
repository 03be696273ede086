// Every table of this folder loaded into one `codes`, for whoever needs every code at once (the tests,
// docs/errors.md's check); lib/ imports the table it throws from (./error-class.js says why).

import { codes } from './error-class.js'
import './arguments.js'
import './http.js'
import './parser.js'
import './connection.js'
import './node-transports.js'
import './reconnect-policy.js'
import './drop-in.js'
import './extensions.js'
import './server.js'
import './server-redis.js'

export { codes }
