// The codes of the drop-ins' own conditions, with the message of the package each stands in for: code
// written for that package may match on it, so it is the same on every platform (lib/errors/error-class.js).
// A table of its own so that a bundle of the EventSource, which never makes them, holds none of it.

import { declare } from './error-class.js'

const codes = declare({
  // The eventsource-parser drop-in's feed() after an overflow of maxBufferSize.
  ERR_EVENTSOURCE_PARSER_TERMINATED: [0, Error, null,
    'Cannot feed parser: it was terminated after exceeding the configured max buffer size. ' +
    'Call `reset()` to resume parsing.']
})

export { codes }
