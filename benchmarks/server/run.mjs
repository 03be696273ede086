// Serving benchmarks (issue 49, item 4): `npm run bench:server`.
//
// Ours (Channel from whatwg-eventsource/server) against better-sse's channels, hono's streamSSE and
// @fastify/sse, with two bare node:http servers as references (./servers.mjs). Every sample runs in a
// fresh server process (./serve.mjs: one server, --expose-gc) and a fresh client process (./client.mjs:
// raw sockets, no SSE library, the same cost for every server), driven by ./sample.mjs; samples are
// interleaved across servers (A, B, C, A, B, C, ...), and each checks what the client received first.
//
//   idle       heap, RSS and external memory per idle subscriber (its head and one event had) at
//              1,000 and 10,000 subscribers, after GC, against the memory before them
//   fanout     2,000 events of 60 bytes to 1,000 subscribers, one per tick and 20 per tick: deliveries
//              per second, from the first publish to the last event received by every subscriber,
//              after 20 events of warm-up. A server slower than 2,000 events in --seconds (3) is timed
//              on the events it published in that time (the JSON says how many): one sample of hono at
//              20 per tick, or of most servers at one per tick, takes 20 s to over a minute otherwise
//   slow       10 % of 50 subscribers stop reading (socket.pause()) after their first event; 640 events
//              of 16 KiB (10 MiB per subscriber, more than the kernel's buffers take) are published, 20
//              per tick; the server's memory after GC before, during, and after the readers have them all
//   encode     ./encode.bench.mjs: each server's serializer per event, in mitata, a process per round
//
//   npm run bench:server
//   node benchmarks/server/run.mjs [--processes 3] [--servers ours,bare] [--scenarios idle,fanout]
//                                  [--counts 1000,10000] [--seconds 3] [--json path] [--note text]
//   node benchmarks/server/run.mjs --quick      one process per server and scenario, 2 s of fan-out
//   npx -y node@24 benchmarks/server/run.mjs   any supported Node: writes results/server-<node>.json
//
// Time: about 6 minutes on the 2-core machine of the published runs, quiet (a third of it the
// 10,000 connections of the idle scenario); --quick about 2. The JSON records each scenario's.
//
// Targets (./targets.mjs): printed for this Node, and in the report (../report/server.mjs).
//
// File descriptors: the server and the client each hold one socket per subscriber; both are processes
// of their own, so 10,000 subscribers need 10,000 and some in each (Node raises its soft limit to the
// hard one).

import os from 'node:os'
import { fileURLToPath } from 'node:url'
import {
  runChild, environment, openFileLimit, summarize, table, fmtRatio, fmtKiB, saveResults, option, defaultResultsPath
} from '../e2e/common.mjs'
import { SERVERS, PEERS, supportedServers, serverLabel } from './servers.mjs'
import { idleSample, fanoutSample, slowSample } from './sample.mjs'
import { ENCODERS, availableEncoders } from './encoders.mjs'
import { SERVER_TARGETS } from './targets.mjs'
import { FANOUT_DATA_BYTES, SLOW_DATA_BYTES } from './workload.mjs'

const argv = process.argv.slice(2)
const quick = argv.includes('--quick')
const processes = Number(option('--processes', quick ? '1' : '3'))
const { ids: servers, skipped } = supportedServers(option('--servers', SERVERS.join(',')).split(','), argv.includes('--servers'))
const scenarios = option('--scenarios', 'idle,fanout,slow,encode').split(',')
const jsonPath = option('--json', defaultResultsPath('server', false))
const note = option('--note', quick ? 'quick run' : null)

const CONFIG = {
  idle: { counts: option('--counts', '1000,10000').split(',').map(Number), warmup: 20 },
  fanout: { subscribers: 1000, events: 2000, perTick: [1, 20], seconds: Number(option('--seconds', quick ? '2' : '3')), warmup: 20, dataBytes: FANOUT_DATA_BYTES },
  slow: { subscribers: 50, every: 10, events: 640, perTick: 8, intervalMs: 20, bytes: SLOW_DATA_BYTES }
}

const needed = Math.max(...CONFIG.idle.counts) + 256
const limit = openFileLimit()
if (scenarios.includes('idle') && limit !== null && limit.soft < needed) {
  console.error(`the open-file limit is ${limit.soft} (hard ${limit.hard}); ${needed} are needed per process for ${Math.max(...CONFIG.idle.counts)} subscribers.`)
  console.error('raise the hard limit (as root: ulimit -Hn) or pass --counts with smaller counts')
  process.exit(1)
}

