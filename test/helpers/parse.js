'use strict'

// EventSourceParser with every callback recorded, in order, as plain arrays a test can compare with
// t.same(): ['event', type, data, lastEventId], ['retry', ms], ['comment', text]. The reference model
// (test/helpers/reference.js) reports in the same shape.

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

module.exports = { recordingParser, parseAll, parseStreams }
