// createParser(): a drop-in for eventsource-parser's (version 4.1), parsing the strings it is fed as
// strings (./string-parser.js, in every runtime). docs/migrating-from-eventsource-parser.md lists where
// eventsource-parser's results differ from the standard's, all copied on purpose, and where the drop-in
// departs from eventsource-parser. Copied too, and not in that list:
// - a line that cannot become a known field (or a comment, when there is no onComment) is dropped while
//   it is still incomplete, as soon as its first six characters show it, and is not buffered;
// - a CR that ends a feed ends its line there and then; an LF that starts the next feed is its CRLF;
// - `maxBufferSize` is checked where eventsource-parser checks it: after each line, except a first `data:`
//   line that a blank line follows at once in a feed without CR, and at the end of each feed;
// - reset() from a callback forgets the event being read but goes on with the rest of the chunk.
// Not copied: reset({ consume: true }) from a callback of reset({ consume: true }) finds nothing left to
// parse (eventsource-parser parses the same incomplete line again).

import { fromCallerOf } from '../../errors/error-class.js'
import { codes } from '../../errors/arguments.js'
import { validateObject, validateNumber, validateOptionalFunction } from '../../validators/values.js'
import { StringParser } from './string-parser.js'
const { ERR_INVALID_ARG_TYPE } = codes

// The config's members, checked: eventsource-parser calls each callback that is there (`onEvent?.()`), so
// null is as good as absent. The config itself is checked by the caller: the stream builds its own.
function validConfig (config) {
  const valid = {
    onEvent: validCallback(config.onEvent, 'config.onEvent'),
    onId: validCallback(config.onId, 'config.onId'),
    onRetry: validCallback(config.onRetry, 'config.onRetry'),
    onComment: validCallback(config.onComment, 'config.onComment'),
    onError: validCallback(config.onError, 'config.onError'),
    maxBufferSize: config.maxBufferSize
  }
  if (valid.maxBufferSize !== undefined) validateNumber(valid.maxBufferSize, 'config.maxBufferSize', 0, Infinity)
  return valid
}

function validCallback (value, name) {
  value ??= undefined
  validateOptionalFunction(value, name)
  return value
}

// A bad config throws with a stack that starts at the user's call. (types/parser.d.ts types it.)
function createParser (config) {
  let parser
  try {
    if (typeof config === 'function') {
      throw new ERR_INVALID_ARG_TYPE('config', 'an object (did you mean createParser({ onEvent: fn })?)', config)
    }
    validateObject(config, 'config')
    parser = new StringParser(validConfig(config))
  } catch (err) {
    throw fromCallerOf(err, createParser)
  }
  // Plain functions, like eventsource-parser's closures: `const { feed } = createParser(...)` works.
  return {
    feed: (chunk) => parser.feed(chunk),
    reset: (options) => parser.reset(options)
  }
}

export { createParser, validConfig }
