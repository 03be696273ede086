// The TLS and HTTP/2 sections of the report (../report.mjs): idle connections (results/memory-tls-<node>.json,
// `npm run bench:memory -- --tls`) and throughput (results/e2e-tls-<node>.json, `npm run bench:e2e -- --tls`),
// every client over HTTPS/1.1 and over h2. Variants are named `<transport>:<client>`; ratios compare a
// client with ours on the same transport. docs/http2.md gets the h2 figures and targets.

import { wholeClientHeading, e2eHeading } from './whole-client.mjs'
import { table, spread, plural, fmtRate, fmtUs, fmtKiB, fmtMs } from './format.mjs'
import { H2_TARGETS } from '../memory/targets.mjs'

const TRANSPORTS = ['https', 'h2']
const CLIENTS = ['ours', 'undici', 'undici8', 'eventsource', 'eventsource5', 'floor']
const TRANSPORT_TITLE = { https: 'HTTPS/1.1', h2: 'HTTP/2 over TLS' }

const variantsOn = (clients, transport) => CLIENTS.map((c) => `${transport}:${c}`).filter((id) => clients[id] !== undefined)
const countLabel = (count) => Number(count).toLocaleString('en-US')

// ours ÷ this, a ratio of medians (the range of per-round ratios is left to the plain-HTTP tables).
function vsOurs (clients, id, key) {
  const ours = `${id.split(':')[0]}:ours`
  if (id === ours || !clients[ours]?.verified || !clients[id]?.verified) return ''
  return `${(clients[ours][key].median / clients[id][key].median).toFixed(2)}x`
}

function idleTable (run, count, transport) {
  const clients = run.json.counts[count].clients
  const rows = variantsOn(clients, transport).map((id) => {
    const r = clients[id]
    if (!r.verified) return [r.label, `FAILED: ${r.failures.at(-1) ?? 'no sample'}`, '', '', '', '', '']
    return [r.label, spread(r.heapUsedPerConnection, fmtKiB), spread(r.rssPerConnection, fmtKiB), spread(r.timeToOpenAllMs, fmtMs),
      spread(r.openCpuMs, fmtMs), vsOurs(clients, id, 'heapUsedPerConnection'), vsOurs(clients, id, 'timeToOpenAllMs')]
  })
  return table(['client', 'heap used / source', 'RSS / source', `time to open ${countLabel(count)}`, 'client CPU to open',
    'ours ÷ this: heap', 'ours ÷ this: open time'], rows)
}

// "3 processes per client and count over h2, 1 over HTTPS/1.1" when the transports were run apart (--merge).
function memorySamples (run) {
  const by = run.json.repeatByVariant
  if (!by) return `${plural(run.json.repeat, 'process')} per client and count`
  const per = TRANSPORTS.map((t) => [t, new Set(Object.entries(by).filter(([id]) => id.startsWith(`${t}:`)).map(([, n]) => n))])
    .filter(([, repeats]) => repeats.size > 0)
  if (per.every(([, repeats]) => repeats.size === 1 && repeats.has(run.json.repeat))) return `${plural(run.json.repeat, 'process')} per client and count`
  const count = (repeats) => repeats.size === 1 ? [...repeats][0] : [...repeats].join('/')
  return per.map(([t, repeats], i) => `${i === 0 ? plural(count(repeats), 'process') : count(repeats)} per client and count over ${TRANSPORT_TITLE[t]}`).join(', ')
}

// The h2 targets of issue 28 at the largest count measured, next to the floor's figures.
function h2Targets (run) {
  const counts = Object.keys(run.json.counts)
  const most = counts.at(-1)
  const ours = run.json.counts[most].clients['h2:ours']
  if (!ours?.verified) return null
  const floor = run.json.counts[most].clients['h2:floor']
  const rows = H2_TARGETS.map((t) => {
    const value = ours[t.key].median / 1024
    return [`${t.what}, ${countLabel(most)} sources over h2`, spread(ours[t.key], fmtKiB), floor?.verified ? spread(floor[t.key], fmtKiB) : '-',
      `<= ${t.goal} KiB`, value <= t.goal ? 'met' : '**MISSED**']
  })
  return table(['target (ours, issue 28)', 'median (range)', 'floor: node:http2 stream', 'goal', 'status'], rows)
}

