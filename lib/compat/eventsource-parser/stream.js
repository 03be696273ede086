// EventSourceParserStream: a drop-in for eventsource-parser's (version 4), a TransformStream of strings
// in (`response.body.pipeThrough(new TextDecoderStream())`) and eventsource-parser's messages out,
// `{ id, event, data }`, on the drop-in's parser (./string-parser.js, its options checked as
// createParser() checks them). As in eventsource-parser:
// - `onError`: a function is called with each ParseError and parsing goes on; 'terminate' errors the
//   stream with the first one; anything else ignores them;
// - an overflow of `maxBufferSize` always errors the stream (the parser cannot go on without a reset(),
//   which the stream has no way to call);
// - the end of the input ends the output: an event without its blank line is not dispatched.
// Unlike this package's EventSourceParserStream (lib/parser/web-stream.js), whose events are
// EventSource's `{ type, data, lastEventId }`.

import { fromCallerOf } from '../../errors/error-class.js'
import { validConfig } from './create-parser.js'
import { StringParser } from './string-parser.js'

class EventSourceParserStream extends TransformStream {
  constructor ({ onError, onRetry, onComment, onId, maxBufferSize } = {}) {
    let parser
    // start() runs within super(): a bad option throws from it, with a stack that starts at the user's call.
    const entry = new.target
    try {
      super({
        start (controller) {
          // The parser itself, not createParser()'s functions around it: the stream is its only caller.
          parser = new StringParser(validConfig({
            onEvent (event) {
              controller.enqueue(event)
            },
            onError (error) {
              if (typeof onError === 'function') onError(error)
              if (onError === 'terminate' || error.type === 'max-buffer-size-exceeded') controller.error(error)
            },
            onRetry,
            onComment,
            onId,
            maxBufferSize
          }))
        },
        transform (chunk) {
          parser.feed(chunk)
        }
      })
    } catch (err) {
      throw fromCallerOf(err, entry)
    }
  }
}

export { EventSourceParserStream }
