// Whole-client throughput over loopback: `npm run bench:e2e`.
//
// A server process (./server.mjs) writes event streams as fast as the socket takes them; one client
// process per (client, sample) (./throughput-client.mjs) reads one stream: first a verification run
// (count and hash of every event: a fast wrong client cannot win), then timed runs. Clients compared
// in one run (./clients.mjs): ours, ours with a subscriber on every diagnostics channel
// (ours+diagnostics), undici 7's and undici 8's EventSource, the runtime's own EventSource
// (--experimental-eventsource), the eventsource package 4 and 5 (undici 8 and eventsource 5 where this
// Node is inside their engines range), and a floor (a bare node:http GET that reads and discards the
// same bytes). Then the per-event hot-path micro-benchmarks (./hot-path.bench.mjs, mitata), the ratios
// against the targets of issue 28 (./targets.mjs) for this Node, the JSON results and the chart.
//
//   npm run bench:e2e
//   node benchmarks/e2e/run.mjs [--processes 5] [--runs 5] [--clients ours,undici] [--workloads small]
//                               [--json path] [--no-hot-path] [--no-chart] [--note text]
//   npm run bench:e2e -- --tls   every client over HTTPS/1.1 and over h2 (./clients.mjs), small events by
//                               default, into e2e-tls-<node>.json (no hot path, no chart);
//                               --transports h2 measures one of them
//
// --processes: client processes per (client, workload), interleaved across clients so that load
// changes on a shared machine hit all of them; --runs: timed runs in each process (after its
// verification run and one untimed warm-up run). Every sample is one connection, timed from the
// constructor call to the last event; the tables show the median and the range.
//
// Cold and warm: each process's first connection (before its verification run) is timed too. The cold
// figure is the median over processes of that first connection; the warm figure the median over
// processes of each process's median of its timed runs (steady state). The main tables keep the median
// over all timed runs.

import { fileURLToPath } from 'node:url'
import {
  startServer, ask, runChild, environment, summarize, median, table, fmtInt, fmtRatio,
  saveResults, option, defaultResultsPath
} from './common.mjs'
import { CLIENTS, E2E_CLIENTS, TLS_TRANSPORTS, measuredVariants, supportedClients, clientExecArgv, clientLabel } from './clients.mjs'
import { E2E_TARGETS, targetRatio, targetStatus, e2eTargetShown } from './targets.mjs'
import { expectedEvents, expectedBytes, eventData, SMALL_EVENT_BYTES, LARGE_EVENT_BYTES } from './workloads.mjs'

const argv = process.argv.slice(2)
const processes = Number(option('--processes', '5'))
const runs = Number(option('--runs', '5'))
const tls = argv.includes('--tls')
// In cleartext the default adds ours with diagnostics subscribers (E2E_CLIENTS); over TLS, the peers only.
// Left out of a default list: the peers whose engines exclude this Node (--clients runs them anyway).
const { ids: clientIds, skipped } = supportedClients(option('--clients', (tls ? CLIENTS : E2E_CLIENTS).join(',')).split(','), argv.includes('--clients'))
const jsonPath = option('--json', defaultResultsPath('e2e', tls))
const { clients, variantOf, labels, oursOf } = measuredVariants(clientIds, tls, option('--transports', TLS_TRANSPORTS.join(',')).split(','))
// Stored in the JSON and printed by the report (benchmarks/report.mjs), e.g. "quick run, loaded machine".
const note = option('--note', null)

const WORKLOADS = [
  { name: 'small', kind: 'small', n: 200_000, eventBytes: SMALL_EVENT_BYTES, title: '200,000 events of 67 bytes' },
  { name: 'large', kind: 'large', n: 2_000, eventBytes: LARGE_EVENT_BYTES, title: '2,000 events of 16 KiB' }
].filter((w) => option('--workloads', tls ? 'small' : 'small,large').split(',').includes(w.name))

const env = environment()
console.log(`whole-client throughput over loopback: node ${env.node} (v8 ${env.v8}), ${env.platform}`)
console.log(`cpu: ${env.cpu}, ${env.cores} logical cores, ${env.memory}; load average ${env.loadavg.join(' ')}`)
console.log(`measuring: ${env.git === null ? 'lib/ (not a git checkout)' : `lib/ at ${env.git.commit}${env.git.libModified ? ' with uncommitted changes' : ''}`}`)
console.log(`clients: ${clients.map((c) => labels[c]).join('; ')}`)
for (const s of skipped) console.log(`not measured on this Node: ${clientLabel(s.id)}: ${s.why}`)
console.log(`samples: ${processes} processes x ${runs} timed runs per client and workload, after one verification run each`)
console.log('')

const server = await startServer()
const script = fileURLToPath(new URL('throughput-client.mjs', import.meta.url))
const results = {}

