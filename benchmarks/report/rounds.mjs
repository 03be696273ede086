// Per-round values and ratios of the whole-client results, shared by the report's sections
// (./whole-client.mjs, ./targets.mjs). A round pairs the p-th process of each client: the runners
// interleave processes across clients, so a round's clients ran next to each other.

import { median, ratioCell } from './format.mjs'

/**
 * Per round (process), one client's value of a throughput metric: 'warm' is the median of the
 * process's timed runs, 'cold' its first connection. Files written before the runner recorded
 * processes: the timed runs are cut into processes when none is missing.
 */
export function e2eRounds (run, workload, client, metric, phase) {
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

export function pairRatios (a, b) {
  if (a == null || b == null) return null
  return [...a.keys()].filter((k) => b.has(k)).map((k) => a.get(k) / b.get(k))
}

/** Per round, one client's value of an idle metric (samples are in round order when none failed). */
export function memoryRounds (run, count, client, pick) {
  const c = run.json.counts[count]?.clients[client]
  if (!c || c.failures?.length || c.samples.length !== run.json.repeat) return null
  return new Map(c.samples.map((s, i) => [i, pick(s)]))
}

export const IDLE = {
  heap: { key: 'heapUsedPerConnection', pick: (s) => s.perConnection.heapUsed },
  open: { key: 'timeToOpenAllMs', pick: (s) => s.allEventsMs },
  cpu: { key: 'openCpuMs', pick: (s) => s.openCpuMs }
}

/**
 * `base` ÷ `client` for an idle metric, with the range of the per-round ratios; base: ours unless given;
 * `per` labels the range (null: a caption says what it is).
 */
export function memoryRatio (run, count, client, metric, base = 'ours', per = 'per round') {
  const c = run.json.counts[count].clients
  const { key, pick } = IDLE[metric]
  if (client === base || !c[base]?.verified || !c[client]?.verified) return ''
  return ratioCell(c[base][key].median / c[client][key].median, pairRatios(memoryRounds(run, count, base, pick), memoryRounds(run, count, client, pick)), per)
}
