// The whole-client sections of the report (../report.mjs): throughput (results/e2e-<node>.json) and
// idle connections (results/memory-<node>.json), as benchmarks/README.md's summary tables (ratios per Node
// version) and the summary of docs/performance.md.
// Ratios are ratios of medians; their range is that of the per-round ratios (round p pairs the p-th
// process of each client: the runners interleave processes across clients).

import { existsSync } from 'node:fs'
import {
  table, summaryTable, paragraphs, spread, ratioCell, runList, nodeColumn, plural, fmtRate, fmtUs, fmtKiB, fmtMs, fmtNs
} from './format.mjs'
import { e2eRounds, pairRatios, memoryRatio } from './rounds.mjs'
import { e2eTargetsByNode, e2eTargetCell, memoryTargetCell } from './targets.mjs'
import { E2E_TARGETS, e2eTargetApplies } from '../e2e/targets.mjs'
import { MEMORY_TARGET } from '../memory/targets.mjs'

const ORDER = ['ours', 'ours+diagnostics', 'ours+batch', 'ours+agent', 'undici', 'undici8', 'node', 'eventsource', 'eventsource5', 'floor']
const clientsOf = (obj) => ORDER.filter((c) => obj[c] !== undefined)

// The line of a run of either whole-client runner (in cleartext or --tls) under its summary table: all
// record the same environment; `samples` says how that runner took its samples.
export function wholeClientRun (run, samples) {
  const env = run.json.environment
  return {
    file: run.file,
    date: run.json.date,
    git: env.git,
    samples,
    loadavg: [env.loadavg[0], env.loadavgAfter?.[0]].filter((x) => x !== undefined),
    note: run.json.note
  }
}

export function e2eRun (run) {
  const { samples } = run.json
  return wholeClientRun(run, `${plural(samples.processes, 'process')} × ${plural(samples.runsPerProcess, 'timed run')} per client`)
}

/**
 * ours ÷ this (or this ÷ ours with `invert`) on a throughput metric, with its per-round range (labelled
 * unless `per` is null: a caption says what the range is).
 */
function e2eRatio (run, workload, client, metric, invert = false, per = 'per round') {
  const clients = run.json.workloads[workload].clients
  if (client === 'ours' || !clients.ours?.[metric] || !clients[client]?.[metric]) return ''
  const [a, b] = invert ? [client, 'ours'] : ['ours', client]
  const value = clients[a][metric].median / clients[b][metric].median
  return ratioCell(value, pairRatios(e2eRounds(run, workload, a, metric, 'warm'), e2eRounds(run, workload, b, metric, 'warm')), per)
}

// A cell of a summary table for one client of one run: '-' where the file does not hold the client,
// FAILED where it failed verification, else what `value` makes of it.
const clientCell = (r, value) => r === undefined ? '-' : !r.verified ? 'FAILED' : value(r) || 'n/a'

// The peers issue 28 added that a run's file lacks, grouped by why (the runner records why it left one
// out; older files predate them): "" when it holds them all.
function notMeasured (run) {
  const reasons = new Map()
  for (const id of ['undici8', 'node', 'eventsource5'].filter((id) => run.json.clients[id] === undefined)) {
    const why = run.json.notMeasured?.find((m) => m.id === id)?.why ?? 'not yet a client of the runner when this file was written'
    reasons.set(why, [...(reasons.get(why) ?? []), GENERIC_LABEL[id]])
  }
  return [...reasons].map(([why, ids]) => `${ids.join(', ')} (${why})`).join('; ')
}

/**
 * benchmarks/README.md: per workload, ours' events/s and ours ÷ each other client (rows) per Node version
 * (columns), then the targets of issue 28, the peers a run left out, the charts and the runs. Each
 * client's figures (CPU per event, cold and warm, every sample) and the hot-path costs stay in the JSON.
 */