const env = environment()
const labels = Object.fromEntries(servers.map((id) => [id, serverLabel(id)]))
console.log(`serving: node ${env.node} (v8 ${env.v8}), ${env.platform}`)
console.log(`cpu: ${env.cpu}, ${env.cores} logical cores, ${env.memory}; load average ${env.loadavg.join(' ')}`)
console.log(`measuring: ${env.git === null ? 'lib/ (not a git checkout)' : `lib/ at ${env.git.commit}${env.git.libModified ? ' with uncommitted changes' : ''}`}`)
console.log(`servers: ${servers.map((id) => labels[id]).join('; ')}`)
for (const s of skipped) console.log(`not measured: ${s.id}: ${s.why}`)
console.log(`${processes} process(es) per server and scenario, interleaved; scenarios: ${scenarios.join(', ')}`)
console.log('')

const MiB = 1024 * 1024
const fmtRate = (x) => x >= 1e6 ? `${(x / 1e6).toFixed(2)} M` : `${(x / 1e3).toFixed(1)} k`
const fmtMiB = (bytes) => `${(bytes / MiB).toFixed(2)} MiB`
let verifiedAll = true

/** Runs `sample(id, round)` for every server, `processes` rounds, interleaved; { id: { samples, failures } }. */
async function rounds (sample, describe) {
  const out = Object.fromEntries(servers.map((id) => [id, { samples: [], failures: [] }]))
  for (let round = 0; round < processes; round++) {
    for (const id of servers) {
      let r
      try {
        r = await sample(id)
      } catch (err) {
        r = { error: err.message }
      }
      if (r.error) {
        verifiedAll = false
        out[id].failures.push(r.error)
        console.log(`  ${labels[id]}: FAILED: ${r.error}`)
        continue
      }
      out[id].samples.push({ round, ...r })
      console.log(`  ${labels[id].padEnd(44)} ${describe(r)}`)
    }
  }
  return out
}

const results = {}
// Seconds each scenario took, and the whole run (in the JSON).
const elapsed = {}
const started = performance.now()
const lap = (name, since) => { elapsed[name] = Math.round((performance.now() - since) / 100) / 10 }

if (scenarios.includes('idle')) {
  const since = performance.now()
  const { counts, warmup } = CONFIG.idle
  console.log(`idle subscribers: ${counts.join(', ')} (their head and one event each)`)
  const raw = await rounds((id) => idleSample(id, { counts, warmup }),
    (r) => r.steps.map((s) => `${s.count}: heap ${fmtKiB(s.perSubscriber.heapUsed)}, RSS ${fmtKiB(s.perSubscriber.rss)}`).join('; '))
  results.idle = {}
  for (const [k, count] of counts.entries()) {
    results.idle[count] = {}
    for (const id of servers) {
      const { samples, failures } = raw[id]
      const per = (key) => samples.length ? summarize(samples.map((s) => s.steps[k].perSubscriber[key])) : null
      results.idle[count][id] = {
        verified: failures.length === 0 && samples.length > 0,
        failures,
        heapUsedPerSubscriber: per('heapUsed'),
        rssPerSubscriber: per('rss'),
        externalPerSubscriber: per('external'),
        samples: samples.map((s) => ({ round: s.round, before: s.before, after: s.steps[k].usage, perSubscriber: s.steps[k].perSubscriber }))
      }
    }
  }
  lap('idle', since)
  console.log('')
}

if (scenarios.includes('fanout')) {
  const since = performance.now()
  const { subscribers, events, perTick: modes, seconds, warmup } = CONFIG.fanout
  results.fanout = {}
  for (const perTick of modes) {
    console.log(`fan-out: ${events} events of ${FANOUT_DATA_BYTES} bytes to ${subscribers} subscribers, ${perTick} per tick${seconds ? ` (or those of the first ${seconds} s)` : ''}`)
    const raw = await rounds((id) => fanoutSample(id, { subscribers, events, perTick, seconds, warmup }),
      (r) => `${fmtRate(r.deliveriesPerSecond)} deliveries/s (${r.published} events in ${r.ms.toFixed(0)} ms; server CPU ${r.serverCpuMs.toFixed(0)} ms)`)
    results.fanout[perTick] = {}
    for (const id of servers) {
      const { samples, failures } = raw[id]
      const per = (key) => samples.length ? summarize(samples.map((s) => s[key])) : null
      results.fanout[perTick][id] = {
        verified: failures.length === 0 && samples.length > 0,
        failures,
        deliveriesPerSecond: per('deliveriesPerSecond'),
        published: per('published'),
        serverCpuMs: per('serverCpuMs'),
        samples: samples.map(({ round, published, deliveriesPerSecond, ms, publishMs, publishCpuMs, serverCpuMs }) =>
          ({ round, published, deliveriesPerSecond, ms, publishMs, publishCpuMs, serverCpuMs }))
      }
    }
    console.log('')
  }
  lap('fanout', since)
}

