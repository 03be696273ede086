// Rewrites the table of ./README.md from the committed results (../results/server-redis-<node>.json), between
// its markers; `--check` only says whether it is up to date (exit 1 if not).
//
//   node benchmarks/server-redis/report.mjs [--check]

import fs from 'node:fs'
import path from 'node:path'

const here = path.dirname(new URL(import.meta.url).pathname)
const results = path.join(here, '..', 'results')
const readme = path.join(here, 'README.md')
const START = '<!-- server-redis:start -->'
const END = '<!-- server-redis:end -->'

const format = (n) => n.toLocaleString('en-US')
const runs = fs.readdirSync(results).filter((name) => /^server-redis-v[\d.]+\.json$/.test(name)).sort()
  .map((name) => JSON.parse(fs.readFileSync(path.join(results, name), 'utf8')))

const lines = [
  '| Node | set-up | p50 / p99 latency, 40 events/s | deliveries/s, bursts | p50 / p99 latency in bursts |',
  '| --- | --- | --- | --- | --- |'
]
for (const run of runs) {
  for (const [name, figures] of [['one process, a Channel', run.channel], ['three processes, a RedisChannel', run.redis3]]) {
    const { latency, throughput } = figures
    const range = (part, key) => {
      const values = (figures.rounds ?? []).map((round) => round[part][key])
      return values.length > 1 ? ` (${format(Math.min(...values))}–${format(Math.max(...values))})` : ''
    }
    lines.push(`| ${run.node} | ${name} | ${latency.p50Ms} / ${latency.p99Ms} ms | ` +
      `${format(throughput.deliveriesPerSecond)}${range('throughput', 'deliveriesPerSecond')} | ` +
      `${throughput.p50Ms} / ${throughput.p99Ms} ms |`)
  }
}
lines.push('', '| Node | Redis | data per event | Redis memory per entry (used_memory) | MEMORY USAGE per entry |',
  '| --- | --- | --- | --- | --- |')
for (const run of runs) {
  for (const memory of run.memory) {
    lines.push(`| ${run.node} | ${run.redis} | ${memory.dataBytes} B | ${memory.usedMemoryPerEntry} B | ` +
      `${memory.memoryUsagePerEntry} B |`)
  }
}
lines.push('', runs.map((run) => `${run.node}: \`${run.command}\`; ${run.machine}; load average ` +
  `${run.loadAverage.join(', ')} at the start.`).join('\n\n'))

const text = fs.readFileSync(readme, 'utf8')
const start = text.indexOf(START)
const end = text.indexOf(END)
const updated = `${text.slice(0, start + START.length)}\n${lines.join('\n')}\n${text.slice(end)}`
if (process.argv.includes('--check')) {
  console.log(updated === text ? 'benchmarks/server-redis/README.md: up to date' : 'benchmarks/server-redis/README.md: stale')
  process.exitCode = updated === text ? 0 : 1
} else {
  fs.writeFileSync(readme, updated)
}
