// The codes of serving (lib/server/): why an event stream was closed, and what was used after it was. Their
// messages are the same everywhere, since the server side also runs in workers.

import { declare } from './error-class.js'

const codes = declare({
  // The reason of a writer's signal, and what its `ready` rejects with, once the stream is closed.
  ERR_EVENTSOURCE_WRITER_CLOSED: [1, Error, null, (why) => `The event stream is closed: ${why}`],
  // A client that does not read: the writer or the channel disconnected it rather than keep its events.
  ERR_EVENTSOURCE_CLIENT_TOO_SLOW: [1, Error, null, (why) =>
    `The client was disconnected because it did not read its events: ${why}`],
  ERR_EVENTSOURCE_CHANNEL_CLOSED: [0, Error, null, () => 'The channel is closed']
})

export { codes }
