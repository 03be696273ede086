// `node benchmarks/parser.bench.mjs --processes N`: the parser benchmark in N fresh processes, one after
// another, each timing ours and every peer fixture by fixture (so the peers share each process's
// conditions), then, per fixture, the median and range across processes of each parser's p50 and of
// the p50 ratio ours ÷ fastest peer, against the targets of ./parser-targets.mjs. The fastest peer is the one with the lowest median p50; the
// headline ratio is ours' median p50 ÷ that peer's median p50, and its range is that of the
// per-process ratios. A process that fails fails the run.

import { writeFileSync, mkdirSync } from 'node:fs'
import os from 'node:os'
import { dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { summarize, runInProcesses, mergedRunHeader } from './e2e/common.mjs'
import { parserStatus, parserTargetLines } from './parser-targets.mjs'

const script = fileURLToPath(new URL('./parser.bench.mjs', import.meta.url))
const fmtTime = (ns) => ns >= 1e6 ? `${(ns / 1e6).toFixed(2)} ms` : `${(ns / 1e3).toFixed(1)} µs`

/** Per fixture: every parser's p50 across processes, the fastest peer, and the ratio with its range. */
export function summarizeRuns (runs, node = runs[0].node) {
  return runs[0].ratios.map((first) => {
    const rows = runs.map((run) => run.ratios.find((r) => r.fixture === first.fixture))
    const peerNames = Object.keys(first.peers)
    const peers = Object.fromEntries(peerNames.map((name) => [name, summarize(rows.map((r) => r.peers[name].p50))]))
    const fastestPeer = peerNames.reduce((a, b) => (peers[b].median < peers[a].median ? b : a))
    const ours = summarize(rows.map((r) => r.ours.p50))
    const ratio = ours.median / peers[fastestPeer].median
    return {
      fixture: first.fixture,
      ours,
      peers,
      fastestPeer,
      ratio,
      // Each process's own ratio, against the same peer.
      ratioPerProcess: summarize(rows.map((r) => r.ours.p50 / r.peers[fastestPeer].p50)),
      targets: parserStatus(ratio, node)
    }
  })
}

/** Per fixture, the string form: the drop-in's p50 and eventsource-parser's across processes, the ratio. */
export function summarizeStringRuns (runs) {
  return (runs[0].stringRatios ?? []).map((first) => {
    const rows = runs.map((run) => run.stringRatios.find((r) => r.fixture === first.fixture))
    const ours = summarize(rows.map((r) => r.ours.p50))
    const esp = summarize(rows.map((r) => r.esp.p50))
    const ratio = ours.median / esp.median
    return {
      fixture: first.fixture,
      ours,
      esp,
      ratio,
      ratioPerProcess: summarize(rows.map((r) => r.ours.p50 / r.esp.p50)),
      verdict: ratio <= 1 ? 'at least as fast' : 'slower'
    }
  })
}

export async function runProcesses ({ processes, argv, jsonPath, note }) {
  const loadBefore = os.loadavg()
  const runs = await runInProcesses(script, processes, argv, 'parser benchmark')
  const summary = summarizeRuns(runs)
  const nameWidth = Math.max(...summary.map((s) => s.fixture.length))
  const range = (s) => `${fmtTime(s.median)} (${fmtTime(s.min)}–${fmtTime(s.max)})`
  const short = (name) => name.replace(/@(\d+)[^ ]*/, ' $1')
  console.log(`across ${processes} processes on ${runs[0].node}: p50 median (range); ratio = ours ÷ fastest peer's median p50 (range of the per-process ratios)`)
  for (const s of summary) {
    const peers = Object.entries(s.peers).map(([name, v]) => `${short(name)} ${range(v)}`).join(', ')
    const targets = Object.entries(s.targets).map(([id, status]) => `${id} ${status}`).join(', ')
    console.log(`  ${s.fixture.padEnd(nameWidth)}  ours ${range(s.ours)}; ${peers}; ratio ${s.ratio.toFixed(2)} (${s.ratioPerProcess.min.toFixed(2)}–${s.ratioPerProcess.max.toFixed(2)}) vs ${short(s.fastestPeer)}: ${targets}`)
  }
  for (const line of parserTargetLines(summary, runs[0].node)) console.log(line)
  const stringSummary = summarizeStringRuns(runs)
  if (stringSummary.length !== 0) {
    console.log(`string form across ${processes} processes: whatwg-eventsource/parser and eventsource-parser, p50 median (range); ratio drop-in ÷ eventsource-parser (range of the per-process ratios)`)
    for (const s of stringSummary) {
      console.log(`  ${s.fixture.padEnd(nameWidth)}  drop-in ${range(s.ours)}; eventsource-parser ${range(s.esp)}; ratio ${s.ratio.toFixed(2)} (${s.ratioPerProcess.min.toFixed(2)}–${s.ratioPerProcess.max.toFixed(2)}): ${s.verdict}`)
    }
  }
  if (!jsonPath) return
  const first = runs[0]
  const out = {
    ...mergedRunHeader(first, { note, loadBefore }),
    processes,
    gc: first.gc,
    budgetMs: first.budgetMs ?? null,
    keepAlive: first.keepAlive,
    peers: first.peers,
    fixtures: first.fixtures,
    verification: first.verification,
    summary,
    stringSummary,
    // Each process's ratio rows (p50, min, avg per parser) and load; mitata's raw results are dropped.
    runs: runs.map((r) => ({ loadavg: r.loadavg, ratios: r.ratios, stringRatios: r.stringRatios }))
  }
  mkdirSync(dirname(jsonPath), { recursive: true })
  writeFileSync(jsonPath, JSON.stringify(out))
  console.log(`results written to ${jsonPath}`)
}
