// The whole-client sections of the report (../report.mjs): throughput (results/e2e-<node>.json) and
// idle connections (results/memory-<node>.json), as benchmarks/README.md tables and the summary of docs/performance.md.
// Ratios are ratios of medians; their range is that of the per-round ratios (round p pairs the p-th
// process of each client: the runners interleave processes across clients).

import { existsSync } from 'node:fs'
import {
  table, spread, ratioCell, median, runHeading, plural, fmtRate, fmtUs, fmtKiB, fmtMs, fmtNs
} from './format.mjs'
import { E2E_TARGETS, targetRatio } from '../e2e/targets.mjs'

const ORDER = ['ours', 'ours+diagnostics', 'undici', 'eventsource', 'floor']
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

/**
 * Per round (process), one client's value of a throughput metric: 'warm' is the median of the
 * process's timed runs, 'cold' its first connection. Files written before the runner recorded
 * processes: the timed runs are cut into processes when none is missing.
 */
function e2eRounds (run, workload, client, metric, phase) {
  const c = run.json.workloads[workload]?.clients[client]
  if (!c) return null
  if (c.processes) return new Map(c.processes.filter((p) => p[phase]).map((p) => [p.round, p[phase][metric]]))
  const { processes, runsPerProcess } = run.json.samples
  if (phase !== 'warm' || c.timed.length !== processes * runsPerProcess) return null
  const events = run.json.workloads[workload].events
  const value = (t) => metric === 'eventsPerSecond' ? events / (t.ns / 1e9) : t.cpuUs / events
  const out = new Map()
  for (let p = 0; p < processes; p++) out.set(p, median(c.timed.slice(p * runsPerProcess, (p + 1) * runsPerProcess).map(value)))
  return out
}

