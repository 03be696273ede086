// Cold start: `npm run bench:startup`.
//
// How long a fresh Node process takes from its start to the first event of a loopback stream, for
// ours, undici's EventSource, Node's global EventSource (where this Node has it), the eventsource
// package and a bare node:http GET (the floor); and how long `ssecat --count 1 <url>` takes to exit.
// Every sample is a new process (./sample.mjs), timed twice:
//   parent: process.hrtime just before spawn() -> the child's line on stdout (its first event), or its
//           exit for ssecat: everything, exec and Node's own start-up included;
//   child:  the child's performance.now() at that point, i.e. from its performance.timeOrigin (set as
//           Node starts) to the first event: what the process itself can see.
// Samples are interleaved (round r runs every client once, the order rotated by r) so that load
// changes on a shared machine hit every client. The server runs here, in the parent, on 127.0.0.1
// port 0: each sample gets its own URL and event, and a child that prints another event fails.
//
//   npm run bench:startup
//   node benchmarks/startup/run.mjs [--processes 20] [--warmup 1] [--clients ours,undici,...]
//                                   [--json path] [--note text]
//   npx -y node@26 benchmarks/startup/run.mjs
//
// --processes: timed processes per client; --warmup: untimed processes per client first (so every
// client's files are in the OS page cache, as for any repeated start); --note: stored in the JSON and
// printed by the report (e.g. "quick run, loaded machine").

import http from 'node:http'
import os from 'node:os'
import { fileURLToPath } from 'node:url'
import { environment, summarize, median, table, fmtRatio, verdict, saveResults, option } from '../e2e/common.mjs'
import { CLIENTS, PEERS, available, clientLabel } from './clients.mjs'
import { sample } from './sample.mjs'

const root = fileURLToPath(new URL('../..', import.meta.url))
const argv = process.argv.slice(2)
const processes = Number(option('--processes', '20'))
const warmup = Number(option('--warmup', '1'))
const wanted = option('--clients', CLIENTS.join(',')).split(',')
const jsonPath = option('--json', `${root}benchmarks/results/startup-${process.version}.json`)
const note = option('--note', null)
const clients = available(wanted)
for (const id of wanted) if (!CLIENTS.includes(id)) throw new Error(`unknown client ${id}`)

const env = environment()
const labels = Object.fromEntries(clients.map((c) => [c, clientLabel(c)]))
console.log(`cold start to the first event: node ${env.node} (v8 ${env.v8}), ${env.platform}`)
console.log(`cpu: ${env.cpu}, ${env.cores} logical cores, ${env.memory}; load average ${env.loadavg.join(' ')}`)
console.log(`measuring: ${env.git === null ? 'lib/ (not a git checkout)' : `lib/ at ${env.git.commit}${env.git.libModified ? ' with uncommitted changes' : ''}`}`)
console.log(`clients: ${clients.map((c) => labels[c]).join('; ')}`)
if (wanted.includes('node') && !clients.includes('node')) console.log(`(Node ${process.version} has no global EventSource: not measured)`)
console.log(`samples: ${processes} processes per client, interleaved, after ${warmup} untimed per client${note ? `; note: ${note}` : ''}`)
console.log('')

// ---- server ----

// GET /first?i=<n>: the headers and one event, `data: startup <n>`, then nothing until the client goes.
const server = http.createServer((req, res) => {
  const i = new URL(req.url, 'http://127.0.0.1').searchParams.get('i')
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
  res.write(`data: startup ${i}\n\n`)
})
server.keepAliveTimeout = 0
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
const base = `http://127.0.0.1:${server.address().port}`

let next = 0
function once (client) {
  const i = next++
  return sample(client, `${base}/first?i=${i}`, `startup ${i}`)
}

// ---- samples ----

for (let w = 0; w < warmup; w++) {
  for (const client of clients) {
    const s = await once(client)
    if (s.error !== null) console.log(`  warm-up ${labels[client]}: ${s.error}`)
  }
}

