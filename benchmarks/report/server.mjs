// The serving section of the report (../report.mjs), from results/server-<node>.json
// (../server/run.mjs): per Node version (columns), ours' figures and ours ÷ each other server (rows) for
// idle subscribers, fan-out, encoding and subscribers that do not read, then the targets of issue 49
// (../server/targets.mjs). Ratios are ratios of medians, with the range of the per-round ratios (round p
// pairs the p-th process of each server: the runner interleaves them).

import { summaryTable, paragraphs, spread, ratioCell, runList, nodeColumn, plural, fmtRate, fmtKiB } from './format.mjs'
import { SERVER_TARGETS } from '../server/targets.mjs'

// The servers in the order of the rows, and their names there.
const ORDER = ['bare-batched', 'bare', 'better-sse', 'hono', 'fastify-sse']
const SHORT = {
  ours: 'ours',
  bare: 'bare (a write per event)',
  'bare-batched': 'bare (a write per tick)',
  'better-sse': 'better-sse',
  hono: 'hono',
  'fastify-sse': '@fastify/sse'
}
// The encoders compared with ours' encodeEvent (../server/encoders.mjs), and their names there.
const ENCODER_PEERS = {
  bare: 'bare (template literal, Buffer.from())',
  'better-sse': 'better-sse',
  'fastify-sse': '@fastify/sse',
  hono: 'hono'
}

const fmtMiB = (bytes) => `${(bytes / 1024 / 1024).toFixed(2)} MiB`
const fmtNs = (x) => `${x.toFixed(0)} ns`
const bold = (s) => s === 'MISSED' ? '**MISSED**' : s

/** A round's values of one server: Map(round -> value). */
function byRound (r, pick) {
  return new Map(r.samples.map((s) => [s.round, pick(s)]))
}

/** `a` ÷ `b` (each { verified, samples, [key]: summary }), with the range of the per-round ratios. */
function ratio (a, b, key, pick) {
  if (a?.verified !== true || b?.verified !== true) return null
  const x = byRound(a, pick)
  const y = byRound(b, pick)
  const rounds = [...x.keys()].filter((k) => y.has(k)).map((k) => x.get(k) / y.get(k))
  return ratioCell(a[key].median / b[key].median, rounds, null)
}

// A cell: '-' where the file has no such figure (the scenario or the server not in it), FAILED where
// the server failed its check, else what `value` makes of it.
const cell = (r, value) => r === undefined ? '-' : r.verified !== true ? 'FAILED' : value(r) ?? 'n/a'

function runOf (run) {
  const { json } = run
  const env = json.environment
  return {
    file: run.file,
    date: json.date,
    git: env.git,
    samples: plural(json.processes, 'process') + ' per server and scenario, interleaved',
    loadavg: [env.loadavg[0], env.loadavgAfter?.[0]].filter((x) => x !== undefined),
    note: json.note
  }
}

/** The rows of one measure: its per-Node cells from `fn(json)`, or '-' for a file without it. */
function rows (runs, label, fn) {
  return [label, ...runs.map((run) => fn(run.json) ?? '-')]
}

/**
 * benchmarks/README.md: the serving summary, a column per Node version. Every server's own figures
 * (RSS, external memory, server CPU, each sample, the memory samples over time) are in the JSON.
 */