for (const w of WORKLOADS) {
  await ask(server.child, { type: 'prepare', kind: w.kind, n: w.n }, 'prepared')
  const events = expectedEvents(w.kind, w.n)
  const raw = expectedBytes(w.kind, w.n)
  const dataChars = eventData(w.kind, 0).length * w.n
  const path = `/stream?kind=${w.kind}&n=${w.n}`
  console.log(`${w.title} (${(raw.bytes / 1024 / 1024).toFixed(1)} MiB): ${path}`)
  const per = Object.fromEntries(clients.map((c) => [c, { verification: [], timed: [], processes: [] }]))
  for (let p = 0; p < processes; p++) {
    for (const client of clients) {
      const variant = variantOf[client]
      const url = `${server.bases[variant.transport]}${path}`
      const r = await runChild(script, { client: variant.client, transport: variant.transport, url, n: w.n, bytes: raw.bytes, runs }, { execArgv: ['--no-warnings', ...clientExecArgv(variant.client)] })
      const want = variant.client === 'floor' ? raw : events
      const v = r.verification
      const ok = v.error === null && v.count === want.count && v.hash === want.hash
      per[client].verification.push({ ok, error: v.error, count: v.count, hash: v.hash })
      if (!ok) {
        console.log(`  ${labels[client]}: VERIFICATION FAILED: ${v.error ?? ''} count ${v.count}/${want.count}, hash ${v.hash === want.hash ? 'ok' : 'differs'}`)
        continue
      }
      const failure = (t) => {
        if (t.error !== null) return t.error
        if (variant.client !== 'floor' && t.chars !== dataChars) return `data length ${t.chars}, expected ${dataChars}`
        return null
      }
      const sampleOf = (t) => ({ ns: t.ns, cpuUs: t.cpu.user + t.cpu.system, userUs: t.cpu.user, systemUs: t.cpu.system })
      const proc = { round: p, cold: null, timed: [] }
      const coldFailure = failure(r.cold)
      if (coldFailure !== null) {
        console.log(`  ${labels[client]}: cold run failed: ${coldFailure}`)
        per[client].verification.push({ ok: false, error: coldFailure })
      } else {
        proc.cold = sampleOf(r.cold)
      }
      for (const t of r.timed) {
        const bad = failure(t)
        if (bad !== null) {
          console.log(`  ${labels[client]}: timed run failed: ${bad}`)
          per[client].verification.push({ ok: false, error: bad })
          continue
        }
        per[client].timed.push(sampleOf(t))
        proc.timed.push(sampleOf(t))
      }
      per[client].processes.push(proc)
      const last = per[client].timed.at(-1)
      if (last) console.log(`  ${labels[client].padEnd(34)} verified (${want.count} events, sha256 ${want.hash.slice(0, 12)}…); ${fmtInt(w.n / (last.ns / 1e9))} events/s, ${(last.cpuUs / w.n).toFixed(2)} µs CPU/event`)
    }
  }
  const workload = { title: w.title, events: w.n, eventBytes: w.eventBytes, totalBytes: raw.bytes, expectedHash: events.hash, clients: {} }
  const rate = (t) => w.n / (t.ns / 1e9)
  const cpuPerEvent = (t) => t.cpuUs / w.n
  for (const client of clients) {
    const { verification, timed } = per[client]
    const verified = verification.length > 0 && verification.every((v) => v.ok)
    // Per process, in round order: its cold (first) connection, and the median of its timed runs.
    const procs = per[client].processes.map((p) => ({
      round: p.round,
      cold: p.cold === null ? null : { eventsPerSecond: rate(p.cold), cpuUsPerEvent: cpuPerEvent(p.cold) },
      warm: p.timed.length === 0 ? null : { eventsPerSecond: median(p.timed.map(rate)), cpuUsPerEvent: median(p.timed.map(cpuPerEvent)) }
    }))
    const across = (phase) => {
      const values = procs.map((p) => p[phase]).filter((x) => x !== null)
      return values.length === 0 ? null : { eventsPerSecond: summarize(values.map((x) => x.eventsPerSecond)), cpuUsPerEvent: summarize(values.map((x) => x.cpuUsPerEvent)) }
    }
    workload.clients[client] = {
      label: labels[client],
      verified,
      eventsPerSecond: timed.length ? summarize(timed.map(rate)) : null,
      cpuUsPerEvent: timed.length ? summarize(timed.map(cpuPerEvent)) : null,
      mibPerSecond: timed.length ? summarize(timed.map((t) => raw.bytes / 1024 / 1024 / (t.ns / 1e9))) : null,
      cold: across('cold'),
      warm: across('warm'),
      processes: procs,
      timed
    }
  }
  results[w.name] = workload
  console.log('')
}
server.child.send({ type: 'exit' })

// ---- hot path micro-benchmarks ----

let hotPath = null
if (!tls && !argv.includes('--no-hot-path')) {
  console.log('per-event hot path (mitata):')
  hotPath = await runChild(fileURLToPath(new URL('hot-path.bench.mjs', import.meta.url)), {}, { execArgv: ['--expose-gc'] })
  console.log('')
}

// ---- tables, ratios, targets ----

const has = (w, c) => results[w]?.clients[c]?.eventsPerSecond != null
const eps = (w, c) => results[w].clients[c].eventsPerSecond.median
const cpu = (w, c) => results[w].clients[c].cpuUsPerEvent.median

