'use strict'

// Soak: the "nothing lost" scenario of test/reliability/reliability-nothing-lost.test.cjs with 1,000 disconnects at
// random byte offsets per seed, for several seeds. Run by `npm run test:soak` (not by `npm test`: the
// file name does not match test/**/*.test.cjs). SOAK_DISCONNECTS and SOAK_SEEDS (comma-separated)
// override the defaults.

const t = require('tap')
const { runResume } = require('../helpers/index.cjs')

const DISCONNECTS = Number(process.env.SOAK_DISCONNECTS ?? 1000)
const SEEDS = (process.env.SOAK_SEEDS ?? '1,2,3,4,5').split(',').map(Number)

for (const seed of SEEDS) {
  t.test(`${DISCONNECTS} disconnects, seed ${seed}: every event exactly once, in order`, async (t) => {
    const stats = await runResume({ disconnects: DISCONNECTS, seed, timeout: 300_000, t })
    t.comment(JSON.stringify({ ...stats, mismatches: stats.mismatches.length, headerMismatches: stats.headerMismatches.length }))
    t.equal(stats.disconnects, DISCONNECTS, 'disconnects survived')
    t.equal(stats.received, stats.events, 'events received')
    t.equal(stats.events - stats.received, 0, 'events lost')
    t.same(stats.mismatches, [], 'each in order, with its type, data and id')
    t.equal(stats.duplicates, 0, 'no duplicates')
    t.equal(stats.errors, DISCONNECTS, 'one error event per cut')
    t.same(stats.headerMismatches, [], 'every reconnection resumed from the last event received')
    t.equal(stats.badHeaders, 0)
    t.equal(stats.readyState, 1, 'OPEN at the end')
  })
}
