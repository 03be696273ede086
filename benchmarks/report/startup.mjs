// The startup sections of the report (../report.mjs), from results/startup-<node>.json: per Node
// version, each client's time from process start to its first event (ssecat: to its exit) on both
// clocks (parent: from before spawn(); child: from its performance.timeOrigin), median (range) over
// processes, and ours ÷ the fastest peer with the range of the per-round ratios.

import { table, spread, runHeading, plural, fmtMs, fmtX } from './format.mjs'

const ORDER = ['ours', 'undici', 'node', 'eventsource', 'floor', 'ssecat']

function heading (run) {
  const { json } = run
  const env = json.environment
  return runHeading({
    file: run.file,
    node: env.node,
    v8: env.v8,
    date: json.date,
    git: env.git,
    samples: `${plural(json.samples.processes, 'process')} per client, interleaved, after ${json.samples.warmup} untimed`,
    loadavg: [env.loadavg[0], env.loadavgAfter?.[0]].filter((x) => x !== undefined),
    note: json.note
  })
}

function ratioText (r) {
  if (!r) return 'n/a'
  const range = r.perRound ? ` (per round ${fmtX(r.perRound.min)}–${fmtX(r.perRound.max)})` : ''
  return `${fmtX(r.ratio)}${range} vs ${r.fastestPeer}`
}

const status = (r) => !r ? '' : r.ratio <= 1 ? 'met' : 'MISSED'

/** benchmarks/README.md: every startup file's table and target, oldest Node first. */
export function startupSection (runs) {
  if (runs.length === 0) return '_No results/startup-*.json yet: run `npm run bench:startup`._'
  const out = []
  for (const run of runs) {
    const { json } = run
    const ids = ORDER.filter((c) => json.results[c])
    out.push(`#### Startup, Node ${json.environment.node}`, '', heading(run), '')
    out.push(table(['client', 'until', 'spawn → (parent clock)', 'timeOrigin → (child clock)'], ids.map((c) => {
      const r = json.results[c]
      return r.parentMs ? [r.label, r.until, spread(r.parentMs, fmtMs), spread(r.childMs, fmtMs)] : [r.label, r.until, 'FAILED', 'FAILED']
    })), '')
    out.push(table(['target: ours ≤ fastest peer (median)', 'ours ÷ fastest peer, ratio of medians', 'status'], [
      ['spawn → first event (parent clock)', ratioText(json.ratios.parentMs), status(json.ratios.parentMs)],
      ['timeOrigin → first event (child clock)', ratioText(json.ratios.childMs), status(json.ratios.childMs)]
    ]), '')
  }
  return out.join('\n')
}

/** docs/performance.md: spawn → first event per client (rows) and Node version (columns), parent clock. */
export function startupSummary (runs) {
  if (runs.length === 0) return '_No startup results yet._'
  const ids = ORDER.filter((c) => runs.some((run) => run.json.results[c]))
  const label = (c) => {
    const run = runs.find((x) => x.json.results[c])
    // Node's global EventSource is named per version in the JSON; one row for all versions here.
    return c === 'node' ? 'Node\'s global EventSource (--experimental-eventsource where needed)' : run.json.results[c].label
  }
  const rows = ids.map((c) => [label(c), ...runs.map((run) => {
    const r = run.json.results[c]
    return !r ? 'n/a' : r.parentMs ? spread(r.parentMs, fmtMs) : 'FAILED'
  })])
  rows.push(['ours ÷ fastest peer (target ≤ 1.00x)', ...runs.map((run) => `${ratioText(run.json.ratios.parentMs)}, ${status(run.json.ratios.parentMs)}`)])
  const notes = runs.filter((r) => r.json.note).map((r) => `> Note (Node ${r.json.environment.node}): ${r.json.note}.`)
  return [...notes.flatMap((n) => [n, '']),
    table(['from spawn to the first event (ssecat: to its exit)', ...runs.map((run) => `Node ${run.json.environment.node}`)], rows), '',
    `Median (range) over ${runs.map((r) => r.json.samples.processes).join(' / ')} processes per client; from ${runs.map((r) => `\`benchmarks/results/${r.file}\``).join(', ')}.`].join('\n')
}
