// The TLS and HTTP/2 sections of the report (../report.mjs): idle connections (results/memory-tls-<node>.json,
// `npm run bench:memory -- --tls`) and throughput (results/e2e-tls-<node>.json, `npm run bench:e2e -- --tls`),
// every client over HTTPS/1.1 and over h2. Variants are named `<transport>:<client>`; ratios compare a
// client with ours on the same transport. docs/http2.md gets the h2 figures and targets.

import { wholeClientRun, e2eRun } from './whole-client.mjs'
import { table, summaryTable, paragraphs, spread, ratioCell, plural, nodeColumn, runList, compareVersions, fmtRate, fmtKiB, fmtMs } from './format.mjs'
import { memoryRatio, e2eRounds, pairRatios } from './rounds.mjs'
import { H2_TARGETS } from '../memory/targets.mjs'

const TRANSPORTS = ['https', 'h2']
const CLIENTS = ['ours', 'undici', 'undici8', 'eventsource', 'eventsource5', 'floor']
// The clients benchmarks/README.md's summary sets ours against (every client's figures are in the JSON).
const SUMMARY_PEERS = ['undici', 'floor']
const TRANSPORT_TITLE = { https: 'HTTPS/1.1', h2: 'HTTP/2 over TLS' }

const variantsOn = (clients, transport) => CLIENTS.map((c) => `${transport}:${c}`).filter((id) => clients[id] !== undefined)
const countLabel = (count) => Number(count).toLocaleString('en-US')

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

// ours ÷ this on the same transport, a ratio of medians with the range of the per-round ratios.
function idleRatio (run, count, id) {
  const ours = `${id.split(':')[0]}:ours`
  return memoryRatio(run, count, id, 'heap', ours, null)
}

function throughputRatio (run, name, id) {
  const clients = run.json.workloads[name].clients
  const ours = `${id.split(':')[0]}:ours`
  if (!clients[ours]?.verified || !clients[id]?.eventsPerSecond) return ''
  const rounds = (client) => e2eRounds(run, name, client, 'eventsPerSecond', 'warm')
  return ratioCell(clients[ours].eventsPerSecond.median / clients[id].eventsPerSecond.median, pairRatios(rounds(ours), rounds(id)), null)
}

// A cell for one client of one run: '-' where the file does not hold it, FAILED where it failed.
const clientCell = (r, value) => r === undefined ? '-' : !r.verified ? 'FAILED' : value(r) || 'n/a'
const CLIENT_TITLE = { undici: 'undici 7', undici8: 'undici 8', eventsource: 'eventsource 4', eventsource5: 'eventsource 5', floor: 'floor' }
const TRANSPORT_SHORT = { https: 'HTTPS/1.1', h2: 'h2' }

/**
 * benchmarks/README.md: per transport and count, ours' heap and RSS per idle source and ours ÷ each other
 * client; the h2 targets; per transport, ours' events/s and ours ÷ each other client (rows) per Node
 * version (columns). Each client's own figures and every sample stay in the JSON.
 */
