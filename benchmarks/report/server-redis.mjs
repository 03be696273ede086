// The Redis backplane's section of the report (../report.mjs), from results/server-redis-<node>.json
// (../server-redis/run.mjs), for ../server-redis/README.md: per Node version, each set-up's latencies and
// deliveries per second (medians of the rounds, the range in brackets), three processes on a RedisChannel ÷
// one process's Channel (a ratio of medians, with the range of the per-round ratios: round i of each set-up
// ran one after the other), then the Redis memory an entry of the stream takes.

import { ratioCell } from './format.mjs'

const SETUPS = [['channel', 'one process, a Channel'], ['redis3', 'three processes, a RedisChannel']]

const format = (n) => n.toLocaleString('en-US')
const ms = (x) => `${x.toFixed(2)}`

function range (values, show) {
  return values.length > 1 ? ` (${show(Math.min(...values))}–${show(Math.max(...values))})` : ''
}

// redis3 ÷ channel of one figure: the ratio of the medians, and the range of the rounds' ratios.
function ratio (run, pick) {
  const rounds = run.redis3.rounds.map((round, i) => pick(round) / pick(run.channel.rounds[i]))
  return ratioCell(pick(run.redis3) / pick(run.channel), rounds, null)
}

/** @param {{ file: string, version: string, json: object }[]} runs */
export function serverRedisSection (runs) {
  const deliveries = (figures) => figures.throughput.deliveriesPerSecond
  const latencyP50 = (figures) => figures.latency.p50Ms
  const lines = [
    '| Node | set-up | p50 / p99 latency, 40 events/s | deliveries/s, bursts | p50 / p99 latency in bursts |',
    '| --- | --- | --- | --- | --- |'
  ]
  for (const { json: run } of runs) {
    for (const [key, name] of SETUPS) {
      const { latency, throughput, rounds } = run[key]
      lines.push(`| ${run.node} | ${name} | ${ms(latency.p50Ms)} / ${ms(latency.p99Ms)} ms | ` +
        `${format(throughput.deliveriesPerSecond)}${range(rounds.map(deliveries), format)} | ` +
        `${ms(throughput.p50Ms)} / ${ms(throughput.p99Ms)} ms |`)
    }
  }
  const caption = 'Three processes on a RedisChannel ÷ one process\'s Channel (above 1: more deliveries, or a longer ' +
    'latency; in brackets, the range of the rounds\' ratios):'
  lines.push('', caption, '', '| Node | deliveries/s, bursts | p50 latency, 40 events/s |', '| --- | --- | --- |')
  for (const { json: run } of runs) lines.push(`| ${run.node} | ${ratio(run, deliveries)} | ${ratio(run, latencyP50)} |`)
  lines.push('', '| Node | Redis | data per event | Redis memory per entry (used_memory) | MEMORY USAGE per entry |',
    '| --- | --- | --- | --- | --- |')
  for (const { json: run } of runs) {
    for (const memory of run.memory) {
      lines.push(`| ${run.node} | ${run.redis} | ${memory.dataBytes} B | ${memory.usedMemoryPerEntry} B | ` +
        `${memory.memoryUsagePerEntry} B |`)
    }
  }
  lines.push('', 'Runs:', '', ...runs.map(({ file, json: run }) => `- \`results/${file}\`, \`${run.command}\`; ${run.machine}; ` +
    `load average ${run.loadAverage.join(', ')} at the start${run.note ? `; ${run.note}` : ''}.`))
  return lines.join('\n')
}
