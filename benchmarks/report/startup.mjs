// The startup sections of the report (../report.mjs), from results/startup-<node>.json: per Node
// version, ours' time from process start to its first event, ours ÷ each other client (ssecat: its time
// to its exit), and the target, ours ÷ the fastest peer, on both clocks (parent: from before spawn();
// child: from its performance.timeOrigin), with the ranges of the per-round ratios.

import { table, summaryTable, paragraphs, spread, ratioCell, runList, nodeColumn, plural, fmtMs, fmtX } from './format.mjs'

const ORDER = ['ours', 'undici', 'node', 'eventsource', 'floor', 'ssecat']

function runOf (run) {
  const { json } = run
  const env = json.environment
  return {
    file: run.file,
    date: json.date,
    git: env.git,
    samples: `${plural(json.samples.processes, 'process')} per client, interleaved, after ${json.samples.warmup} untimed`,
    loadavg: [env.loadavg[0], env.loadavgAfter?.[0]].filter((x) => x !== undefined),
    note: json.note
  }
}

// ours ÷ a peer on the parent clock, a ratio of medians with the range of the per-round ratios (round r
// ran every client once, one after the other).
function peerRatio (json, peer) {
  const ours = json.results.ours
  const other = json.results[peer]
  if (!ours?.parentMs || !other?.parentMs) return ''
  const byRound = new Map(other.samples.filter((s) => s.error === null).map((s) => [s.round, s.parentMs]))
  const rounds = ours.samples.filter((s) => s.error === null && byRound.has(s.round)).map((s) => s.parentMs / byRound.get(s.round))
  return ratioCell(ours.parentMs.median / other.parentMs.median, rounds, null)
}

function ratioText (r) {
  if (!r) return 'n/a'
  const range = r.perRound ? ` (per round ${fmtX(r.perRound.min)}–${fmtX(r.perRound.max)})` : ''
  return `${fmtX(r.ratio)}${range} vs ${r.fastestPeer}`
}

const status = (r) => !r ? '' : r.ratio <= 1 ? 'met' : 'MISSED'
const bold = (s) => s === 'MISSED' ? '**MISSED**' : s

/**
 * benchmarks/README.md: ours from spawn to the first event, ours ÷ each other client (rows) per Node
 * version (columns), and the target on both clocks. Each client's own times and every sample stay in
 * the JSON.
 */
export function startupSection (runs) {
  if (runs.length === 0) return '_No results/startup-*.json yet: run `npm run bench:startup`._'
  const ids = ORDER.filter((c) => c !== 'ours' && runs.some((run) => run.json.results[c]))
  const cell = (run, c, value) => {
    const r = run.json.results[c]
    return r === undefined ? '-' : !r.parentMs ? 'FAILED' : value(r) || 'n/a'
  }
  const body = [['ours, spawn → first event', ...runs.map((run) => cell(run, 'ours', (r) => spread(r.parentMs, fmtMs)))]]
  for (const c of ids) {
    body.push([c === 'ssecat' ? 'ssecat --count 1, spawn → exit' : `ours ÷ ${TITLE[c]}`,
      ...runs.map((run) => cell(run, c, (r) => c === 'ssecat' ? spread(r.parentMs, fmtMs) : peerRatio(run.json, c)))])
  }
  const target = (r) => !r ? 'n/a' : `${fmtX(r.ratio)} vs ${TITLE[r.fastestPeer] ?? r.fastestPeer}: ${bold(status(r))}`
  body.push(['target: ours <= the fastest peer (parent clock)', ...runs.map((run) => target(run.json.ratios.parentMs))])
  body.push(['target: the same, child clock', ...runs.map((run) => target(run.json.ratios.childMs))])
  return paragraphs([
    'Ours\' median (range) over processes, from before `spawn()` to the first event read from the child (parent clock);' +
      ' ssecat\'s to its exit. Ratios: ours\' median ÷ the other client\'s (below 1 is faster), with the range of the' +
      ' per-round ratios. The targets compare ours with the fastest peer by median, on both clocks (child: from the' +
      ' child\'s `performance.timeOrigin`).', '',
    summaryTable(['', ...runs.map((run) => nodeColumn(run.json.environment.node))], body), '',
    runList(runs.map(runOf))
  ])
}

// The clients' names in the summary (each file's labels name their versions).
const TITLE = { undici: 'undici 7', node: 'Node\'s global', eventsource: 'eventsource 4', floor: 'floor' }

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