export function e2eSection (runs, resultsDir) {
  if (runs.length === 0) return '_No results/e2e-*.json yet: run `npm run bench:e2e`._'
  const ids = clientsOf(Object.assign({}, ...runs.map((r) => r.json.clients))).filter((id) => id !== 'ours')
  const workloads = new Map(runs.flatMap((run) => Object.entries(run.json.workloads).map(([name, w]) => [name, w.title])))
  const body = []
  for (const name of workloads.keys()) {
    const per = (fn) => runs.map((run) => run.json.workloads[name] ? fn(run, run.json.workloads[name].clients) : '-')
    body.push([`${name}: ours, events/s`, ...per((run, c) => clientCell(c.ours, (r) => r.eventsPerSecond && spread(r.eventsPerSecond, fmtRate)))])
    for (const id of ids) {
      body.push([`${name}: ours ÷ ${SHORT[id]}`, ...per((run, c) => clientCell(c[id], () => e2eRatio(run, name, id, 'eventsPerSecond', false, null)))])
    }
  }
  for (const t of E2E_TARGETS) {
    const against = t.baseline
      ? `ours in ${t.baseline.file} at ${t.baseline.commit}`
      : t.peers.length === 1 ? SHORT[t.peers[0]] : `the faster of ${t.peers.map((id) => SHORT[id]).join(', ')}`
    const subject = t.subject === undefined ? '' : `, ${SHORT[t.subject]}`
    // On a Node it is not a target on, the ratio is in the rows above.
    body.push([`target${subject}: >= ${t.goal}x ${against}`, ...runs.map((run) => e2eTargetApplies(t, run.json.environment.node) ? e2eTargetCell(run, t) : 'n/a')])
  }
  const out = [
    `Workloads: ${[...workloads].map(([name, title]) => `${name}, ${title}`).join('; ')}. Events/s: ours' median (range) over` +
      ' all timed runs, after each process\'s warm-up. Ratios: ours\' median events/s ÷ the other client\'s (above 1 is' +
      ' faster), with the range of the per-round ratios (round *p* pairs the *p*-th process of each client). The targets' +
      ' (small events) are on warm figures: each process\'s median, then the median over processes; "n/a": not a target' +
      ' on that Node. "-": not in that run\'s file.', '',
    summaryTable(['', ...runs.map((run) => nodeColumn(run.json.environment.node))], body), ''
  ]
  const absent = runs.map((run) => [run, notMeasured(run)]).filter(([, why]) => why)
  if (absent.length) out.push(`Not measured: ${absent.map(([run, why]) => `on ${run.json.environment.node}, ${why}`).join('; ')}.`, '')
  const charts = runs.map((run) => `whole-client-${run.json.environment.node}.svg`).filter((svg) => existsSync(`${resultsDir}/${svg}`))
  if (charts.length) out.push(`Charts: ${charts.map((svg) => `[${svg.slice('whole-client-'.length, -'.svg'.length)}](results/${svg})`).join(', ')}.`, '')
  out.push(runList(runs.map(e2eRun)))
  return paragraphs(out)
}

// ---- idle connections ----

export function memoryRun (run) {
  return wholeClientRun(run, `${plural(run.json.repeat, 'process')} per client and count`)
}

/**
 * benchmarks/README.md: per count of idle connections, ours' heap per connection and ours ÷ each other
 * client (rows) per Node version (columns), with the target of issue 28. RSS and every sample stay in
 * the JSON.
 */