const per = Object.fromEntries(clients.map((c) => [c, []]))
for (let round = 0; round < processes; round++) {
  const order = clients.map((_, k) => clients[(k + round) % clients.length])
  const line = []
  for (const client of order) {
    const s = await once(client)
    per[client].push({ round, ...s })
    line.push(s.error === null ? `${client} ${s.parentMs.toFixed(1)}/${s.childMs.toFixed(1)}` : `${client} FAILED: ${s.error}`)
  }
  console.log(`  round ${String(round + 1).padStart(2)}/${processes} (parent/child ms): ${line.join(', ')}`)
}
server.close()
server.closeAllConnections?.()
console.log('')

// ---- summaries, ratios, target ----

const results = {}
for (const client of clients) {
  const ok = per[client].filter((s) => s.error === null)
  results[client] = {
    label: labels[client],
    until: client === 'ssecat' ? 'exit' : 'first event',
    verified: ok.length === per[client].length && ok.length > 0,
    failures: per[client].filter((s) => s.error !== null).map((s) => s.error),
    parentMs: ok.length ? summarize(ok.map((s) => s.parentMs)) : null,
    childMs: ok.length ? summarize(ok.map((s) => s.childMs)) : null,
    samples: per[client]
  }
}

// ours ÷ the fastest peer (by median), on each clock; the range is that of the per-round ratios.
function ratio (key) {
  const peers = PEERS.filter((p) => results[p]?.[key] != null)
  if (results.ours?.[key] == null || peers.length === 0) return null
  const fastest = peers.reduce((a, b) => (results[b][key].median < results[a][key].median ? b : a))
  const rounds = []
  for (let r = 0; r < processes; r++) {
    const o = per.ours[r]
    const f = per[fastest][r]
    if (o.error === null && f.error === null) rounds.push(o[key] / f[key])
  }
  const value = results.ours[key].median / results[fastest][key].median
  return { fastestPeer: fastest, ratio: value, perRound: rounds.length ? { median: median(rounds), min: Math.min(...rounds), max: Math.max(...rounds) } : null }
}
const ratios = { parentMs: ratio('parentMs'), childMs: ratio('childMs') }
const targets = []
for (const [key, clock] of [['parentMs', 'spawn → first event (parent)'], ['childMs', 'timeOrigin → first event (child)']]) {
  const r = ratios[key]
  if (r === null) continue
  targets.push({
    description: `${clock}: ours ÷ fastest peer (${r.fastestPeer})`,
    ratio: r.ratio,
    goal: '<= 1x',
    status: verdict(r.ratio, 1, false)
  })
}

// ---- tables ----

const ms = (x) => `${x.toFixed(1)} ms`
const range = (s) => `${s.min.toFixed(1)}–${s.max.toFixed(1)}`
const rows = clients.map((c) => {
  const r = results[c]
  if (r.parentMs === null) return [r.label, r.until, 'FAILED', '', '', '', '']
  const vs = (key) => c !== 'ours' && PEERS.includes(c) && results.ours?.[key] ? fmtRatio(results.ours[key].median / r[key].median) : ''
  return [r.label, r.until, ms(r.parentMs.median), range(r.parentMs), ms(r.childMs.median), range(r.childMs), vs('parentMs')]
})
const tables = {
  startup: table(['client', 'until', 'spawn → (parent), median', 'range', 'timeOrigin → (child), median', 'range', 'ours ÷ this (parent)'], rows),
  targets: targets.length ? table(['target', 'ratio', 'goal', 'status'], targets.map((t) => [t.description, fmtRatio(t.ratio), t.goal, t.status])) : null
}
console.log(tables.startup)
console.log('')
if (tables.targets !== null) console.log(tables.targets)
for (const [key, r] of Object.entries(ratios)) {
  if (r?.perRound) console.log(`${key}: per-round ratio ours ÷ ${r.fastestPeer}: median ${fmtRatio(r.perRound.median)}, range ${fmtRatio(r.perRound.min)}–${fmtRatio(r.perRound.max)}`)
}

const output = {
  benchmark: 'startup',
  command: 'npm run bench:startup',
  argv,
  date: new Date().toISOString(),
  note,
  environment: { ...env, loadavgAfter: os.loadavg().map((x) => Number(x.toFixed(2))) },
  clients: labels,
  samples: { processes, warmup },
  verifiedAll: Object.values(results).every((r) => r.verified),
  results,
  ratios,
  targets,
  tables
}
await saveResults(jsonPath, output, { chart: false })
