'use strict'

// 100,000 random streams under random chunkings, parser against the reference model (fast-check).
// A failure prints the seed, the path and the shrunk, minimal case; replay it with
// FUZZ_SEED=<seed> FUZZ_PATH=<path>. `npm run fuzz` runs ten million (test/fuzz/run.js).

const t = require('tap')
const fc = require('fast-check')
const { property } = require('./fuzz/property')

const seed = Number(process.env.FUZZ_SEED ?? 20261121)
const numRuns = Number(process.env.FUZZ_RUNS ?? 100_000)

t.test(`${numRuns} random streams match the reference model (seed ${seed})`, async (t) => {
  const details = fc.check(property, { seed, numRuns, path: process.env.FUZZ_PATH })
  if (details.failed) t.fail(fc.defaultReportMessage(details))
  else t.pass('no counterexample')
  t.equal(details.numRuns, numRuns, 'every case ran')
})
