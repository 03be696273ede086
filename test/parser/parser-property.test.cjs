'use strict'

// Random event streams under random chunkings, parser against the reference model of
// test/helpers/reference.cjs, with fast-check (test/fuzz/): every field kind, every line end, BOMs,
// multi-byte and invalid UTF-8, NULs, long values, comments, resets. A failure prints the seed, the
// path and the shrunk, minimal case; replay it with FUZZ_SEED=<seed> FUZZ_PATH=<path>. FUZZ_RUNS sets
// the number of cases; `npm run fuzz` runs ten million (test/fuzz/run.cjs).

const t = require('tap')
const fc = require('fast-check')
const { parserProperty, newTally, checkTally } = require('../fuzz/property.cjs')

const seed = Number(process.env.FUZZ_SEED ?? 20261121)
const numRuns = Number(process.env.FUZZ_RUNS ?? 100_000)

t.test(`${numRuns} random streams match the reference model (seed ${seed})`, async (t) => {
  const tally = newTally()
  const path = process.env.FUZZ_PATH
  const details = fc.check(parserProperty(tally), { seed, numRuns, path })
  if (details.failed) t.fail(fc.defaultReportMessage(details))
  else t.pass('no counterexample')
  // A replay (FUZZ_PATH) runs the one case it names.
  if (path !== undefined) return
  t.equal(details.numRuns, numRuns, 'every case ran')
  // What the cases exercised, so a generator change cannot make this test vacuous.
  checkTally(t, tally, numRuns)
})