if (scenarios.includes('slow')) {
  const since = performance.now()
  const { subscribers, every, events, perTick, intervalMs, bytes } = CONFIG.slow
  console.log(`not reading: every ${every}th of ${subscribers} subscribers, ${events} events of ${bytes / 1024} KiB, ${perTick} every ${intervalMs} ms`)
  const growth = (r, pick) => pick(r.samples.at(-1).usage) - pick(r.samples[0].usage)
  // From the first sample with half the events published (the history is full by then) to the last.
  const secondHalf = (r, pick) => pick(r.samples.at(-1).usage) - pick(r.samples.find((x) => x.published >= events / 2).usage)
  const heap = (u) => u.heapUsed
  const total = (u) => u.heapUsed + u.external
  const raw = await rounds((id) => slowSample(id, { subscribers, every, events, perTick, intervalMs, bytes }),
    (r) => `heap ${fmtMiB(r.samples[0].usage.heapUsed)} → ${fmtMiB(r.samples.at(-1).usage.heapUsed)}, ` +
      `heap + external ${fmtMiB(total(r.samples[0].usage))} → ${fmtMiB(total(r.samples.at(-1).usage))}; the server let go ${r.dropped} of the ${r.paused} not reading`)
  results.slow = {}
  for (const id of servers) {
    const { samples, failures } = raw[id]
    const per = (fn) => samples.length ? summarize(samples.map(fn)) : null
    results.slow[id] = {
      verified: failures.length === 0 && samples.length > 0,
      failures,
      heapGrowth: per((s) => growth(s, heap)),
      totalGrowth: per((s) => growth(s, total)),
      totalGrowthSecondHalf: per((s) => secondHalf(s, total)),
      heapFirst: per((s) => s.samples[0].usage.heapUsed),
      heapLast: per((s) => s.samples.at(-1).usage.heapUsed),
      rssGrowth: per((s) => growth(s, (u) => u.rss)),
      dropped: per((s) => s.dropped),
      samples: samples.map(({ round, samples, paused, dropped }) => ({ round, paused, dropped, samples }))
    }
  }
  lap('slow', since)
  console.log('')
}

if (scenarios.includes('encode')) {
  const since = performance.now()
  const encoders = availableEncoders()
  console.log(`encoding: ${encoders.map((id) => ENCODERS[id].label).join('; ')}`)
  const script = fileURLToPath(new URL('encode.bench.mjs', import.meta.url))
  const runs = []
  for (let round = 0; round < processes; round++) {
    const r = await runChild(script, {}, { execArgv: ['--expose-gc', '--no-warnings'], timeout: 300_000 })
    for (const [id, why] of Object.entries(r.failures)) {
      verifiedAll = false
      console.log(`  ${ENCODERS[id].label}: VERIFICATION FAILED: ${why}`)
    }
    runs.push({ round, ...r })
    console.log(`  process ${round + 1}: ${Object.values(r.perEvent).map((e) => `${e.label} ${e.p50Ns.toFixed(1)} ns`).join('; ')}`)
  }
  results.encode = {}
  for (const id of encoders) {
    const samples = runs.filter((r) => r.perEvent[id]).map((r) => ({ round: r.round, p50Ns: r.perEvent[id].p50Ns, avgNs: r.perEvent[id].avgNs }))
    results.encode[id] = {
      label: ENCODERS[id].label,
      verified: samples.length === runs.length && samples.length > 0,
      failures: runs.flatMap((r) => r.failures[id] ? [r.failures[id]] : []),
      p50Ns: samples.length ? summarize(samples.map((s) => s.p50Ns)) : null,
      samples
    }
  }
  lap('encode', since)
  console.log('')
}

