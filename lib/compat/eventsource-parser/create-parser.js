// createParser(): a drop-in for eventsource-parser's (version 4.1), parsing the strings it is fed as
// strings. eventsource-parser's results wherever they differ from the standard's interpretation, each
// copied on purpose:
// - an event's `event` is undefined when the block named no type (or an empty one), never "message";
//   its `id` is the ID this block set, undefined when it set none: IDs do not carry over;
// - `onId(id)` at the end of every block that set an ID, before `onEvent`, with or without data;
// - `onError(ParseError)` for unknown fields and for `retry` values that are not all digits (empty
//   ones included), which the standard ignores silently;
// - a line that cannot become a known field (or a comment, when there is no onComment) is dropped while
//   it is still incomplete, as soon as its first six characters show it, without an onError, and is
//   not buffered;
// - one BOM is dropped from the start of a stream, decoded (U+FEFF) or as its three bytes read as
//   Latin-1 ("\xEF\xBB\xBF", which may come one character per feed);
// - a CR that ends a feed ends its line there and then; an LF that starts the next feed is its CRLF;
// - `maxBufferSize`: characters (UTF-16 units) of the incomplete line plus the event's data buffer,
//   checked where eventsource-parser checks them: after each line, except a first `data:` line that a
//   blank line follows at once in a feed without CR, and at the end of each feed; past it, onError and
//   a parser that throws until reset();
// - `reset({ consume: true })` parses the incomplete line as a complete one first (no limit check);
// - reset() from a callback forgets the event being read but goes on with the rest of the chunk;
// - strings pass through as they are, lone surrogates included (the parser never encodes them).
//
// Where it is not eventsource-parser, on purpose:
// - arguments are checked up front, with Node's codes, and feed() after an overflow throws
//   eventsource-parser's message with a code (ERR_EVENTSOURCE_PARSER_TERMINATED);
// - reset() from onId drops the event on every path (eventsource-parser's shortcut for a one-line
//   event still dispatches it, without its ID and type);
// - feed() from a callback is parsed there and then, as in eventsource-parser; if it overflows the
//   limit, the feed that made the callback stops too (eventsource-parser's LF-only path goes on), and
//   the event being read is whatever the callback's feed left (eventsource-parser may clear half of
//   it);
// - reset({ consume: true }) from a callback of reset({ consume: true }) finds nothing left to parse
//   (eventsource-parser parses the same incomplete line again).
//
// The parsing itself: ./string-parser.js, in every runtime.

import { fromCallerOf } from '../../errors/error-class.js'
import { codes } from '../../errors/arguments.js'
import { validateObject, validateNumber, validateOptionalFunction } from '../../validators/values.js'
import { StringParser } from './string-parser.js'
const { ERR_INVALID_ARG_TYPE } = codes

/**
 * The config's members, checked: eventsource-parser calls each callback that is there (`onEvent?.()`), so
 * null is as good as absent. The config itself is checked by the caller: the stream builds its own.
 * @param {object} config
 */
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

// A callback of the config, checked: null is as good as absent.
function validCallback (value, name) {
  value ??= undefined
  validateOptionalFunction(value, name)
  return value
}

/**
 * eventsource-parser's createParser(). A bad config throws with a stack that starts at the user's call.
 * @param {object} config onEvent, onId, onRetry, onComment, onError, maxBufferSize
 * @returns {{ feed(chunk: string): void, reset(options?: { consume?: boolean }): void }}
 */
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
