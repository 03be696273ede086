// Idle connections: `npm run bench:memory`.
//
// The server process (../e2e/server.mjs) answers /idle with the headers and one event, then idles. For
// each client and each count (1,000 and 5,000), one client process (./idle-client.mjs, --expose-gc)
// opens that many connections at once and reports heap used and RSS per connection after GC, and the
// time until all of them have opened and received their event. Each client runs in its own process,
// so heaps do not mix. Every sample first checks that every connection got its own event (count and
// hash); a failed check fails the run.
//
//   npm run bench:memory
//   node benchmarks/memory/run.mjs [--repeat 3] [--counts 1000,5000] [--clients ours,undici]
//                                  [--json path] [--no-chart] [--snapshot dir] [--note text]
//   npm run bench:memory -- --tls   every client over HTTPS/1.1 and over h2 (../e2e/clients.mjs), at
//                                  1,000, 5,000 and 10,000 connections, into memory-tls-<node>.json,
//                                  with the h2 targets of issue 28 (per idle source at most 4 KiB of heap
//                                  and 12 KiB of RSS) next to the floor, a bare node:http2 client stream;
//                                  --transports h2
//                                  measures one of them, and --merge keeps the other variants already
//                                  in the JSON file (so h2 and HTTPS/1.1 can be run with different
//                                  --repeat: 10,000 TLS handshakes per HTTPS/1.1 sample take minutes)
//
// Targets (issue 28), per Node: over HTTP/1.1, ours at most 0.3x undici 7's EventSource's heap per idle
// connection, at each count; with --tls, over h2 at the largest count, ours at most 4 KiB of heap and
// 12 KiB of RSS per idle source, printed next to the floor's (what any h2 client costs at least).
//
// --repeat: processes per (client, count), interleaved across clients; the tables show medians.
// --snapshot dir: each client process also writes a heap snapshot (after the measurement) to dir.
//
// File descriptors: both the server and a client hold one socket per connection. Node raises its own
// soft limit to the hard one; when even that is below what the largest count needs, this script stops
// and says so.