// ---- tables and targets for this Node ----

const tables = {}
const ok = (r) => r?.verified === true
if (results.idle) {
  for (const count of CONFIG.idle.counts) {
    const c = results.idle[count]
    tables[`idle-${count}`] = table(['server', 'heap / subscriber', 'RSS / subscriber', 'external / subscriber', 'heap − bare', 'ours ÷ this: heap'],
      servers.map((id) => !ok(c[id])
        ? [labels[id], 'FAILED', '', '', '', '']
        : [labels[id], fmtKiB(c[id].heapUsedPerSubscriber.median), fmtKiB(c[id].rssPerSubscriber.median), fmtKiB(c[id].externalPerSubscriber.median),
            ok(c.bare) ? fmtKiB(c[id].heapUsedPerSubscriber.median - c.bare.heapUsedPerSubscriber.median) : '',
            ok(c.ours) && id !== 'ours' ? fmtRatio(c.ours.heapUsedPerSubscriber.median / c[id].heapUsedPerSubscriber.median) : '']))
    console.log(`${count.toLocaleString('en-US')} idle subscribers (medians):`)
    console.log(tables[`idle-${count}`])
    console.log('')
  }
}
if (results.fanout) {
  for (const [perTick, f] of Object.entries(results.fanout)) {
    tables[`fanout-${perTick}`] = table(['server', 'deliveries/s', 'events timed', 'server CPU', 'ours ÷ this'],
      servers.map((id) => !ok(f[id])
        ? [labels[id], 'FAILED', '', '', '']
        : [labels[id], fmtRate(f[id].deliveriesPerSecond.median), String(f[id].published.median), `${f[id].serverCpuMs.median.toFixed(0)} ms`,
            ok(f.ours) && id !== 'ours' ? fmtRatio(f.ours.deliveriesPerSecond.median / f[id].deliveriesPerSecond.median) : '']))
    console.log(`fan-out, ${perTick} per tick (medians):`)
    console.log(tables[`fanout-${perTick}`])
    console.log('')
  }
}
if (results.slow) {
  tables.slow = table(['server', 'heap, last − first', 'heap + external, last − first', 'the same, last − half-way', 'RSS, last − first', 'let go (of the not reading)'],
    servers.map((id) => {
      const r = results.slow[id]
      return !ok(r)
        ? [labels[id], 'FAILED', '', '', '', '']
        : [labels[id], fmtMiB(r.heapGrowth.median), fmtMiB(r.totalGrowth.median), fmtMiB(r.totalGrowthSecondHalf.median), fmtMiB(r.rssGrowth.median), String(r.dropped.median)]
    }))
  console.log('10 % not reading (medians):')
  console.log(tables.slow)
  console.log('')
}
if (results.encode) {
  const ours = results.encode['ours-encode']
  tables.encode = table(['encoder', 'ns per event (p50)', 'ours encodeEvent ÷ this'],
    Object.entries(results.encode).map(([id, r]) => !ok(r)
      ? [r.label, 'FAILED', '']
      : [r.label, r.p50Ns.median.toFixed(1), ok(ours) && id !== 'ours-encode' ? fmtRatio(ours.p50Ns.median / r.p50Ns.median) : '']))
  console.log('encoding (medians over processes):')
  console.log(tables.encode)
  console.log('')
}

lap('all', started)
console.log(`elapsed: ${Object.entries(elapsed).map(([name, s]) => `${name} ${s} s`).join(', ')}`)
const output = {
  benchmark: 'server',
  command: 'npm run bench:server',
  argv,
  date: new Date().toISOString(),
  note,
  environment: { ...env, loadavgAfter: os.loadavg().map((x) => Number(x.toFixed(2))), openFileLimit: limit?.soft ?? null },
  servers: labels,
  peers: PEERS.filter((id) => servers.includes(id)),
  notMeasured: skipped,
  processes,
  config: CONFIG,
  elapsedSeconds: elapsed,
  verifiedAll,
  ...results
}
const targets = SERVER_TARGETS.map((t) => ({ id: t.id, what: t.what, ...(t.evaluate(output) ?? { shown: 'not measured', status: '-' }) }))
tables.targets = table(['target (issue 49)', 'value', `on ${process.version}`], targets.map((t) => [t.what, t.shown, t.status]))
console.log(tables.targets)
output.targets = targets
output.tables = tables
await saveResults(jsonPath, output, { chart: false })
