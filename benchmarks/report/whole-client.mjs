// The whole-client sections of the report (../report.mjs): throughput (results/e2e-<node>.json) and
// idle connections (results/memory-<node>.json), as benchmarks/README.md tables and the summary of docs/performance.md.
// Ratios are ratios of medians; their range is that of the per-round ratios (round p pairs the p-th
// process of each client: the runners interleave processes across clients).

import { existsSync } from 'node:fs'
import {
  table, spread, ratioCell, runHeading, plural, fmtRate, fmtUs, fmtKiB, fmtMs, fmtNs
} from './format.mjs'
import { e2eRounds, pairRatios, memoryRatio } from './rounds.mjs'
import { e2eTargetTable, e2eTargetsByNode, memoryTargetTable } from './targets.mjs'

const ORDER = ['ours', 'ours+diagnostics', 'ours+agent', 'undici', 'undici8', 'node', 'eventsource', 'eventsource5', 'floor']
const clientsOf = (obj) => ORDER.filter((c) => obj[c] !== undefined)

// The heading of a run of either whole-client runner (in cleartext or --tls): all record the same
// environment; `samples` says how that runner took its samples.
export function wholeClientHeading (run, samples) {
  const env = run.json.environment
  return runHeading({
    file: run.file,
    node: env.node,
    v8: env.v8,
    date: run.json.date,
    git: env.git,
    samples,
    loadavg: [env.loadavg[0], env.loadavgAfter?.[0]].filter((x) => x !== undefined),
    note: run.json.note
  })
}

export function e2eHeading (run) {
  const { samples } = run.json
  return wholeClientHeading(run, `${plural(samples.processes, 'process')} × ${plural(samples.runsPerProcess, 'timed run')} per client`)
}

/** ours ÷ this (or this ÷ ours with `invert`) on a throughput metric, with its per-round range. */
function e2eRatio (run, workload, client, metric, invert = false) {
  const clients = run.json.workloads[workload].clients
  if (client === 'ours' || !clients.ours?.[metric] || !clients[client]?.[metric]) return ''
  const [a, b] = invert ? [client, 'ours'] : ['ours', client]
  const value = clients[a][metric].median / clients[b][metric].median
  return ratioCell(value, pairRatios(e2eRounds(run, workload, a, metric, 'warm'), e2eRounds(run, workload, b, metric, 'warm')))
}

function throughputTable (run, name) {
  const w = run.json.workloads[name]
  const rows = clientsOf(w.clients).map((c) => {
    const r = w.clients[c]
    if (!r.verified || !r.eventsPerSecond) return [r.label, 'FAILED verification', '', '', '', '']
    return [r.label, spread(r.eventsPerSecond, fmtRate), spread(r.mibPerSecond, (x) => x.toFixed(1)), spread(r.cpuUsPerEvent, fmtUs),
      e2eRatio(run, name, c, 'eventsPerSecond'), e2eRatio(run, name, c, 'cpuUsPerEvent', true)]
  })
  return table(['client', 'events/s', 'MiB/s', 'client CPU / event', 'ours ÷ this: events/s', 'this ÷ ours: CPU/event'], rows)
}

function coldWarmTable (run, name) {
  const w = run.json.workloads[name]
  const clients = clientsOf(w.clients)
  if (!clients.some((c) => w.clients[c].cold)) return null
  const rows = clients.map((c) => {
    const { label, cold, warm } = w.clients[c]
    if (!cold || !warm) return [label, 'FAILED', '', '', '']
    return [label, spread(cold.eventsPerSecond, fmtRate), spread(warm.eventsPerSecond, fmtRate), spread(cold.cpuUsPerEvent, fmtUs), spread(warm.cpuUsPerEvent, fmtUs)]
  })
  return table(['client', 'cold events/s', 'warm events/s', 'cold CPU / event', 'warm CPU / event'], rows)
}

function hotPathTable (hotPath) {
  const rows = Object.entries(hotPath.perEvent).map(([name, s]) => [name, fmtNs(s.p50Ns),
    s.maxNs === undefined ? `min ${fmtNs(s.minNs)}, max not recorded` : `${fmtNs(s.minNs)}–${fmtNs(s.maxNs)}`])
  return table(['per event (mitata, one process)', 'p50', 'range (min–max sample)'], rows)
}