function throughputTable (run, name, transport) {
  const clients = run.json.workloads[name].clients
  const rows = variantsOn(clients, transport).map((id) => {
    const r = clients[id]
    if (!r.verified || !r.eventsPerSecond) return [r.label, 'FAILED verification', '', '', '']
    return [r.label, spread(r.eventsPerSecond, fmtRate), spread(r.cpuUsPerEvent, fmtUs), spread(r.cold?.eventsPerSecond, fmtRate),
      vsOurs(clients, id, 'eventsPerSecond')]
  })
  return table(['client', 'events/s (warm)', 'client CPU / event', 'events/s, first connection (cold)', 'ours ÷ this: events/s'], rows)
}

/** benchmarks/README.md: the TLS and h2 tables of every memory-tls and e2e-tls file, oldest Node first. */
export function tlsSection (memoryRuns, e2eRuns) {
  if (memoryRuns.length === 0 && e2eRuns.length === 0) {
    return '_No results/memory-tls-*.json or e2e-tls-*.json yet: run `npm run bench:memory -- --tls` and `npm run bench:e2e -- --tls`._'
  }
  const out = []
  for (const run of memoryRuns) {
    out.push(`#### Idle sources over TLS and HTTP/2, Node ${run.json.environment.node}`, '', wholeClientHeading(run, memorySamples(run)), '')
    for (const count of Object.keys(run.json.counts)) {
      for (const transport of TRANSPORTS) {
        if (variantsOn(run.json.counts[count].clients, transport).length === 0) continue
        out.push(`**${countLabel(count)} idle sources, ${TRANSPORT_TITLE[transport]}** (per source = (after − before) / count, after GC; median (range) over processes):`, '',
          idleTable(run, count, transport), '')
      }
    }
    const targets = h2Targets(run)
    if (targets) out.push('**Targets of `http2` (issue 28):**', '', targets, '')
  }
  for (const run of e2eRuns) {
    out.push(`#### Throughput over TLS and HTTP/2, Node ${run.json.environment.node}`, '', e2eHeading(run), '')
    for (const [name, w] of Object.entries(run.json.workloads)) {
      for (const transport of TRANSPORTS) {
        if (variantsOn(w.clients, transport).length === 0) continue
        out.push(`**${w.title}, ${TRANSPORT_TITLE[transport]}** (one connection per run; median (range) over all timed runs):`, '', throughputTable(run, name, transport), '')
      }
    }
  }
  return out.join('\n')
}

/** docs/http2.md: per Node version, ours over HTTPS/1.1 and over h2, the floor, the targets. */
export function http2Summary (memoryRuns, e2eRuns) {
  if (memoryRuns.length === 0) return '_No results/memory-tls-*.json yet: run `npm run bench:memory -- --tls`._'
  const out = []
  for (const run of memoryRuns) {
    const node = run.json.environment.node
    const e2e = e2eRuns.find((r) => r.json.environment.node === node)
    const ids = ['https:ours', 'h2:ours', 'h2:undici', 'h2:eventsource', 'h2:floor']
    const labels = ids.map((id) => run.json.clients[id]).filter(Boolean)
    const present = ids.filter((id) => run.json.clients[id])
    const rows = []
    for (const count of Object.keys(run.json.counts)) {
      const c = run.json.counts[count].clients
      const cell = (id, key, fmt) => c[id]?.verified ? spread(c[id][key], fmt) : 'n/a'
      rows.push([`heap per idle source (${countLabel(count)} open)`, ...present.map((id) => cell(id, 'heapUsedPerConnection', fmtKiB))])
      rows.push([`RSS per idle source (${countLabel(count)} open)`, ...present.map((id) => cell(id, 'rssPerConnection', fmtKiB))])
      rows.push([`time to open ${countLabel(count)}`, ...present.map((id) => cell(id, 'timeToOpenAllMs', fmtMs))])
      // Less sensitive to what else runs on the machine than the wall time.
      rows.push([`client CPU to open ${countLabel(count)}`, ...present.map((id) => cell(id, 'openCpuMs', fmtMs))])
    }
    if (e2e?.json.workloads.small) {
      const w = e2e.json.workloads.small
      rows.push([`${w.title}, events/s`, ...present.map((id) => w.clients[id]?.verified ? spread(w.clients[id].eventsPerSecond, fmtRate) : 'n/a')])
    }
    const files = [`\`benchmarks/results/${run.file}\``, e2e && `\`benchmarks/results/${e2e.file}\``].filter(Boolean).join(', ')
    out.push(`**Node ${node}** (median (range) over ${memorySamples(run)}; ${files}):`, '')
    for (const note of new Set([run.json.note, e2e?.json.note].filter(Boolean))) out.push(`> Note: ${note}.`, '')
    out.push(table(['', ...labels], rows), '')
    const targets = h2Targets(run)
    if (targets) out.push(targets, '')
  }
  return out.join('\n')
}
