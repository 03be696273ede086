'use strict'

// whatwg-eventsource/parser against eventsource-parser 4 itself: the same strings fed to both, and
// everything either reports (callbacks, errors, throws, feed by feed) must be the same. On the
// benchmark fixtures; on the spec vectors and on inputs aimed at the drop-in's own work (BOMs, CRs at
// the end of a feed, surrogate pairs and CRLFs split by a cut, incomplete lines dropped, maxBufferSize,
// reset({ consume })) at every chunking; and on random streams (fast-check, test/fuzz/): FUZZ_SEED,
// FUZZ_PATH and FUZZ_RUNS replay a failure as in test/parser/parser-property.test.cjs.

const t = require('tap')
const fc = require('fast-check')
const { isDeepStrictEqual } = require('node:util')
const vectors = require('../../fixtures/vectors.cjs')
const { feedStrings, splitString, cutSets, toBytes } = require('../../helpers/index.cjs')
const { dropInProperty, newDropInTally, checkTally } = require('../../fuzz/property.cjs')
const { createParser } = require('../../../lib/entries/parser.js')

const seed = Number(process.env.FUZZ_SEED ?? 20261123)
const numRuns = Number(process.env.FUZZ_RUNS ?? 5_000)

// Two parsers on every chunking of every input and on thousands of random streams: about 20 s alone,
// several times that on the shared machine under a full test run.
t.setTimeout(300_000)

// What a TextDecoderStream makes of byte chunks; the BOM is kept (ignoreBOM), for the parsers to drop.
function decodeChunks (chunks) {
  const decoder = new TextDecoder('utf-8', { ignoreBOM: true })
  const out = chunks.map((chunk) => decoder.decode(chunk, { stream: true }))
  const tail = decoder.decode()
  if (tail !== '') out.push(tail)
  return out
}

// Every chunking of `text` (as test/parser/parser-vectors.test.cjs cuts bytes), both parsers; returns the
// number of chunkings and the first that differs.
function everyChunking (esp, text, options) {
  let chunkings = 0
  for (const { name, cuts } of cutSets(text.length)) {
    chunkings++
    const streams = [splitString(text, cuts)]
    const expected = feedStrings(esp.createParser, streams, options)
    const actual = feedStrings(createParser, streams, options)
    if (!isDeepStrictEqual(actual, expected)) return { chunkings, differs: { name, streams, actual, expected } }
  }
  return { chunkings, differs: null }
}

t.test('the benchmark fixtures, as a TextDecoderStream hands them over', async (t) => {
  const esp = await import('eventsource-parser')
  const { buildFixtures } = await import('../../../benchmarks/fixtures.mjs')
  for (const f of buildFixtures()) {
    const chunks = decodeChunks(f.chunks)
    const expected = feedStrings(esp.createParser, [chunks])
    const actual = feedStrings(createParser, [chunks])
    // Not vacuous: eventsource-parser itself reports every event of the fixture's model.
    t.equal(expected.filter((r) => r[0] === 'event').length, f.events.length, `${f.name}: eventsource-parser's events`)
    t.ok(isDeepStrictEqual(actual, expected), `${f.name}: the same ${actual.length} records`)
    if (!isDeepStrictEqual(actual, expected)) t.same(actual, expected)
  }
})

