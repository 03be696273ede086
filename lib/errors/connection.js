// The codes of connections (new ERR_X(...messageArgs, details, cause): ./error-class.js) in any build;
// those only Node's transports make are ./node-transports.js's, and those of the reconnection policy (an
// extension) ./reconnect-policy.js's: a browser bundle of the EventSource holds neither table.

import { declare, kConnection, kInternal } from './error-class.js'

const codes = declare({
  ERR_EVENTSOURCE_BAD_CONTENT_TYPE: [1, Error, kConnection],
  ERR_EVENTSOURCE_BAD_STATUS: [2, Error, kConnection],
  ERR_EVENTSOURCE_CONNECT_TIMEOUT: [2, Error, kConnection],
  ERR_EVENTSOURCE_DECODING: [1, Error, kConnection],
  ERR_EVENTSOURCE_IDLE_TIMEOUT: [2, Error, kConnection],
  ERR_EVENTSOURCE_INSECURE_REDIRECT: [1, Error, kConnection],
  ERR_EVENTSOURCE_INVALID_REDIRECT: [1, Error, kConnection],
  ERR_EVENTSOURCE_INVALID_BODY: [0, Error, kConnection],
  ERR_EVENTSOURCE_NETWORK: [2, Error, kConnection],
  ERR_EVENTSOURCE_REQUEST_INIT: [2, Error, kConnection],
  ERR_EVENTSOURCE_STREAM_ENDED: [0, Error, kConnection],
  ERR_EVENTSOURCE_UNSUPPORTED_SCHEME: [1, Error, kConnection],
  // Internal: the reason handed to undici when we abort a request ourselves; its outcome is discarded.
  ERR_EVENTSOURCE_ABORTED: [0, Error, kInternal]
})

export { codes }
