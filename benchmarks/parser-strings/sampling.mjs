// How benchmarks/parser-strings.bench.mjs samples: the parsers of a shape in rounds, one call of each
// per round, the order rotating from round to round, a full GC before every call; each parser's p50 is
// the median of its calls.
//
// Why rounds rather than mitata's measure() one parser after the other (as ./parser.bench.mjs does):
// measure() samples one function until its budget is spent, so two parsers of a shape are timed a
// second or more apart, and on this shared two-core machine (load average 4 to 7 while these runs
// were made) the load moves within a second: in a trial with measure() the same shape gave 0.8x in one
// process and 1.6x in the next. Calls that alternate share the load they run under, and a rotating order
// shares what running first or second costs. Everything else is mitata's convention: one call per
// sample, never batched (every shape takes 50 µs or more a call), a full GC before each, the result
// passed to mitata's do_not_optimize.

import { do_not_optimize } from 'mitata' // eslint-disable-line camelcase -- mitata's name

const now = () => Number(process.hrtime.bigint())

// Calls before the rounds: the verification already ran each parser twice on the shape; these bring
// every path to its optimized code (at least WARMUP_CALLS calls, and WARMUP_NS of calls per parser).
const WARMUP_CALLS = 3
const WARMUP_NS = 30e6

/**
 * Times `entries` (one per parser) in rounds. Stops after `minRounds` rounds once `wallNs` have passed
 * since the first round (GCs included), or after `maxRounds`.
 * @param {{ name: string, fn: () => unknown, isAsync: boolean }[]} entries
 * @param {{ minRounds: number, maxRounds: number, wallNs: number }} options
 * @returns {Promise<{ rounds: number, stats: Record<string, { p50: number, min: number, max: number, avg: number, samples: number, byRound: number[] }> }>}
 */
export async function sampleRounds (entries, { minRounds, maxRounds, wallNs }) {
  for (const { fn, isAsync } of entries) {
    const t0 = now()
    for (let i = 0; i < WARMUP_CALLS || now() - t0 < WARMUP_NS; i++) do_not_optimize(isAsync ? await fn() : fn())
  }
  const samples = entries.map(() => [])
  const start = now()
  let round = 0
  for (; round < maxRounds; round++) {
    if (round >= minRounds && now() - start >= wallNs) break
    for (let k = 0; k < entries.length; k++) {
      const i = (k + round) % entries.length
      const { fn, isAsync } = entries[i]
      globalThis.gc()
      let t0
      if (isAsync) {
        t0 = now()
        do_not_optimize(await fn())
      } else {
        t0 = now()
        do_not_optimize(fn())
      }
      samples[i].push(now() - t0)
    }
  }
  const stats = {}
  for (let i = 0; i < entries.length; i++) {
    stats[entries[i].name] = { ...summary(samples[i]), byRound: samples[i] }
  }
  return { rounds: round, stats }
}

/** p50 (the median), min, max, avg and count of a list of times. */
function summary (times) {
  const s = [...times].sort((a, b) => a - b)
  const mid = s.length >> 1
  return {
    p50: s.length % 2 === 1 ? s[mid] : (s[mid - 1] + s[mid]) / 2,
    min: s[0],
    max: s[s.length - 1],
    avg: s.reduce((a, b) => a + b, 0) / s.length,
    samples: s.length
  }
}

/**
 * The median of the per-round ratios a ÷ b: each round's two calls ran next to each other, so a change
 * of load on the machine slower than a round cancels out of their ratio.
 * @param {number[]} a one parser's times, round by round
 * @param {number[]} b another's, the same rounds
 */
export function pairedRatio (a, b) {
  return summary(a.map((x, i) => x / b[i])).p50
}
