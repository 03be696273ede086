'use strict'

// The parser property: EventSourceParser, fed any chunking of any stream (or of several streams with
// a reset() between them, as on reconnection), reports exactly what the reference model of
// test/helpers/reference.cjs does. Used by test/parser/parser-property.test.cjs (100,000 cases in npm test)
// and test/fuzz/run.cjs (npm run fuzz: ten million).
//
// The drop-in property: whatwg-eventsource/parser's createParser, fed any chunking of any string
// stream, with any of eventsource-parser's options, does exactly what eventsource-parser's does, feed
// by feed (test/compat/eventsource-parser/parser-drop-in-compare.test.cjs, and npm run fuzz -- --drop-in).

const fc = require('fast-check')
const { isDeepStrictEqual } = require('node:util')
const { testCase, dropInCase, cutsOf } = require('./arbitraries.cjs')
const { split, splitString, describeBytes, describeSizes } = require('../helpers/chunks.cjs')
const { parseStreams, feedStrings } = require('../helpers/parse.cjs')
const { createParser } = require('../../lib/entries/parser.js')
const { reference } = require('../helpers/reference.cjs')

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

/** What the drop-in cases exercised (see newTally). */
function newDropInTally () {
  return {
    event: 0,
    typed: 0,
    withId: 0,
    id: 0,
    retry: 0,
    comment: 0,
    'unknown-field': 0,
    'invalid-retry': 0,
    'max-buffer-size-exceeded': 0,
    threw: 0,
    reset: 0,
    'split pair': 0,
    'split CRLF': 0
  }
}

function countDropIn (tally, chunked, records) {
  for (const [kind, a, b] of records) {
    if (kind === 'error') tally[b]++
    else if (kind in tally) tally[kind]++
    if (kind === 'event') {
      if (a !== undefined) tally.withId++
      if (b !== undefined) tally.typed++
    }
  }
  for (const chunks of chunked) {
    for (let i = 0; i + 1 < chunks.length; i++) {
      const last = chunks[i].charCodeAt(chunks[i].length - 1)
      if (last >= 0xd800 && last <= 0xdbff) tally['split pair']++
      if (last === 0x0d && chunks[i + 1][0] === '\n') tally['split CRLF']++
    }
  }
}

/**
 * The drop-in property against eventsource-parser's createParser (ESM only, so the caller imports it).
 * @param {{ createParser: Function }} eventsourceParser
 * @param {ReturnType<typeof newDropInTally>} [tally]
 */
function dropInProperty (eventsourceParser, tally = newDropInTally()) {
  return fc.property(dropInCase, ({ streams, options }) => {
    const chunked = streams.map(([text, plan]) => splitString(text, cutsOf(plan, text.length)))
    const expected = feedStrings(eventsourceParser.createParser, chunked, options)
    countDropIn(tally, chunked, expected)
    let actual
    try {
      actual = feedStrings(createParser, chunked, options)
    } catch (err) {
      actual = `threw ${err.stack}`
    }
    // Exactly, lone surrogates included: a cut may split a pair and a reset() or an overflow then drop
    // its first half, and a long field name is cut in two for a message; both report the half alone.
    if (typeof actual === 'string' || !isDeepStrictEqual(actual, expected)) {
      throw new Error([
        'the drop-in and eventsource-parser differ',
        `  actual:   ${JSON.stringify(actual)}`,
        `  expected: ${JSON.stringify(expected)}`,
        `  options:  ${JSON.stringify(options)}`,
        ...chunked.map((chunks, k) => `  stream ${k}: ${JSON.stringify(chunks)}`)
      ].join('\n'))
    }
  })
}

/**
 * Asserts that each kind of a tally was exercised by more than 1 case in 500 of `numRuns` (more than
 * 20 at CI's 10,000 runs): a fraction, so that a shorter run (FUZZ_RUNS=2000) is held to the same mix
 * rather than failing on a count.
 * @param {import('tap').Test} t
 * @param {Record<string, number>} tally
 * @param {number} numRuns
 */
function checkTally (t, tally, numRuns) {
  const floor = Math.floor(numRuns / 500)
  for (const [what, n] of Object.entries(tally)) t.ok(n > floor, `${what}: ${n} (more than ${floor})`)
}

module.exports = { parserProperty, newTally, dropInProperty, newDropInTally, checkTally }