const tables = {}
for (const [name, w] of Object.entries(results)) {
  const rows = clients.map((c) => {
    const r = w.clients[c]
    if (!r.verified || r.eventsPerSecond === null) return [r.label, 'FAILED verification', '', '', '', '', '']
    const e = r.eventsPerSecond
    return [
      r.label,
      fmtInt(e.median),
      `${fmtInt(e.min)}–${fmtInt(e.max)}`,
      r.mibPerSecond.median.toFixed(1),
      r.cpuUsPerEvent.median.toFixed(2),
      has(name, oursOf(c)) && c !== oursOf(c) ? fmtRatio(eps(name, oursOf(c)) / e.median) : '',
      has(name, oursOf(c)) && c !== oursOf(c) ? fmtRatio(r.cpuUsPerEvent.median / cpu(name, oursOf(c))) : ''
    ]
  })
  tables[name] = table(['client', 'events/s (median)', 'range', 'MiB/s', 'client CPU µs/event', 'ours ÷ this: events/s', 'this ÷ ours: CPU/event'], rows)
  const coldWarm = clients.map((c) => {
    const { label, cold, warm } = w.clients[c]
    if (cold === null || warm === null) return [label, 'FAILED', '', '', '', '', '', '']
    const range = (s) => `${fmtInt(s.min)}–${fmtInt(s.max)}`
    return [label, fmtInt(cold.eventsPerSecond.median), range(cold.eventsPerSecond), fmtInt(warm.eventsPerSecond.median), range(warm.eventsPerSecond),
      cold.cpuUsPerEvent.median.toFixed(2), warm.cpuUsPerEvent.median.toFixed(2), fmtRatio(warm.eventsPerSecond.median / cold.eventsPerSecond.median)]
  })
  tables[`${name}ColdWarm`] = table(['client', 'cold events/s (median)', 'range', 'warm events/s (median)', 'range', 'cold CPU µs/event', 'warm CPU µs/event', 'warm ÷ cold'], coldWarm)
}

// Every target of issue 28, on every Node, each marked for the Nodes it is a target on.
const targets = []
if (!tls) {
  for (const t of E2E_TARGETS.filter((x) => e2eTargetShown(x, process.version))) {
    const r = targetRatio(results, t)
    if (r === null) continue
    targets.push({
      id: t.id,
      description: t.what,
      ratio: r.ratio,
      ours: r.ours,
      against: r.peer === null ? 'committed Node 20 result' : labels[r.peer],
      againstEventsPerSecond: r.peerValue,
      notMeasured: r.missing,
      goal: `>= ${t.goal}x on Node ${t.nodes.join(', ')}`,
      status: targetStatus(t, r.ratio, process.version)
    })
  }
}

for (const [name, w] of Object.entries(results)) {
  console.log(`${w.title}:`)
  console.log(tables[name])
  console.log('')
  console.log(`${w.title}, cold (each process's first connection) and warm (each process's median of its timed runs), medians over processes:`)
  console.log(tables[`${name}ColdWarm`])
  console.log('')
}
if (hotPath !== null) {
  const rows = Object.entries(hotPath.perEvent).map(([name, s]) => [name, `${s.avgNs.toFixed(1)} ns`, `${s.p50Ns.toFixed(1)} ns`])
  tables.hotPath = table(['per event (mitata)', 'avg', 'p50'], rows)
  console.log(tables.hotPath)
  console.log('')
}
const targetTable = table(['target (warm: each process\'s median, median over processes)', 'ours', 'the faster peer', 'ratio', 'goal', `on ${process.version}`],
  targets.map((t) => [t.description, fmtInt(t.ours), `${t.against}: ${fmtInt(t.againstEventsPerSecond)}`, fmtRatio(t.ratio), t.goal, t.status]))
tables.targets = targetTable
console.log(`targets (issue 28) on ${process.version}:`)
console.log(targetTable)
for (const t of targets.filter((x) => x.notMeasured.length)) {
  const why = (id) => skipped.find((s) => s.id === id)?.why ?? 'not in --clients'
  console.log(`target ${t.id}: not measured in this run: ${t.notMeasured.map((id) => `${id} (${why(id)})`).join('; ')}`)
}

const verifiedAll = Object.values(results).every((w) => Object.values(w.clients).every((c) => c.verified))
const output = {
  benchmark: tls ? 'e2e-throughput-tls' : 'e2e-throughput',
  command: tls ? 'npm run bench:e2e -- --tls' : 'npm run bench:e2e',
  variants: tls ? variantOf : undefined,
  argv,
  date: new Date().toISOString(),
  note,
  environment: { ...env, loadavgAfter: (await import('node:os')).default.loadavg().map((x) => Number(x.toFixed(2))) },
  clients: labels,
  // The default peers this Node is outside the engines of: { id, why }.
  notMeasured: skipped,
  samples: { processes, runsPerProcess: runs },
  verifiedAll,
  workloads: results,
  hotPath,
  targets,
  tables
}
await saveResults(jsonPath, output, { chart: !tls && !argv.includes('--no-chart') })
