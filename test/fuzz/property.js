'use strict'

// The parser property: EventSourceParser, fed any chunking of any stream (or of several streams with
// a reset() between them, as on reconnection), reports exactly what the reference model of
// test/helpers/reference.js does. Used by test/parser-property.test.js (100,000 cases in npm test)
// and test/fuzz/run.js (npm run fuzz: ten million).

const fc = require('fast-check')
const { isDeepStrictEqual } = require('node:util')
const { testCase, cutsOf } = require('./arbitraries')
const { split, describeBytes, describeSizes } = require('../helpers/chunks')
const { parseStreams } = require('../helpers/parse')
const { reference } = require('../helpers/reference')

/** What the cases exercised, counted over a run, so that a generator change cannot make it vacuous. */
function newTally () {
  return { event: 0, retry: 0, comment: 0, typed: 0, withId: 0, replacement: 0, infinite: 0, resets: 0, boms: 0 }
}

function count (tally, streams, records) {
  tally.resets += streams.length - 1
  tally.boms += streams.filter((s) => s[0] === 0xef && s[1] === 0xbb && s[2] === 0xbf).length
  for (const [kind, a, b, c] of records) {
    tally[kind]++
    if (kind === 'event') {
      if (a !== 'message') tally.typed++
      if (c !== '') tally.withId++
      if (b.includes('\ufffd')) tally.replacement++
    }
    if (kind === 'retry' && a === Infinity) tally.infinite++
  }
}

/**
 * The property, counting into `tally` what its cases exercised.
 * @param {ReturnType<typeof newTally>} [tally]
 */
function parserProperty (tally = newTally()) {
  return fc.property(testCase, ({ streams, options }) => {
    const bytes = streams.map(([stream]) => stream)
    const chunked = streams.map(([stream, plan], i) => split(stream, cutsOf(plan, stream.length), { rotate: i }))
    const expected = reference(bytes, options)
    count(tally, bytes, expected)
    let actual
    try {
      actual = parseStreams(chunked, options)
    } catch (err) {
      actual = `threw ${err.stack}`
    }
    if (!isDeepStrictEqual(actual, expected)) {
      throw new Error([
        'parser and model differ',
        `  actual:   ${JSON.stringify(actual)}`,
        `  expected: ${JSON.stringify(expected)}`,
        `  options:  ${JSON.stringify(options)}`,
        ...bytes.map((s, k) => `  stream ${k}: ${describeBytes(s)} in chunks of ${describeSizes(chunked[k])}`)
      ].join('\n'))
    }
  })
}

module.exports = { parserProperty, newTally }
