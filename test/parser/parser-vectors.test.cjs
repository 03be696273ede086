'use strict'

// Every spec vector in test/fixtures/vectors.cjs, replayed at every chunk size 1..len, at every
// 2-way split and, for inputs up to 16 bytes, at every 3-way split. The reference model is checked
// against the same vectors, so the property test compares the parser with something known good.

const t = require('tap')
const { isDeepStrictEqual } = require('node:util')
const vectors = require('../fixtures/vectors.cjs')
const { toBytes, cutSets, everySplit, parseAll, describeBytes, reference } = require('../helpers/index.cjs')
const { EventSourceParser } = require('../..')

t.test('vector names are unique', async (t) => {
  const names = vectors.map((v) => v.name)
  t.same(names.filter((name, i) => names.indexOf(name) !== i), [])
})

for (const vector of vectors) {
  t.test(vector.name, async (t) => {
    const bytes = toBytes(vector.input)
    t.same(reference([bytes], vector.options), vector.events, 'the reference model agrees')
    t.same(parseAll([bytes], vector.options), vector.events, 'in one chunk')
    let replays = 0
    let failures = 0
    for (const { name, chunks } of everySplit(bytes)) {
      replays++
      const records = parseAll(chunks, vector.options)
      // One assertion per failing chunking (and at most five of them); passes are counted.
      if (!isDeepStrictEqual(records, vector.events) && failures++ < 5) {
        t.same(records, vector.events, `${name}: ${chunks.map((c) => c.length).join('+')} bytes; ${describeBytes(bytes)}`)
      }
    }
    t.equal(failures, 0, `all ${replays} chunkings give the same callbacks`)
  })
}

t.test('the replay helper produces the promised chunkings', async (t) => {
  const names = [...cutSets(4)].map((c) => c.name)
  t.same(names, [
    'chunk size 1', 'chunk size 2', 'chunk size 3', 'chunk size 4',
    'split at 0', 'split at 1', 'split at 2', 'split at 3', 'split at 4',
    'split at 1, 2', 'split at 1, 3', 'split at 2, 3'
  ])
  t.equal([...cutSets(17)].filter((c) => c.name.startsWith('split') && c.cuts.length === 2).length, 0, 'no 3-way splits above 16 bytes')
  t.same([...cutSets(0)].map((c) => c.cuts), [[]])
})

t.test('retry beyond 2^53 is rounded once, as Number() and parseInt() round it', async (t) => {
  // Summed digit by digit (ms * 10 + digit) in a double, the result would be off in the last place past
  // Number.MAX_SAFE_INTEGER; the parser reads such a value again as one number. Milliseconds that
  // large mean "never", but eventsource-parser's drop-in must report what parseInt() makes of them.
  const values = []
  const parser = new EventSourceParser({ onEvent () {}, onRetry (ms) { values.push(ms) } })
  const all = ['86288864886024208288', '9007199254740993', '1234567890123456', '000000000000000099', '9'.repeat(400)]
  for (const digits of all) parser.write(Buffer.from(`retry:${digits}\n`))
  t.same(values, all.map((digits) => parseInt(digits, 10)))
  t.same(values, all.map(Number))
  let sum = 0
  for (const digit of all[0]) sum = sum * 10 + Number(digit)
  t.not(sum, Number(all[0]), 'the digit-by-digit sum would be off for the first')
})
