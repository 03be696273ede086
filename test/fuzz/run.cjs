'use strict'

// `npm run fuzz [-- <runs> [seed]]`: the parser property of test/parser/parser-property.test.cjs, ten million
// cases by default, in batches so progress shows. `npm run fuzz -- --drop-in [<runs> [seed]]`: the drop-in
// property of test/compat/eventsource-parser/parser-drop-in-compare.test.cjs instead
// (whatwg-eventsource/parser against eventsource-parser), a million cases by default. A failure prints the
// seed, the path and the minimal case, and exits 1.

const fc = require('fast-check')
const { parserProperty, dropInProperty } = require('./property.cjs')

async function main () {
  const args = process.argv.slice(2)
  const dropIn = args[0] === '--drop-in'
  if (dropIn) args.shift()
  const total = Number(args[0] ?? (dropIn ? 1_000_000 : 10_000_000))
  const seed = Number(args[1] ?? Date.now() % 2 ** 31)
  const batch = dropIn ? 25_000 : 250_000
  const property = dropIn ? dropInProperty.bind(null, await import('eventsource-parser')) : parserProperty
  const testFile = dropIn
    ? 'test/compat/eventsource-parser/parser-drop-in-compare.test.cjs'
    : 'test/parser/parser-property.test.cjs'

  const started = Date.now()
  let done = 0
  for (let round = 0; done < total; round++) {
    const numRuns = Math.min(batch, total - done)
    // Each batch has its own seed, derived from the first, so a failure is replayable on its own.
    const batchSeed = (seed + round * 7919) | 0
    const details = fc.check(property(), { seed: batchSeed, numRuns })
    if (details.failed) {
      console.error(fc.defaultReportMessage(details))
      console.error(`replay: FUZZ_SEED=${batchSeed} FUZZ_PATH=${details.counterexamplePath} npx tap ${testFile}`)
      process.exit(1)
    }
    done += details.numRuns
    const seconds = (Date.now() - started) / 1000
    console.log(`${done.toLocaleString('en')} cases, no counterexample (seed ${seed}, ${seconds.toFixed(0)} s)`)
  }
}

main()