export function memorySection (runs) {
  if (runs.length === 0) return '_No results/memory-*.json yet: run `npm run bench:memory`._'
  const ids = clientsOf(Object.assign({}, ...runs.map((r) => r.json.clients))).filter((id) => id !== 'ours')
  const counts = [...new Set(runs.flatMap((run) => Object.keys(run.json.counts)))].sort((a, b) => a - b)
  const most = counts.at(-1)
  const n = Number(most).toLocaleString('en-US')
  const cells = (id, fn) => runs.map((run) => run.json.counts[most] ? clientCell(run.json.counts[most].clients[id], (r) => fn(run, r)) : '-')
  const body = [[`${n} open: ours, heap per connection`, ...cells('ours', (run, r) => spread(r.heapUsedPerConnection, fmtKiB))]]
  for (const id of ids) body.push([`${n} open: ours ÷ ${SHORT[id]}, heap`, ...cells(id, (run) => memoryRatio(run, most, id, 'heap', 'ours', null))])
  body.push([`${n} open: ours ÷ ${SHORT[MEMORY_TARGET.peer]}, time to open all`, ...cells(MEMORY_TARGET.peer, (run) => memoryRatio(run, most, MEMORY_TARGET.peer, 'open', 'ours', null))])
  for (const count of counts) {
    body.push([`target, ${Number(count).toLocaleString('en-US')} open: heap <= ${MEMORY_TARGET.goal}x ${SHORT[MEMORY_TARGET.peer]}'s`, ...runs.map((run) => memoryTargetCell(run, count))])
  }
  return paragraphs([
    `Heap used per idle connection at ${n} open: ours' median (range) over processes, (after − before) ÷ count, after GC.` +
      ' Ratios: ours\' median ÷ the other client\'s (below 1 is less), with the range of the per-round ratios.' +
      ` "${SHORT['ours+agent']}": ours with the undici package's \`Agent\`, the one undici's EventSource runs on (information,` +
      ' not a target). Every count\'s figures, RSS and the time to open are in the JSON.', '',
    summaryTable(['', ...runs.map((run) => nodeColumn(run.json.environment.node))], body), '',
    runList(runs.map(memoryRun))
  ])
}

// ---- the floor of a spec-exact EventSource, per Node ----

/**
 * benchmarks/README.md: for each e2e file with a hot path, the global MessageEvent built and dispatched
 * to one listener (p50) against each EventSource's CPU per small event, and the ratios ours would reach
 * with nothing of its own left (each peer's CPU per event ÷ the floor).
 */
export function floorTable (runs) {
  const rows = []
  for (const run of runs) {
    const floor = run.json.hotPath?.perEvent?.['EventTarget: dispatchEvent(new MessageEvent(...))']
    const c = run.json.workloads.small?.clients
    if (!floor || !c?.ours?.cpuUsPerEvent || !c.eventsource?.cpuUsPerEvent || !c.undici?.cpuUsPerEvent) continue
    const floorUs = floor.p50Ns / 1000
    const cpu = (id) => c[id].cpuUsPerEvent.median
    rows.push([run.json.environment.node, fmtUs(floorUs), fmtUs(cpu('ours')), fmtUs(cpu('eventsource')), fmtUs(cpu('undici')),
      fmtUs(cpu('ours') - floorUs), fmtUs(cpu('eventsource') - floorUs),
      fmtRatioX(cpu('eventsource') / floorUs), fmtRatioX(cpu('undici') / floorUs)])
  }
  if (rows.length === 0) return '_No results/e2e-*.json with a hot path yet: run `npm run bench:e2e`._'
  return summaryTable(['Node', '`new MessageEvent` + `dispatchEvent` (p50)', 'ours, CPU per small event', 'eventsource package',
    'undici\'s EventSource', 'ours beyond the floor', 'eventsource beyond the floor', 'best ratio to eventsource, with nothing of ours left',
    'to undici\'s'], rows)
}

const fmtRatioX = (x) => `${x.toFixed(2)}x`

// ---- docs/performance.md summary ----

