'use strict'

// `npm run fuzz [-- <runs> [seed]]`: the parser property of test/parser-property.test.js, ten million
// cases by default, in batches so progress shows. A failure prints the seed, the path and the
// minimal case, and exits 1.

const fc = require('fast-check')
const { parserProperty } = require('./property')

const total = Number(process.argv[2] ?? 10_000_000)
const seed = Number(process.argv[3] ?? Date.now() % 2 ** 31)
const batch = 250_000

const started = Date.now()
let done = 0
for (let round = 0; done < total; round++) {
  const numRuns = Math.min(batch, total - done)
  // Each batch has its own seed, derived from the first, so a failure is replayable on its own.
  const batchSeed = (seed + round * 7919) | 0
  const details = fc.check(parserProperty(), { seed: batchSeed, numRuns })
  if (details.failed) {
    console.error(fc.defaultReportMessage(details))
    console.error(`replay: FUZZ_SEED=${batchSeed} FUZZ_PATH=${details.counterexamplePath} npx tap test/parser-property.test.js`)
    process.exit(1)
  }
  done += details.numRuns
  const seconds = (Date.now() - started) / 1000
  console.log(`${done.toLocaleString('en')} cases, no counterexample (seed ${seed}, ${seconds.toFixed(0)} s)`)
}