export function tlsSection (memoryRuns, e2eRuns) {
  if (memoryRuns.length === 0 && e2eRuns.length === 0) {
    return '_No results/memory-tls-*.json or e2e-tls-*.json yet: run `npm run bench:memory -- --tls` and `npm run bench:e2e -- --tls`._'
  }
  const versions = [...new Set([...memoryRuns, ...e2eRuns].map((r) => r.json.environment.node))].sort(compareVersions)
  const memoryOf = (node) => memoryRuns.find((r) => r.json.environment.node === node)
  const e2eOf = (node) => e2eRuns.find((r) => r.json.environment.node === node)
  const body = []
  const counts = [...new Set(memoryRuns.flatMap((run) => Object.keys(run.json.counts)))].sort((a, b) => a - b)
  for (const transport of TRANSPORTS) {
    // Each transport at the largest count any run has it at.
    const count = counts.filter((n) => memoryRuns.some((run) => variantsOn(run.json.counts[n]?.clients ?? {}, transport).length)).at(-1)
    if (count === undefined) continue
    const head = `${TRANSPORT_SHORT[transport]}, ${countLabel(count)} idle`
    const cells = (fn) => versions.map((node) => {
      const run = memoryOf(node)
      const clients = run?.json.counts[count]?.clients
      return clients && variantsOn(clients, transport).length ? fn(run, clients) : '-'
    })
    body.push([`${head}: ours, heap per source`, ...cells((run, c) => clientCell(c[`${transport}:ours`], (r) => spread(r.heapUsedPerConnection, fmtKiB)))])
    body.push([`${head}: ours, RSS per source`, ...cells((run, c) => clientCell(c[`${transport}:ours`], (r) => spread(r.rssPerConnection, fmtKiB)))])
    if (transport === 'h2') {
      // What any client on node:http2 costs at least, beside the targets below.
      body.push([`${head}: floor, heap per source`, ...cells((run, c) => clientCell(c['h2:floor'], (r) => spread(r.heapUsedPerConnection, fmtKiB)))])
      body.push([`${head}: floor, RSS per source`, ...cells((run, c) => clientCell(c['h2:floor'], (r) => spread(r.rssPerConnection, fmtKiB)))])
    }
    for (const client of SUMMARY_PEERS) {
      const id = `${transport}:${client}`
      if (!memoryRuns.some((run) => run.json.counts[count]?.clients[id])) continue
      body.push([`${head}: ours ÷ ${CLIENT_TITLE[client]}, heap`, ...cells((run, c) => clientCell(c[id], () => idleRatio(run, count, id)))])
    }
    if (transport === 'h2') {
      for (const t of H2_TARGETS) {
        body.push([`${head}, target: ${t.what.replace(' per idle source', '')} <= ${t.goal} KiB`, ...cells((run, c) => {
          const ours = c['h2:ours']
          if (!ours?.verified) return '-'
          return `${fmtKiB(ours[t.key].median)}: ${ours[t.key].median / 1024 <= t.goal ? 'met' : '**MISSED**'}`
        })])
      }
    }
  }
  const workloads = new Map(e2eRuns.flatMap((run) => Object.entries(run.json.workloads).map(([name, w]) => [name, w.title])))
  for (const name of workloads.keys()) {
    for (const transport of TRANSPORTS) {
      const head = `${name}, ${TRANSPORT_SHORT[transport]}`
      const cells = (fn) => versions.map((node) => {
        const run = e2eOf(node)
        const clients = run?.json.workloads[name]?.clients
        return clients && variantsOn(clients, transport).length ? fn(run, clients) : '-'
      })
      if (!e2eRuns.some((run) => variantsOn(run.json.workloads[name]?.clients ?? {}, transport).length)) continue
      body.push([`${head}: ours, events/s`, ...cells((run, c) => clientCell(c[`${transport}:ours`], (r) => r.eventsPerSecond && spread(r.eventsPerSecond, fmtRate)))])
      for (const client of SUMMARY_PEERS) {
        const id = `${transport}:${client}`
        if (!e2eRuns.some((run) => run.json.workloads[name]?.clients[id])) continue
        body.push([`${head}: ours ÷ ${CLIENT_TITLE[client]}`, ...cells((run, c) => clientCell(c[id], () => throughputRatio(run, name, id)))])
      }
    }
  }
  return paragraphs([
    `Over HTTPS/1.1 and HTTP/2 over TLS (h2)${workloads.size ? `; ${[...workloads].map(([name, title]) => `${name}: ${title}`).join('; ')}` : ''}.` +
      ' Ours\' median (range) over processes (idle: per source, (after − before) ÷ count, after GC) or over timed runs' +
      ' (events/s). Ratios: ours\' median ÷ the other client\'s on the same transport, with the range of the per-round' +
      ' ratios; heap: below 1 is less, events/s: above 1 is faster. The floor is a bare `node:http2` client stream' +
      ' (`https.get` over HTTPS/1.1) per source. "-": not in that run\'s file.', '',
    summaryTable(['', ...versions.map(nodeColumn)], body), '',
    ...(memoryRuns.length ? [runList(memoryRuns.map((run) => wholeClientRun(run, memorySamples(run)))), ''] : []),
    ...(e2eRuns.length ? [runList(e2eRuns.map(e2eRun))] : [])
  ])
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