// What an exact EventSource pays per event whatever else it cuts: building an event that is
// `instanceof` the runtime's MessageEvent and dispatching it to one listener, from the hot-path
// benchmark of the same run, set against our CPU per small event. Ours is built by a class of its own
// (lib/eventsource/message-event.js), without the WebIDL dictionary conversion of the global
// MessageEvent's constructor, whose cost is given beside it; undici's EventSource builds a class that
// is not `instanceof MessageEvent`. (Runs before our own class was measured give the global one only.)
function messageEventFloor (run) {
  const perEvent = run.json.hotPath?.perEvent
  const dispatched = perEvent?.['EventTarget: dispatchEvent(new MessageEvent(...))']
  const built = perEvent?.['new MessageEvent(type, { data, origin, lastEventId })']
  const fast = perEvent?.['undici createFastMessageEvent(type, { data, origin, lastEventId })']
  const oursBuilt = perEvent?.['ours: new (messageEventClass())(type, data, origin, lastEventId)']
  const oursDispatched = perEvent?.['EventTarget: dispatchEvent(our MessageEvent)']
  const ours = run.json.workloads.small?.clients.ours?.cpuUsPerEvent?.median
  if (!dispatched || !built || ours === undefined) return null
  const undici = fast ? `undici's builds its own (\`createFastMessageEvent\`, ${fmtNs(fast.p50Ns)}), which is not \`instanceof MessageEvent\`.` : ''
  if (!oursBuilt || !oursDispatched) {
    const share = (100 * dispatched.p50Ns / (ours * 1000)).toFixed(0)
    return `The floor per event on ${run.json.environment.node}: Node's global \`MessageEvent\` costs ${fmtNs(built.p50Ns)} to build ` +
      `and ${fmtNs(dispatched.p50Ns)} built and dispatched to one listener (p50, hot-path benchmark of the same run), ` +
      `${share} % of our ${fmtUs(ours)} of CPU per small event. A spec-exact EventSource dispatches that class; ${undici}`
  }
  const share = (100 * oursDispatched.p50Ns / (ours * 1000)).toFixed(0)
  return `The floor per event on ${run.json.environment.node}: our events (\`instanceof MessageEvent\`, built without the ` +
    `WebIDL dictionary conversion) cost ${fmtNs(oursBuilt.p50Ns)} to build and ${fmtNs(oursDispatched.p50Ns)} built and dispatched ` +
    `to one listener (p50, hot-path benchmark of the same run), ${share} % of our ${fmtUs(ours)} of CPU per small event; ` +
    `Node's global \`MessageEvent\` costs ${fmtNs(built.p50Ns)} to build and ${fmtNs(dispatched.p50Ns)} built and dispatched. ${undici}`
}

// A client's name in benchmarks/README.md's summaries (the clients table there says what each is).
const SHORT = {
  ours: 'ours',
  'ours+diagnostics': 'ours + diagnostics',
  'ours+batch': 'ours with onBatch',
  'ours+agent': 'ours on undici\'s Agent',
  undici: 'undici 7',
  undici8: 'undici 8',
  node: 'Node\'s own',
  eventsource: 'eventsource 4',
  eventsource5: 'eventsource 5',
  floor: 'floor'
}

// A client's column heading where a run's file does not hold it (its own label names its version).
const GENERIC_LABEL = {
  'ours+diagnostics': 'ours + diagnostics subscribers',
  'ours+batch': 'ours with init.onBatch',
  'ours+agent': 'ours on the undici package\'s Agent',
  undici: 'undici 7 EventSource',
  undici8: 'undici 8 EventSource',
  node: 'Node\'s own EventSource',
  eventsource: 'eventsource 4',
  eventsource5: 'eventsource 5',
  floor: 'floor'
}

/**
 * docs/performance.md: the targets per Node, then one table per Node version with an e2e or memory file: the
 * headline figures, a column for every client any file holds ("-" where this Node's files do not).
 */
