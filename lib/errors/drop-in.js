// The codes of the drop-ins' own conditions, with the message of the package each stands in for (code written
// for it may match on it), on every platform. A table of its own: a bundle of the EventSource holds none of it.

import { declare } from './error-class.js'

const codes = declare({
  // The eventsource-parser drop-in's feed() after an overflow of maxBufferSize.
  ERR_EVENTSOURCE_PARSER_TERMINATED: [0, Error, null,
    'Cannot feed parser: it was terminated after exceeding the configured max buffer size. ' +
    'Call `reset()` to resume parsing.']
})

export { codes }