export function serverSection (runs) {
  if (runs.length === 0) return '_No results/server-*.json yet: run `npm run bench:server`._'
  const body = []
  const counts = [...new Set(runs.flatMap((run) => Object.keys(run.json.idle ?? {})))].sort((a, b) => a - b)
  const others = ORDER.filter((id) => runs.some((run) => run.json.servers[id] !== undefined))

  for (const count of counts) {
    const n = Number(count).toLocaleString('en-US')
    const idle = (json) => json.idle?.[count]
    body.push(rows(runs, `${n} idle: ours, heap per subscriber`, (json) => idle(json) && cell(idle(json).ours, (r) => spread(r.heapUsedPerSubscriber, fmtKiB))))
    body.push(rows(runs, `${n} idle: ours, RSS per subscriber`, (json) => idle(json) && cell(idle(json).ours, (r) => spread(r.rssPerSubscriber, fmtKiB))))
    for (const id of others) {
      body.push(rows(runs, `${n} idle: ours ÷ ${SHORT[id]}, heap`, (json) => idle(json) && cell(idle(json)[id],
        (r) => ratio(idle(json).ours, r, 'heapUsedPerSubscriber', (s) => s.perSubscriber.heapUsed))))
    }
  }

  const modes = [...new Set(runs.flatMap((run) => Object.keys(run.json.fanout ?? {})))].sort((a, b) => b - a)
  for (const perTick of modes) {
    const f = (json) => json.fanout?.[perTick]
    const what = `${perTick} per tick`
    body.push(rows(runs, `fan-out, ${what}: ours, deliveries/s`, (json) => f(json) && cell(f(json).ours, (r) => spread(r.deliveriesPerSecond, fmtRate))))
    for (const id of others) {
      body.push(rows(runs, `fan-out, ${what}: ours ÷ ${SHORT[id]}`, (json) => f(json) && cell(f(json)[id],
        (r) => ratio(f(json).ours, r, 'deliveriesPerSecond', (s) => s.deliveriesPerSecond))))
    }
  }

  if (runs.some((run) => run.json.encode)) {
    const e = (json) => json.encode
    body.push(rows(runs, 'encoding: ours\' encodeEvent, per event', (json) => e(json) && cell(e(json)['ours-encode'], (r) => spread(r.p50Ns, fmtNs))))
    for (const [id, name] of Object.entries(ENCODER_PEERS)) {
      body.push(rows(runs, `encoding: ours' encodeEvent ÷ ${name}`, (json) => e(json) && cell(e(json)[id],
        (r) => ratio(e(json)['ours-encode'], r, 'p50Ns', (s) => s.p50Ns))))
    }
    body.push(rows(runs, 'encoding: ours\' encodeEvents, 20 a call, per event ÷ encodeEvent', (json) => e(json) && cell(e(json)['ours-batch'],
      (r) => ratio(r, e(json)['ours-encode'], 'p50Ns', (s) => s.p50Ns))))
  }

  if (runs.some((run) => run.json.slow)) {
    const s = (json) => json.slow
    for (const id of ['ours', ...others]) {
      body.push(rows(runs, `10 % not reading: ${SHORT[id]}, heap + external, last − first`, (json) => s(json) && cell(s(json)[id], (r) => spread(r.totalGrowth, fmtMiB))))
    }
    body.push(rows(runs, '10 % not reading: ours, heap + external, last − half-way', (json) => s(json) && cell(s(json).ours, (r) => spread(r.totalGrowthSecondHalf, fmtMiB))))
    body.push(rows(runs, '10 % not reading: ours, heap, last − first', (json) => s(json) && cell(s(json).ours, (r) => spread(r.heapGrowth, fmtMiB))))
    body.push(rows(runs, '10 % not reading: of those not reading, ours let go', (json) => s(json) && cell(s(json).ours,
      (r) => `${spread(r.dropped, String)} of ${r.samples[0].paused}`)))
  }

  for (const t of SERVER_TARGETS) {
    body.push(rows(runs, `target: ${t.what}`, (json) => {
      const r = t.evaluate(json)
      return r === null ? null : `${r.shown}: ${bold(r.status)}`
    }))
  }

  const { fanout, slow } = runs.at(-1).json.config
  const out = [
    'Ours: `Channel` from `whatwg-eventsource/server`. Medians (range) over processes; ratios: ours\' median ÷ the other' +
      ' server\'s, with the range of the per-round ratios (heap: below 1 is less; deliveries/s: above 1 is faster; encoding:' +
      ' below 1 is faster). Idle: per subscriber, (after − before) ÷ count, after GC. Fan-out:' +
      ` ${fanout.events.toLocaleString('en-US')} events of ${fanout.dataBytes} bytes of data to` +
      ` ${fanout.subscribers.toLocaleString('en-US')} subscribers, from the first publish to the last event received by all;` +
      (fanout.seconds > 0 ? ` a server slower than that in ${fanout.seconds} s is timed on the events it published in that time (the JSON gives how many).` : '') +
      ` Encoding: p50 per event. Not reading: ${slow.subscribers} subscribers, every ${slow.every}th of which stops reading,` +
      ` ${slow.events} events of ${slow.bytes / 1024} KiB, ${slow.perTick} every ${slow.intervalMs} ms; the server's memory after` +
      ' GC before the first event (first), once half are published (half-way) and once the others have them all (last).' +
      ' "-": not in that run\'s file.', '',
    summaryTable(['', ...runs.map((run) => nodeColumn(run.json.environment.node))], body), ''
  ]
  const absent = runs.filter((run) => run.json.notMeasured?.length)
  if (absent.length) {
    out.push(`Not measured: ${absent.map((run) => `on ${run.json.environment.node}, ${run.json.notMeasured.map((m) => `${m.id} (${m.why})`).join('; ')}`).join('; ')}.`, '')
  }
  out.push(runList(runs.map(runOf)))
  return paragraphs(out)
}