function pairRatios (a, b) {
  if (a == null || b == null) return null
  return [...a.keys()].filter((k) => b.has(k)).map((k) => a.get(k) / b.get(k))
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

function e2eTargets (run) {
  const rows = []
  for (const t of E2E_TARGETS) {
    const ratio = targetRatio(run.json.workloads, t)
    if (ratio === null) continue
    // Per-round ranges pair each process's warm or cold figure; 'all' has warm's rounds.
    const phase = t.phase === 'cold' ? 'cold' : 'warm'
    const rounds = pairRatios(e2eRounds(run, t.workload, 'ours', 'eventsPerSecond', phase), e2eRounds(run, t.workload, t.peer, 'eventsPerSecond', phase))
    rows.push([t.what, ratioCell(ratio, rounds), `>= ${t.goal}x`, ratio >= t.goal ? 'met' : 'MISSED'])
  }
  return rows.length ? table(['target', 'ratio of medians', 'goal', 'status'], rows) : null
}

/** benchmarks/README.md: every e2e file's tables, oldest Node first. */
export function e2eSection (runs, resultsDir) {
  if (runs.length === 0) return '_No results/e2e-*.json yet: run `npm run bench:e2e`._'
  const out = []
  for (const run of runs) {
    out.push(`#### Throughput, Node ${run.json.environment.node}`, '', e2eHeading(run), '')
    for (const [name, w] of Object.entries(run.json.workloads)) {
      out.push(`**${w.title}** (median (range) over all timed runs, after each process's warm-up):`, '', throughputTable(run, name), '')
      const cw = coldWarmTable(run, name)
      out.push(cw === null
        ? '_Cold and warm separately: not recorded in this file (written before the runner timed each process\'s first connection)._'
        : `**${w.title}, cold and warm** (cold: each process's first connection; warm: each process's median of its timed runs; median (range) over processes):\n\n${cw}`, '')
    }
    if (run.json.hotPath) out.push('**Per-event costs on the hot path** (same run):', '', hotPathTable(run.json.hotPath), '')
    const targets = e2eTargets(run)
    if (targets) out.push('**Targets:**', '', targets, '')
    const svg = `whole-client-${run.json.environment.node}.svg`
    if (existsSync(`${resultsDir}/${svg}`)) out.push(`![whole-client benchmark chart, Node ${run.json.environment.node}](results/${svg})`, '')
  }
  return out.join('\n')
}

// ---- idle connections ----

export function memoryHeading (run) {
  return wholeClientHeading(run, `${plural(run.json.repeat, 'process')} per client and count`)
}

/** Per round, one client's value of an idle metric (samples are in round order when none failed). */
function memoryRounds (run, count, client, pick) {
  const c = run.json.counts[count]?.clients[client]
  if (!c || c.failures?.length || c.samples.length !== run.json.repeat) return null
  return new Map(c.samples.map((s, i) => [i, pick(s)]))
}

const IDLE = {
  heap: { key: 'heapUsedPerConnection', pick: (s) => s.perConnection.heapUsed },
  open: { key: 'timeToOpenAllMs', pick: (s) => s.allEventsMs },
  cpu: { key: 'openCpuMs', pick: (s) => s.openCpuMs }
}

function memoryRatio (run, count, client, metric) {
  const c = run.json.counts[count].clients
  const { key, pick } = IDLE[metric]
  if (client === 'ours' || !c.ours?.verified || !c[client]?.verified) return ''
  return ratioCell(c.ours[key].median / c[client][key].median, pairRatios(memoryRounds(run, count, 'ours', pick), memoryRounds(run, count, client, pick)))
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

function memoryTargets (run) {
  const rows = []
  const ok = (count) => run.json.counts[count]?.clients.ours?.verified && run.json.counts[count]?.clients.undici?.verified
  for (const count of Object.keys(run.json.counts)) {
    if (!ok(count)) continue
    const c = run.json.counts[count].clients
    const ratio = c.ours.heapUsedPerConnection.median / c.undici.heapUsedPerConnection.median
    rows.push([`idle heap/conn at ${count}: ours ÷ undici EventSource`, memoryRatio(run, count, 'undici', 'heap'), '<= 0.3x', ratio <= 0.3 ? 'met' : 'MISSED'])
  }
  if (ok('5000')) {
    const c = run.json.counts['5000'].clients
    const ratio = c.ours.timeToOpenAllMs.median / c.undici.timeToOpenAllMs.median
    rows.push(['time to open 5,000: ours ÷ undici EventSource', memoryRatio(run, '5000', 'undici', 'open'), '<= 0.6x', ratio <= 0.6 ? 'met' : 'MISSED'])
  }
  return rows.length ? table(['target', 'ratio of medians', 'goal', 'status'], rows) : null
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
    const targets = memoryTargets(run)
    if (targets) out.push('**Targets:**', '', targets, '')
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

// What no spec-exact EventSource goes below per event: a MessageEvent of the runtime's own (the global
// one) built and dispatched to one listener, from the hot-path benchmark of the same run, set against
// our CPU per small event; and what undici's EventSource builds instead (its own MessageEvent class,
// which is not the global one).
function messageEventFloor (run) {
  const perEvent = run.json.hotPath?.perEvent
  const dispatched = perEvent?.['EventTarget: dispatchEvent(new MessageEvent(...))']
  const built = perEvent?.['new MessageEvent(type, { data, origin, lastEventId })']
  const fast = perEvent?.['undici createFastMessageEvent(type, { data, origin, lastEventId })']
  const ours = run.json.workloads.small?.clients.ours?.cpuUsPerEvent?.median
  if (!dispatched || !built || ours === undefined) return null
  const share = (100 * dispatched.p50Ns / (ours * 1000)).toFixed(0)
  return `The floor per event on ${run.json.environment.node}: Node's global \`MessageEvent\` costs ${fmtNs(built.p50Ns)} to build ` +
    `and ${fmtNs(dispatched.p50Ns)} built and dispatched to one listener (p50, hot-path benchmark of the same run), ` +
    `${share} % of our ${fmtUs(ours)} of CPU per small event. A spec-exact EventSource dispatches that class; ` +
    (fast ? `undici's builds its own (\`createFastMessageEvent\`, ${fmtNs(fast.p50Ns)}), which is not \`instanceof MessageEvent\`.` : '')
}

/** docs/performance.md: one table per Node version with an e2e or memory file: the headline figures. */
export function wholeClientSummary (e2eRuns, memoryRuns, resultsDir) {
  const versions = [...new Set([...e2eRuns, ...memoryRuns].map((r) => r.json.environment.node))]
  if (versions.length === 0) return '_No whole-client results yet._'
  const out = []
  for (const node of versions) {
    const e2e = e2eRuns.find((r) => r.json.environment.node === node)
    const memory = memoryRuns.find((r) => r.json.environment.node === node)
    const labels = { ...(memory?.json.clients ?? {}), ...(e2e?.json.clients ?? {}) }
    const ids = clientsOf(labels)
    const rows = []
    if (e2e) {
      for (const [name, w] of Object.entries(e2e.json.workloads)) {
        rows.push([`${w.title}, events/s`, ...ids.map((c) => w.clients[c]?.verified ? spread(w.clients[c].eventsPerSecond, fmtRate) : 'n/a'),
          e2eRatio(e2e, name, 'undici', 'eventsPerSecond')])
        if (Object.values(w.clients).some((r) => r.cold)) {
          rows.push(['the same, first connection of a fresh process (cold), events/s', ...ids.map((c) => w.clients[c]?.cold ? spread(w.clients[c].cold.eventsPerSecond, fmtRate) : 'n/a'),
            w.clients.ours?.cold && w.clients.undici?.cold
              ? ratioCell(w.clients.ours.cold.eventsPerSecond.median / w.clients.undici.cold.eventsPerSecond.median,
                pairRatios(e2eRounds(e2e, name, 'ours', 'eventsPerSecond', 'cold'), e2eRounds(e2e, name, 'undici', 'eventsPerSecond', 'cold')))
              : ''])
        }
        if (name === 'small') rows.push(['client CPU per small event', ...ids.map((c) => w.clients[c]?.verified ? spread(w.clients[c].cpuUsPerEvent, fmtUs) : 'n/a'), e2eRatio(e2e, name, 'undici', 'cpuUsPerEvent')])
      }
    }
    if (memory) {
      const count = Object.keys(memory.json.counts).at(-1)
      const c = memory.json.counts[count].clients
      const n = Number(count).toLocaleString('en-US')
      rows.push([`heap per idle connection (${n} open)`, ...ids.map((id) => c[id]?.verified ? spread(c[id].heapUsedPerConnection, fmtKiB) : 'n/a'), memoryRatio(memory, count, 'undici', 'heap')])
      rows.push([`time to open ${n} connections`, ...ids.map((id) => c[id]?.verified ? spread(c[id].timeToOpenAllMs, fmtMs) : 'n/a'), memoryRatio(memory, count, 'undici', 'open')])
    }
    out.push(`**Whole client, Node ${node}** (median (range); ${[e2e && `\`benchmarks/results/${e2e.file}\``, memory && `\`benchmarks/results/${memory.file}\``].filter(Boolean).join(', ')}):`, '')
    for (const note of new Set([e2e?.json.note, memory?.json.note].filter(Boolean))) out.push(`> Note: ${note}.`, '')
    out.push(table(['', ...ids.map((c) => labels[c]), 'ours ÷ undici\'s'], rows), '')
    const floor = e2e && messageEventFloor(e2e)
    if (floor) out.push(floor, '')
    const svg = `whole-client-${node}.svg`
    if (existsSync(`${resultsDir}/${svg}`)) out.push(`![whole-client benchmark chart, Node ${node}](benchmarks/results/${svg})`, '')
  }
  return out.join('\n')
}
