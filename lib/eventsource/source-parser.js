// The parser of an EventSource (lib/eventsource/eventsource.js): an EventStreamParser that knows its
// source, so that every source shares one pair of callbacks, which the parser calls as its own methods
// (`this` is the parser) and which find their source through it. A closure of its own for each would
// cost every idle connection two functions and their context.

import { EventStreamParser } from '../parser/parser.js'

class SourceParser extends EventStreamParser {
  // maxEventSize: init.maxEventSize, or the one the transport is configured with (an undici dispatcher's,
  // as undici's EventSource reads it), if any.
  constructor (source, init, callbacks, maxEventSize) {
    super({
      onEvent: callbacks.onEvent,
      onRetry: callbacks.onRetry,
      maxEventSize,
      lastEventId: init.lastEventId,
      incompleteEvent: init.incompleteEvent
    })
    this.source = source
  }
}

export { SourceParser }
