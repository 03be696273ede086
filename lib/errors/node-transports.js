// The connection codes only Node's transports make (an undici dispatcher's, node:http2's, the redirects
// they follow themselves): apart from ./connection.js, so that a browser bundle holds none of it.

import { declare, kConnection } from './error-class.js'

const codes = declare({
  ERR_EVENTSOURCE_DISPATCHER_REDIRECT: [1, Error, kConnection],
  ERR_EVENTSOURCE_TOO_MANY_CODINGS: [2, Error, kConnection],
  ERR_EVENTSOURCE_TOO_MANY_REDIRECTS: [2, Error, kConnection],
  // init.http2: a session whose PING went unanswered is destroyed with this error, which then reaches each
  // source on it as the cause of its ERR_EVENTSOURCE_NETWORK.
  ERR_EVENTSOURCE_HTTP2_PING_TIMEOUT: [2, Error]
})

export { codes }
