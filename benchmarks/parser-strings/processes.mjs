// `node benchmarks/parser-strings.bench.mjs --processes N`: the benchmark in N fresh processes, one after
// another, each timing every parser shape by shape (so the parsers of a shape share a process's
// conditions); then, per shape and form, the median and range across processes of each parser's p50,
// and per peer the ratio drop-in ÷ peer of the median p50s with the range of the per-process ratios.
// A process that fails fails the run.

import { writeFileSync, mkdirSync } from 'node:fs'
import os from 'node:os'
import { dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { summarize, runInProcesses, mergedRunHeader } from '../e2e/common.mjs'

const script = fileURLToPath(new URL('../parser-strings.bench.mjs', import.meta.url))

/** Per shape and form: each parser's p50 across processes and, per peer, the ratio and its range. */
export function summarizeRuns (runs) {
  const { dropIn, peers } = runs[0]
  return runs[0].results.map((first) => {
    const rows = runs.map((run) => run.results.find((r) => r.shape === first.shape && r.form === first.form))
    const times = Object.fromEntries([dropIn, ...peers].map((name) => [name, summarize(rows.map((r) => r.times[name].p50))]))
    const ratios = Object.fromEntries(peers.map((name) => [name, {
      ratio: times[dropIn].median / times[name].median,
      perProcess: summarize(rows.map((r) => r.times[dropIn].p50 / r.times[name].p50)),
      // Each process's median of per-round ratios, and its ratio of minimum times.
      paired: summarize(rows.map((r) => r.paired[name])),
      min: summarize(rows.map((r) => r.minRatios[name]))
    }]))
    return { shape: first.shape, form: first.form, times, ratios }
  })
}

export async function runProcesses ({ processes, argv, jsonPath, note }) {
  const loadBefore = os.loadavg()
  const started = Date.now()
  const runs = await runInProcesses(script, processes, argv, 'parser-strings benchmark')
  const summary = summarizeRuns(runs)
  const { dropIn, peers } = runs[0]
  const width = Math.max(...summary.map((s) => s.shape.length))
  console.log(`across ${processes} processes: ratio = ${dropIn} median p50 ÷ the peer's (range of the per-process ratios); target <= 1.00`)
  for (const s of summary) {
    const cells = peers.map((p) => {
      const r = s.ratios[p]
      return `${p.replace('eventsource-parser@', 'e-p ')} ${r.ratio.toFixed(2)} (${r.perProcess.min.toFixed(2)}–${r.perProcess.max.toFixed(2)}; paired ${r.paired.median.toFixed(2)}, min ${r.min.median.toFixed(2)})`
    })
    const slower = peers.some((p) => s.ratios[p].ratio > 1)
    console.log(`  ${s.shape.padEnd(width)} ${s.form.padEnd(6)}  ${cells.join('  ')}${slower ? '  SLOWER' : ''}`)
  }
  console.log(`${Math.round((Date.now() - started) / 1000)} s; load average ${loadBefore.map((x) => x.toFixed(2)).join(' ')} → ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`)
  if (!jsonPath) return
  const first = runs[0]
  const out = {
    ...mergedRunHeader(first, { note, loadBefore }),
    seconds: Math.round((Date.now() - started) / 1000),
    processes,
    dropIn,
    peers,
    forms: first.forms,
    sampling: first.sampling,
    shapes: first.shapes,
    verification: first.verification,
    summary,
    // Each process's load and rows (p50, min, avg and samples per parser).
    runs: runs.map((r) => ({ loadavg: r.loadavg, results: r.results }))
  }
  mkdirSync(dirname(jsonPath), { recursive: true })
  writeFileSync(jsonPath, JSON.stringify(out))
  console.log(`results written to ${jsonPath}`)
}
