// The codes of serving (lib/server/): why an event stream was closed, and what was used after it was. Their
// messages are the same everywhere, since the server side also runs in workers.

import { declare } from './error-class.js'

const codes = declare({
  // The reason of a writer's signal, and what its `ready` rejects with, once the stream is closed.
  ERR_EVENTSOURCE_WRITER_CLOSED: [1, Error, null, (why) => `The event stream is closed: ${why}`],
  // A client that does not read: the writer or the channel disconnected it rather than keep its events.
  ERR_EVENTSOURCE_CLIENT_TOO_SLOW: [1, Error, null, (why) =>
    `The client was disconnected because it did not read its events: ${why}`],
  ERR_EVENTSOURCE_CHANNEL_CLOSED: [0, Error, null, () => 'The channel is closed'],
  // A RedisChannel's (../server/redis-channel.js) publish() while its client has no connection to Redis:
  // nothing was sent, so publishing again cannot append the event twice. Also why a subscriber that was
  // resuming from the stream was disconnected (its client reconnects, and resumes then).
  ERR_EVENTSOURCE_REDIS_UNAVAILABLE: [1, Error, null, (what) =>
    `Redis is not reachable: ${what}`],
  // The connection was lost after the XADD was sent and before Redis answered: it may have been appended.
  ERR_EVENTSOURCE_PUBLISH_UNCONFIRMED: [0, Error, null, () =>
    'The connection to Redis was lost before Redis answered: the event may or may not have been appended']
})

export { codes }