export function wholeClientSummary (e2eRuns, memoryRuns, resultsDir) {
  const versions = [...new Set([...e2eRuns, ...memoryRuns].map((r) => r.json.environment.node))]
  if (versions.length === 0) return '_No whole-client results yet._'
  const out = []
  const byNode = e2eTargetsByNode(e2eRuns)
  if (byNode) out.push('**Targets per Node** (warm small events/s, median over processes; "-": not in that run\'s file):', '', byNode, '')
  const ids = clientsOf(Object.assign({}, ...[...e2eRuns, ...memoryRuns].map((r) => r.json.clients)))
  for (const node of versions) {
    const e2e = e2eRuns.find((r) => r.json.environment.node === node)
    const memory = memoryRuns.find((r) => r.json.environment.node === node)
    const labels = { ...(memory?.json.clients ?? {}), ...(e2e?.json.clients ?? {}) }
    // '-': the file does not hold the client; FAILED: the client failed verification; n/a: the file
    // holds no such figure (older files: no cold figures).
    const cell = (r, value) => r === undefined ? '-' : !r.verified ? 'FAILED' : value || 'n/a'
    const rows = []
    if (e2e) {
      for (const [name, w] of Object.entries(e2e.json.workloads)) {
        rows.push([`${w.title}, events/s`, ...ids.map((c) => cell(w.clients[c], w.clients[c]?.eventsPerSecond && spread(w.clients[c].eventsPerSecond, fmtRate))),
          e2eRatio(e2e, name, 'undici', 'eventsPerSecond')])
        if (Object.values(w.clients).some((r) => r.cold)) {
          rows.push(['the same, first connection of a fresh process (cold), events/s', ...ids.map((c) => cell(w.clients[c], w.clients[c]?.cold && spread(w.clients[c].cold.eventsPerSecond, fmtRate))),
            w.clients.ours?.cold && w.clients.undici?.cold
              ? ratioCell(w.clients.ours.cold.eventsPerSecond.median / w.clients.undici.cold.eventsPerSecond.median,
                pairRatios(e2eRounds(e2e, name, 'ours', 'eventsPerSecond', 'cold'), e2eRounds(e2e, name, 'undici', 'eventsPerSecond', 'cold')))
              : ''])
        }
        if (name === 'small') rows.push(['client CPU per small event', ...ids.map((c) => cell(w.clients[c], w.clients[c]?.cpuUsPerEvent && spread(w.clients[c].cpuUsPerEvent, fmtUs))), e2eRatio(e2e, name, 'undici', 'cpuUsPerEvent')])
      }
    }
    if (memory) {
      const count = Object.keys(memory.json.counts).at(-1)
      const c = memory.json.counts[count].clients
      const n = Number(count).toLocaleString('en-US')
      rows.push([`heap per idle connection (${n} open)`, ...ids.map((id) => cell(c[id], c[id]?.heapUsedPerConnection && spread(c[id].heapUsedPerConnection, fmtKiB))), memoryRatio(memory, count, 'undici', 'heap')])
      rows.push([`time to open ${n} connections`, ...ids.map((id) => cell(c[id], c[id]?.timeToOpenAllMs && spread(c[id].timeToOpenAllMs, fmtMs))), memoryRatio(memory, count, 'undici', 'open')])
    }
    out.push(`**Whole client, Node ${node}** (median (range); ${[e2e && `\`benchmarks/results/${e2e.file}\``, memory && `\`benchmarks/results/${memory.file}\``].filter(Boolean).join(', ')}):`, '')
    for (const note of new Set([e2e?.json.note, memory?.json.note].filter(Boolean))) out.push(`> Note: ${note}.`, '')
    out.push(table(['', ...ids.map((c) => labels[c] ?? GENERIC_LABEL[c]), 'ours ÷ undici\'s'], rows), '')
    const floor = e2e && messageEventFloor(e2e)
    if (floor) out.push(floor, '')
    const svg = `whole-client-${node}.svg`
    if (existsSync(`${resultsDir}/${svg}`)) out.push(`![whole-client benchmark chart, Node ${node}](benchmarks/results/${svg})`, '')
  }
  return out.join('\n')
}
