// The connection codes of the reconnection policy (an extension: lib/eventsource/reconnect-policy.js), apart
// from ./connection.js so that a browser bundle of the standard EventSource holds none of it.

import { declare, kConnection } from './error-class.js'

const codes = declare({
  ERR_EVENTSOURCE_RECONNECT_POLICY: [1, Error, kConnection],
  ERR_EVENTSOURCE_RETRIES_EXHAUSTED: [2, Error, kConnection]
})

export { codes }
