'use strict'

// EventSourceParser with every callback recorded, in order, as plain arrays a test can compare with
// t.same(): ['event', type, data, lastEventId], ['retry', ms], ['comment', text]. The reference model
// (test/helpers/reference.cjs) reports in the same shape. feedStrings() does the same for a parser of
// eventsource-parser's API, fed strings.

const { EventSourceParser } = require('../..')

/**
 * A parser whose callbacks record into `records`; `hooks.onEvent(parser)` and the like run after
 * recording (to call end() or reset() from inside a callback).
 * @param {object} [options] more parser options (lastEventId, maxEventSize)
 * @param {{ onEvent?: Function, onRetry?: Function, onComment?: Function }} [hooks]
 */
function recordingParser (options = {}, hooks = {}) {
  const records = []
  const parser = new EventSourceParser({
    ...options,
    onEvent (type, data, lastEventId) { records.push(['event', type, data, lastEventId]); hooks.onEvent?.(parser) },
    onRetry (ms) { records.push(['retry', ms]); hooks.onRetry?.(parser) },
    onComment (text) { records.push(['comment', text]); hooks.onComment?.(parser) }
  })
  return { parser, records }
}

/**
 * Parses `streams` (arrays of chunks) as one connection's streams, reset() between them as on
 * reconnection and end() at the end; returns the records.
 * @param {Uint8Array[][]} streams
 * @param {object} [options]
 */
function parseStreams (streams, options = {}) {
  const { parser, records } = recordingParser(options)
  streams.forEach((chunks, i) => {
    if (i > 0) parser.reset()
    for (const chunk of chunks) parser.write(chunk)
  })
  parser.end()
  return records
}

/** Parses `chunks` as one stream (end() at the end); returns the records. */
function parseAll (chunks, options = {}) {
  return parseStreams([chunks], options)
}

const CALLBACKS = ['onId', 'onRetry', 'onComment', 'onError']

/**
 * Feeds `streams` (arrays of string chunks) to a parser of eventsource-parser's API, made by
 * `createParser` (eventsource-parser's own, or whatwg-eventsource/parser's), with reset() between
 * the streams, and records in order everything the caller can see: ['feed'] before each feed,
 * ['event', id, event, data, its keys], ['id', id], ['retry', ms], ['comment', text],
 * ['error', name, type, message, field, value, line, its keys, is an Error], ['threw', message] for a
 * feed that throws, ['reset', consume]. Two implementations that record the same did the same.
 * @param {Function} createParser
 * @param {string[][]} streams
 * @param {object} [options]
 * @param {string[]} [options.callbacks] which of onId, onRetry, onComment, onError to pass (all by
 *   default; onEvent always)
 * @param {number} [options.maxBufferSize]
 * @param {boolean} [options.consume] reset({ consume: true }) between the streams
 * @param {boolean} [options.end] reset({ consume: true }) after the last stream, as eventsource-parser's
 *   README suggests at the end of a stream
 * @param {number} [options.resetAt] call reset() from inside the n-th callback other than onId (1-based)
 */
function feedStrings (createParser, streams, options = {}) {
  const { callbacks = CALLBACKS, maxBufferSize, consume = false, end = false, resetAt } = options
  const records = []
  let parser = null
  let calls = 0
  const after = () => {
    if (++calls === resetAt) {
      records.push(['reset', false])
      parser.reset()
    }
  }
  const all = {
    onEvent (e) { records.push(['event', e.id, e.event, e.data, Object.keys(e).join()]); after() },
    // Not from onId: there eventsource-parser's two dispatch paths differ (see lib/compat/eventsource-parser/create-parser.js).
    onId (id) { records.push(['id', id]) },
    onRetry (ms) { records.push(['retry', ms]); after() },
    onComment (text) { records.push(['comment', text]); after() },
    onError (e) {
      records.push(['error', e.name, e.type, e.message, e.field, e.value, e.line, Object.keys(e).join(), e instanceof Error])
      after()
    }
  }
  const config = { onEvent: all.onEvent }
  for (const name of callbacks) config[name] = all[name]
  if (maxBufferSize !== undefined) config.maxBufferSize = maxBufferSize
  parser = createParser(config)
  streams.forEach((chunks, i) => {
    if (i > 0) {
      records.push(['reset', consume])
      parser.reset({ consume })
    }
    for (const chunk of chunks) {
      records.push(['feed'])
      try {
        parser.feed(chunk)
      } catch (err) {
        records.push(['threw', err.message])
      }
    }
  })
  if (end) {
    records.push(['reset', true])
    parser.reset({ consume: true })
  }
  return records
}

module.exports = { recordingParser, parseAll, parseStreams, feedStrings }
