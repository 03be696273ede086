// The codes of whatwg-eventsource/server/redis (../server/redis-channel.js): a table of their own, so that a
// bundle of whatwg-eventsource/server (a worker's) holds none of them.

import { declare } from './error-class.js'

const codes = declare({
  // A RedisChannel's publish() while its client has no connection to Redis: nothing was sent, so publishing
  // again cannot append the event twice. Also why a subscriber that was resuming from the stream was
  // disconnected (its client reconnects, and resumes then).
  ERR_EVENTSOURCE_REDIS_UNAVAILABLE: [1, Error, null, (what) =>
    `Redis is not reachable: ${what}`],
  // The connection was lost after the XADD was sent and before Redis answered: it may have been appended.
  ERR_EVENTSOURCE_PUBLISH_UNCONFIRMED: [0, Error, null, () =>
    'The connection to Redis was lost before Redis answered: the event may or may not have been appended']
})

export { codes }
