// The codes the parsers throw (the eventsource-parser drop-in's own: ./drop-in.js).

import { declare } from './error-class.js'

const codes = declare({
  // An event too large also fails an EventSource's connection, with this error.
  ERR_EVENTSOURCE_EVENT_TOO_LARGE: [1, RangeError],
  ERR_EVENTSOURCE_WRITE_AFTER_END: [0, Error]
})

export { codes }