// Inputs for the drop-in's own work, each replayed at every chunking.
const inputs = [
  ['a surrogate pair in a value, split by every cut', 'data: 😀x🚀\n\n'],
  ['a surrogate pair in an id and a type', 'id:🔑\nevent:é😀\ndata:1\n\n'],
  ['CRLF split by a cut', 'data:a\r\ndata:b\r\n\r\n'],
  ['CR then LF then blank line', 'data:a\r\n\ndata:b\r\r'],
  ['a CR at the end, nothing after', 'data:a\r\r'],
  ['a decoded BOM', '\ufeffdata:a\n\n'],
  ['the BOM as Latin-1', '\xEF\xBB\xBFdata:a\n\n'],
  ['two BOMs: the second is content', '\ufeff\ufeffdata:a\n\ndata:b\n\n'],
  ['a Latin-1 BOM then a decoded one', '\xEF\xBB\xBF\ufeffdata:a\n\ndata:b\n\n'],
  ['half a Latin-1 BOM', '\xEF\xBBdata:a\n\n'],
  ['unknown fields, complete or cut', 'foo: bar\nDATA:x\ndatax:1\n\ndata:y\n\n'],
  ['a line that cannot be a field, after a CR', 'data:1\rfoo\n\ndata:2\n\n'],
  ['near-misses of every name', 'dat\nevent \nids:1\nretryx:5\nd\n\n'],
  ['retry: valid, empty, bare, invalid, past 2^53', 'retry: 15\nretry:\nretry\nretry: 1x\nretry: 12345678901234567891\n'],
  ['comments', ': one\n:two\n:\n'],
  ['an id without data, an empty id, an id with NUL', 'id: 1\n\nid\n\nid: a\u0000b\ndata:x\n\n'],
  ['event types: none, empty, message', 'data:1\n\nevent:\ndata:2\n\nevent: message\ndata:3\n\n'],
  ['multi-line data and a trailing event without its blank line', 'data:1\ndata\ndata: 2\n\ndata: 3\n'],
  ['characters that are not line ends', 'data:\u2028\u0085\u000b\u000c\n\n'],
  // Blocks of data, event and id lines only, which the drop-in parses on the string when a feed starts
  // with them; maxBufferSize 4 stops some of them, not others.
  ['one-line events', 'data: {"a":1}\n\ndata:b\n\ndata:\n\ndata: 123456\n\n'],
  ['blocks of event, id and data lines', 'event: delta\nid: 7\ndata: 1\ndata:  2\n\nid: 8\n\nevent:\ndata: 12345\n\nid: a\u0000\ndata:x\n\n'],
  ['data past the limit, then other lines', 'data: ab\ndata: cd\n\nevent: e\ndata: 123456\nid: 1\n\ndata: 1\n\n'],
  ['simple blocks around others', 'data: 1\n\nretry: 5\ndata: 2\n\n: c\ndata: 3\n\nfoo\ndata: 4\n\ndata: 5\n\n']
]

t.test('inputs at every chunking', async (t) => {
  const esp = await import('eventsource-parser')
  for (const [name, text] of inputs) {
    for (const options of [{}, { callbacks: ['onId', 'onRetry', 'onError'] }, { maxBufferSize: 4 }, { end: true }]) {
      const { chunkings, differs } = everyChunking(esp, text, options)
      t.equal(differs, null, `${name} ${JSON.stringify(options)}: ${chunkings} chunkings`)
    }
  }
})

t.test('the spec vectors, decoded, at every chunking', async (t) => {
  const esp = await import('eventsource-parser')
  let chunkings = 0
  for (const vector of vectors) {
    const text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(toBytes(vector.input))
    const result = everyChunking(esp, text, {})
    chunkings += result.chunkings
    if (result.differs !== null) t.same(result.differs.actual, result.differs.expected, `${vector.name}: ${result.differs.name}`)
  }
  t.ok(chunkings > 10_000, `${vectors.length} vectors, ${chunkings} chunkings`)
})

t.test(`${numRuns} random string streams: the same as eventsource-parser (seed ${seed})`, async (t) => {
  const esp = await import('eventsource-parser')
  const tally = newDropInTally()
  const path = process.env.FUZZ_PATH
  const details = fc.check(dropInProperty(esp, tally), { seed, numRuns, path })
  if (details.failed) t.fail(fc.defaultReportMessage(details))
  else t.pass('no counterexample')
  if (path !== undefined) return
  t.equal(details.numRuns, numRuns, 'every case ran')
  // What the cases exercised, so a generator change cannot make this test vacuous.
  checkTally(t, tally, numRuns)
})