/** benchmarks/README.md: every e2e file's tables, oldest Node first. */
export function e2eSection (runs, resultsDir) {
  if (runs.length === 0) return '_No results/e2e-*.json yet: run `npm run bench:e2e`._'
  const out = []
  const byNode = e2eTargetsByNode(runs)
  if (byNode) out.push('#### Targets per Node', '', 'Warm small events/s (each process\'s median of its timed runs, median over processes), every peer and target of issue 28; "-": not in that run\'s file.', '', byNode, '')
  for (const run of runs) {
    out.push(`#### Throughput, Node ${run.json.environment.node}`, '', e2eHeading(run), '')
    // The peers added by issue 28 that this file lacks, grouped by why (the runner records why it left
    // one out; older files predate them).
    const absent = ['undici8', 'node', 'eventsource5'].filter((id) => run.json.clients[id] === undefined)
    const reasons = new Map()
    for (const id of absent) {
      const why = run.json.notMeasured?.find((m) => m.id === id)?.why ?? 'not yet a client of the runner when this file was written'
      reasons.set(why, [...(reasons.get(why) ?? []), GENERIC_LABEL[id]])
    }
    if (reasons.size) out.push(`Not measured in this run: ${[...reasons].map(([why, ids]) => `${ids.join(', ')} (${why})`).join('; ')}.`, '')
    for (const [name, w] of Object.entries(run.json.workloads)) {
      out.push(`**${w.title}** (median (range) over all timed runs, after each process's warm-up):`, '', throughputTable(run, name), '')
      const cw = coldWarmTable(run, name)
      out.push(cw === null
        ? '_Cold and warm separately: not recorded in this file (written before the runner timed each process\'s first connection)._'
        : `**${w.title}, cold and warm** (cold: each process's first connection; warm: each process's median of its timed runs; median (range) over processes):\n\n${cw}`, '')
    }
    if (run.json.hotPath) out.push('**Per-event costs on the hot path** (same run):', '', hotPathTable(run.json.hotPath), '')
    out.push('**Targets (issue 28):**', '', e2eTargetTable(run), '')
    const svg = `whole-client-${run.json.environment.node}.svg`
    if (existsSync(`${resultsDir}/${svg}`)) out.push(`![whole-client benchmark chart, Node ${run.json.environment.node}](results/${svg})`, '')
  }
  return out.join('\n')
}

// ---- idle connections ----

export function memoryHeading (run) {
  return wholeClientHeading(run, `${plural(run.json.repeat, 'process')} per client and count`)
}

function idleTable (run, count) {
  const c = run.json.counts[count].clients
  const rows = clientsOf(c).map((id) => {
    const r = c[id]
    if (!r.verified) return [r.label, 'FAILED verification', '', '', '', '', '', '']
    return [r.label, spread(r.heapUsedPerConnection, fmtKiB), spread(r.rssPerConnection, fmtKiB), spread(r.timeToOpenAllMs, fmtMs),
      spread(r.openCpuMs, fmtMs), memoryRatio(run, count, id, 'heap'), memoryRatio(run, count, id, 'open'), memoryRatio(run, count, id, 'cpu')]
  })
  return table(['client', 'heap used / conn', 'RSS / conn', `time to open ${Number(count).toLocaleString('en-US')}`, 'client CPU to open',
    'ours ÷ this: heap', 'ours ÷ this: open time', 'ours ÷ this: open CPU'], rows)
}

/** benchmarks/README.md: every memory file's tables, oldest Node first. */
export function memorySection (runs) {
  if (runs.length === 0) return '_No results/memory-*.json yet: run `npm run bench:memory`._'
  const out = []
  for (const run of runs) {
    out.push(`#### Idle connections, Node ${run.json.environment.node}`, '', memoryHeading(run), '')
    for (const count of Object.keys(run.json.counts)) {
      out.push(`**${Number(count).toLocaleString('en-US')} idle connections** (per connection = (after − before) / count, after GC; median (range) over processes):`, '', idleTable(run, count), '')
    }
    const targets = memoryTargetTable(run)
    if (targets) out.push('**Target (issue 28):**', '', targets, '')
  }
  return out.join('\n')
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
  return table(['Node', '`new MessageEvent` + `dispatchEvent` (p50)', 'ours, CPU per small event', 'eventsource package',
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

// A client's column heading where a run's file does not hold it (its own label names its version).
const GENERIC_LABEL = {
  'ours+diagnostics': 'ours + diagnostics subscribers',
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
