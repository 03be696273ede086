// How the parser benchmark samples: mitata's measure(), one call of the benchmarked function per
// sample, for every fixture and every implementation, in every run.
//
// Why not mitata's bench() and run(): they time a function whose warm-up call took under 65 µs in
// batches of 4,096 calls per sample (an average that takes in the young-generation GCs the batch
// causes) and anything slower one call per sample after a full GC. That choice is made afresh per
// implementation and per run, so a fixture near 65 µs was timed one way for us and the other for a
// peer, or one way in one run and the other in the next: ratios that did not reproduce. Every
// fixture here takes well over 10 µs a call, so a single-call sample is far above the timer's
// resolution and cost (tens of ns).

import { measure } from 'mitata'

// measure() batches when a warm-up call took at most this many ns: never.
const NEVER_BATCH = -1
// mitata samples until at least 12 samples and its time budget (642 ms; doubled with a GC before each
// sample, and the GCs count against it: about 60 samples of a fixture here, at 10 ms a full GC). With
// --gc once a sample is one call and nothing else: this caps the count for the fastest fixtures.
const MAX_SAMPLES = 10_000

/**
 * Times each benchmark in order, as mitata's run() would, and returns its result in the shape the
 * parser benchmark reads from run(): layout (the groups) and benchmarks (alias, group, runs[0].stats).
 * @param {{ group: string, name: string, fn: () => unknown }[]} entries in the order to time them
 * @param {{ gcMode: 'inner' | 'once', formatTime: (ns: number) => string, log: (line: string) => void, budgetMs?: number }} options
 *   budgetMs: mitata's time budget per benchmark (its min_cpu_time; default mitata's, 642 ms): smaller
 *   for a quick run that proves the peers load and run, not for figures
 */
export async function timeEntries (entries, { gcMode, formatTime, log, budgetMs }) {
  const layout = []
  const benchmarks = []
  for (const entry of entries) {
    let group = layout.findIndex((l) => l.name === entry.group)
    if (group === -1) {
      group = layout.push({ name: entry.group }) - 1
      log(`\n${entry.group}`)
    }
    const stats = await measure(entry.fn, {
      // 'inner': a full GC before every sample, as bench().gc('inner'); 'once': mitata's default, a
      // GC before the benchmark only.
      inner_gc: gcMode === 'inner',
      batch_threshold: NEVER_BATCH,
      max_samples: MAX_SAMPLES,
      ...(budgetMs === undefined ? {} : { min_cpu_time: budgetMs * 1e6 })
    })
    benchmarks.push({ alias: entry.name, group, runs: [{ stats }] })
    log(`  ${entry.name.padEnd(44)} p50 ${formatTime(stats.p50).padStart(10)}  min ${formatTime(stats.min).padStart(10)}  ${stats.samples.length} samples`)
  }
  return { layout, benchmarks, context: { sampling: 'one call per sample, never batched', maxSamples: MAX_SAMPLES, budgetMs: budgetMs ?? null } }
}
