'use strict'

// The fuzzing property: EventSourceParser, fed any chunking of any stream (sometimes two streams with
// a reset() between), reports exactly what the reference model does.

const fc = require('fast-check')
const { isDeepStrictEqual } = require('node:util')
const { stream, cuts, cutAt } = require('./arbitraries')
const { parseStreams } = require('../helpers/parse')
const { reference } = require('../helpers/reference')

const property = fc.property(stream, cuts, fc.option(fc.tuple(stream, cuts), { freq: 4 }), (first, firstCuts, second) => {
  const streams = second === null ? [first] : [first, second[0]]
  const chunked = second === null ? [cutAt(first, firstCuts)] : [cutAt(first, firstCuts), cutAt(second[0], second[1])]
  const actual = parseStreams(chunked)
  const expected = reference(streams)
  if (!isDeepStrictEqual(actual, expected)) {
    throw new Error(`parser and model differ\n  actual:   ${JSON.stringify(actual)}\n  expected: ${JSON.stringify(expected)}`)
  }
})

module.exports = { property }