import { createHash } from 'node:crypto'
import { mkdirSync, existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { join } from 'node:path'
import os from 'node:os'
import {
  startServer, runChild, environment, openFileLimit, summarize, table, fmtRatio, fmtKiB, verdict,
  saveResults, option, defaultResultsPath
} from '../e2e/common.mjs'
import { CLIENTS, MEMORY_CLIENTS, TLS_TRANSPORTS, measuredVariants, clientExecArgv } from '../e2e/clients.mjs'
import { MEMORY_TARGET, H2_TARGETS } from './targets.mjs'
import { expectedIdle, idleEventText } from '../e2e/workloads.mjs'

const argv = process.argv.slice(2)
const repeat = Number(option('--repeat', '3'))
const tls = argv.includes('--tls')
const counts = option('--counts', tls ? '1000,5000,10000' : '1000,5000').split(',').map(Number)
const clientIds = option('--clients', (tls ? CLIENTS : MEMORY_CLIENTS).join(',')).split(',')
const jsonPath = option('--json', defaultResultsPath('memory', tls))
const { clients, variantOf, labels, oursOf } = measuredVariants(clientIds, tls, option('--transports', TLS_TRANSPORTS.join(',')).split(','))
const snapshotDir = option('--snapshot', null)
// Stored in the JSON and printed by the report (benchmarks/report.mjs), e.g. "quick run, loaded machine".
const note = option('--note', null)
const WARMUP = 20

// ---- file descriptors ----

// Node raises its soft limit on open files to the hard limit at startup, so `ulimit -n` in the shell
// does not matter here: only the hard limit does, and raising that takes root (ulimit -Hn).
const needed = Math.max(...counts) + WARMUP + 256
const limit = openFileLimit()
if (limit !== null && limit.soft < needed) {
  console.error(`the open-file limit is ${limit.soft} (hard ${limit.hard}); ${needed} are needed for ${Math.max(...counts)} connections.`)
  console.error(`raise the hard limit (as root: ulimit -Hn ${needed}; or LimitNOFILE= / nofile in limits.conf) or pass --counts with smaller counts`)
  process.exit(1)
}

// ---- run ----

const env = environment()
console.log(`idle connections: node ${env.node} (v8 ${env.v8}), ${env.platform}`)
console.log(`cpu: ${env.cpu}, ${env.cores} logical cores, ${env.memory}; load average ${env.loadavg.join(' ')}`)
console.log(`measuring: ${env.git === null ? 'lib/ (not a git checkout)' : `lib/ at ${env.git.commit}${env.git.libModified ? ' with uncommitted changes' : ''}`}`)
console.log(`open-file limit: ${openFileLimit()?.soft ?? 'unknown'}`)
console.log(`clients: ${clients.map((c) => labels[c]).join('; ')}`)
console.log(`counts: ${counts.join(', ')}; ${repeat} processes per client and count (medians below)`)
console.log('')

const server = await startServer()
const script = fileURLToPath(new URL('idle-client.mjs', import.meta.url))
if (snapshotDir) mkdirSync(snapshotDir, { recursive: true })

function expected (client, count) {
  if (client !== 'floor') return expectedIdle(count)
  const hash = createHash('sha256')
  for (let i = 0; i < count; i++) hash.update(idleEventText(i), 'latin1')
  return { count, hash: hash.digest('hex') }
}

const results = {}
let verifiedAll = true
for (const count of counts) {
  console.log(`${count.toLocaleString('en-US')} idle connections:`)
  const samples = Object.fromEntries(clients.map((c) => [c, []]))
  const failures = Object.fromEntries(clients.map((c) => [c, []]))
  for (let r = 0; r < repeat; r++) {
    for (const client of clients) {
      const v = variantOf[client]
      const snapshot = snapshotDir ? join(snapshotDir, `idle-${client.replace(':', '-')}-${count}-${r}.heapsnapshot`) : undefined
      let m
      try {
        m = await runChild(script, { client: v.client, transport: v.transport, base: server.bases[v.transport], count, warmup: WARMUP, snapshot },
          { execArgv: ['--expose-gc', '--no-warnings', ...clientExecArgv(v.client)], timeout: tls ? 900_000 : undefined })
      } catch (err) {
        m = { error: err.message }
      }
      if (m.error !== undefined) {
        verifiedAll = false
        failures[client].push(m.error)
        console.log(`  ${labels[client]}: FAILED: ${m.error}`)
        continue
      }
      const want = expected(v.client, count)
      if (m.ok !== count || m.hash !== want.hash) {
        verifiedAll = false
        failures[client].push(`${m.ok}/${count} connections got their event, hash ${m.hash === want.hash ? 'ok' : 'differs'}`)
        console.log(`  ${labels[client]}: VERIFICATION FAILED: ${failures[client].at(-1)}`)
        continue
      }
      samples[client].push(m)
      const p = m.perConnection
      console.log(`  ${labels[client].padEnd(34)} verified (${count} events, hash ${want.hash.slice(0, 12)}…); ` +
        `heap ${fmtKiB(p.heapUsed)}/conn, RSS ${fmtKiB(p.rss)}/conn, all open in ${m.allEventsMs.toFixed(0)} ms (client CPU ${m.openCpuMs.toFixed(0)} ms)`)
    }
  }
  const entry = { count, clients: {} }
  for (const client of clients) {
    const s = samples[client]
    const per = (key) => s.length ? summarize(s.map((m) => m.perConnection[key])) : null
    entry.clients[client] = {
      label: labels[client],
      verified: failures[client].length === 0 && s.length > 0,
      failures: failures[client],
      heapUsedPerConnection: per('heapUsed'),
      rssPerConnection: per('rss'),
      externalPerConnection: per('external'),
      arrayBuffersPerConnection: per('arrayBuffers'),
      timeToOpenAllMs: s.length ? summarize(s.map((m) => m.allEventsMs)) : null,
      timeToAllOpenEventsMs: s.length ? summarize(s.map((m) => m.allOpenMs)) : null,
      openCpuMs: s.length ? summarize(s.map((m) => m.openCpuMs)) : null,
      samples: s.map(({ before, after, perConnection, allOpenMs, allEventsMs, openCpuMs }) => ({ before, after, perConnection, allOpenMs, allEventsMs, openCpuMs }))
    }
  }
  results[count] = entry
  console.log('')
}
server.child.send({ type: 'exit' })

// --merge: the variants of the existing file that this run did not measure stay, with their own repeat.
const repeatByVariant = tls ? Object.fromEntries(clients.map((c) => [c, repeat])) : undefined
if (argv.includes('--merge') && existsSync(jsonPath)) {
  const previous = JSON.parse(readFileSync(jsonPath, 'utf8'))
  for (const [count, entry] of Object.entries(previous.counts)) {
    // A count this run did not measure keeps its entry as it was.
    results[count] ??= { count: entry.count, clients: {} }
    for (const [id, client] of Object.entries(entry.clients)) {
      if (results[count].clients[id] !== undefined) continue
      results[count].clients[id] = client
      labels[id] = previous.clients[id]
      if (!clients.includes(id)) clients.push(id)
      repeatByVariant[id] = previous.repeatByVariant?.[id] ?? previous.repeat
      variantOf[id] = previous.variants[id]
    }
  }
}

// Every count in the results (with --merge, those of the file too).
const allCounts = Object.keys(results).map(Number)

// ---- tables, ratios, targets ----

const ok = (count, c) => results[count]?.clients[c]?.verified === true
const heap = (count, c) => results[count].clients[c].heapUsedPerConnection.median
const openMs = (count, c) => results[count].clients[c].timeToOpenAllMs.median
const openCpu = (count, c) => results[count].clients[c].openCpuMs.median

const tables = {}
for (const count of allCounts) {
  const rows = clients.filter((c) => results[count].clients[c] !== undefined).map((c) => {
    const r = results[count].clients[c]
    if (!r.verified) return [r.label, 'FAILED verification', '', '', '', '', '', '', '']
    const vsOurs = (f) => ok(count, oursOf(c)) && c !== oursOf(c) ? fmtRatio(f(oursOf(c)) / f(c)) : ''
    return [
      r.label,
      fmtKiB(r.heapUsedPerConnection.median),
      fmtKiB(r.rssPerConnection.median),
      fmtKiB(r.externalPerConnection.median),
      `${r.timeToOpenAllMs.median.toFixed(0)} ms`,
      `${r.openCpuMs.median.toFixed(0)} ms`,
      vsOurs((x) => heap(count, x)),
      vsOurs((x) => openMs(count, x)),
      vsOurs((x) => openCpu(count, x))
    ]
  })
  tables[count] = table(['client', 'heap used / conn', 'RSS / conn', 'external / conn', `time to open ${count}`, 'client CPU to open',
    'ours ÷ this: heap', 'ours ÷ this: open time', 'ours ÷ this: open CPU'], rows)
}

const targets = []
for (const count of tls ? [] : allCounts) {
  if (!ok(count, 'ours') || !ok(count, 'undici')) continue
  const ratio = heap(count, 'ours') / heap(count, 'undici')
  targets.push({
    description: `idle heap/conn at ${count}: ours ÷ ${labels.undici} (ours ${fmtKiB(heap(count, 'ours'))}, undici ${fmtKiB(heap(count, 'undici'))})`,
    ratio,
    goal: `<= ${MEMORY_TARGET.goal}x`,
    status: verdict(ratio, MEMORY_TARGET.goal, false)
  })
  // Information, not the target: the same ratio with ours on the Agent undici's EventSource runs on.
  if (!ok(count, 'ours+agent')) continue
  const onAgent = heap(count, 'ours+agent') / heap(count, 'undici')
  targets.push({
    description: `(information) idle heap/conn at ${count}: ${labels['ours+agent']} ÷ ${labels.undici} (${fmtKiB(heap(count, 'ours+agent'))})`,
    ratio: onAgent,
    goal: '-',
    status: '-'
  })
}

// Over h2, at the largest count: absolute figures, not ratios, with the floor's beside them.
const most = Math.max(...allCounts)
if (tls && ok(most, 'h2:ours')) {
  const r = results[most].clients['h2:ours']
  const floor = ok(most, 'h2:floor') ? results[most].clients['h2:floor'] : null
  for (const t of H2_TARGETS) {
    const value = r[t.key].median / 1024
    targets.push({
      description: `${t.what} over h2 at ${most.toLocaleString('en-US')} (ours)`,
      value,
      goal: `<= ${t.goal} KiB`,
      status: value <= t.goal ? 'met' : 'MISSED',
      shown: `${value.toFixed(2)} KiB`,
      floor: floor === null ? null : floor[t.key].median / 1024
    })
  }
}

for (const count of allCounts) {
  console.log(`${count.toLocaleString('en-US')} idle connections (medians; per connection = (after - before) / count, after GC):`)
  console.log(tables[count])
  console.log('')
}
tables.targets = tls
  ? table(['target (issue 28)', 'value', 'floor: node:http2 stream', 'goal', `on ${process.version}`],
    targets.map((t) => [t.description, t.shown, t.floor === null ? 'not measured' : `${t.floor.toFixed(2)} KiB`, t.goal, t.status]))
  : table(['target (issue 28)', 'ratio', 'goal', `on ${process.version}`], targets.map((t) => [t.description, fmtRatio(t.ratio), t.goal, t.status]))
console.log(tables.targets)

const output = {
  benchmark: tls ? 'idle-connections-tls' : 'idle-connections',
  command: tls ? 'npm run bench:memory -- --tls' : 'npm run bench:memory',
  variants: tls ? variantOf : undefined,
  repeatByVariant,
  argv,
  date: new Date().toISOString(),
  note,
  environment: { ...env, loadavgAfter: os.loadavg().map((x) => Number(x.toFixed(2))), openFileLimit: openFileLimit()?.soft ?? null },
  clients: labels,
  repeat,
  verifiedAll,
  counts: results,
  targets,
  tables
}
await saveResults(jsonPath, output, { chart: !tls && !argv.includes('--no-chart') })
