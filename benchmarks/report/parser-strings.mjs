// The drop-in-on-strings section of the report (../report.mjs), from results/parser-strings-<node>.json
// (../parser-strings.bench.mjs): a table of the ratio drop-in ÷ eventsource-parser per shape (rows) and
// Node version and form (columns), then per Node version every shape's p50s. A file written with
// `--processes N` gives medians and ranges across its N processes; a single-process file has one p50 per
// parser and no range, which the report says.

import { readdirSync, readFileSync } from 'node:fs'
import { table, spread, ratioCell, runHeading, fmtTime, fmtX, compareVersions } from './format.mjs'

const FILE = /^parser-strings-(v\d+\.\d+\.\d+)\.json$/
const FORMS = { feed: 'feed()', stream: 'stream' }

/** Every results/parser-strings-<node>.json, oldest Node first: [{ file, version, json }]. */
export function loadStringResults (dir) {
  return readdirSync(dir)
    .map((file) => [file, FILE.exec(file)])
    .filter(([, m]) => m !== null)
    .map(([file, m]) => ({ file, version: m[1], json: JSON.parse(readFileSync(`${dir}/${file}`, 'utf8')) }))
    .sort((a, b) => compareVersions(a.version, b.version))
}

const processesOf = (json) => json.processes ?? 1
const short = (peer) => peer.replace('eventsource-parser@', 'e-p ')

// A file's rows in one shape: { shape, form, times: { name: { median, min, max } }, ratios: { peer:
// { ratio, perProcess (number[] | null), paired, min } } }: `paired` is the median of the per-round
// ratios and `min` the ratio of the minimum times (each the median across processes).
function rows (json) {
  if (json.summary) {
    return json.summary.map((s) => ({
      shape: s.shape,
      form: s.form,
      times: s.times,
      ratios: Object.fromEntries(Object.entries(s.ratios).map(([p, r]) => [p, { ratio: r.ratio, perProcess: r.perProcess.samples, paired: r.paired.median, min: r.min.median }]))
    }))
  }
  const one = (x) => ({ median: x.p50, min: x.p50, max: x.p50 })
  return json.results.map((r) => ({
    shape: r.shape,
    form: r.form,
    times: Object.fromEntries(Object.entries(r.times).map(([name, t]) => [name, one(t)])),
    ratios: Object.fromEntries(Object.entries(r.ratios).map(([p, ratio]) => [p, { ratio, perProcess: null, paired: r.paired[p], min: r.minRatios[p] }]))
  }))
}

// Above the target (at most 1.00), at the two decimals the tables show.
const above = (ratio) => Number(ratio.toFixed(2)) > 1

// A ratio with its range, in bold above 1.00; `compact` leaves out the words (the summary's cells).
function cell (json, r, compact = false) {
  if (r === undefined) return 'n/a'
  let text
  if (processesOf(json) === 1) text = `${r.ratio.toFixed(2)}x`
  else if (!compact) text = ratioCell(r.ratio, r.perProcess, 'per process')
  else text = `${r.ratio.toFixed(2)} (${Math.min(...r.perProcess).toFixed(2)}–${Math.max(...r.perProcess).toFixed(2)})`
  return above(r.ratio) ? `**${text}**` : text
}

// The columns of the summary: each run's forms, against each of its peers.
function columns (runs) {
  const out = []
  for (const run of runs) {
    for (const peer of run.json.peers) {
      for (const form of run.json.forms) {
        out.push({ run, peer, form, header: `Node ${run.json.node.split('.')[0].slice(1)} ${FORMS[form]}${run.json.peers.length > 1 ? ` vs ${short(peer)}` : ''}` })
      }
    }
  }
  return out
}

function summaryTable (runs) {
  const cols = columns(runs)
  const byRun = new Map(runs.map((run) => [run, rows(run.json)]))
  const shapes = runs[0].json.shapes.map((s) => s.name)
  const body = shapes.map((shape) => [shape, ...cols.map(({ run, peer, form }) => {
    const r = byRun.get(run).find((x) => x.shape === shape && x.form === form)
    return r ? cell(run.json, r.ratios[peer], true) : 'n/a'
  })])
  const counts = cols.map(({ run, peer, form }) => {
    const list = byRun.get(run).filter((x) => x.form === form)
    return `${list.filter((x) => !above(x.ratios[peer].ratio)).length}/${list.length}`
  })
  return table(['shape (ratio drop-in ÷ peer)', ...cols.map((c) => c.header)], [...body, ['at most 1.00', ...counts]])
}

// A ratio without range, in bold above 1.00.
const over = (x) => above(x) ? `**${fmtX(x)}**` : fmtX(x)

// What the verification found: every shape identical to the newest peer (or the benchmark would not
// have timed it); differences from an older peer, per kind.
function verification (json) {
  const [newest, ...older] = json.peers
  const lines = [`Verified before timing, both forms, every shape: the drop-in's callbacks identical to ${newest}'s, record for record, and its events to the text's model.`]
  for (const peer of older) {
    const differ = json.verification.filter((v) => v.differences.some((d) => d.against === peer))
    if (differ.length === 0) lines.push(`Identical to ${peer}'s events and callbacks (but onId, which it has not) on every shape.`)
    else lines.push(`${peer} differs on ${differ.length} of ${json.verification.length} shapes (events and callbacks but onId, which it has not): ${differ.map((v) => v.shape).join('; ')}.`)
  }
  return lines.join(' ')
}

function detail (run) {
  const { json } = run
  const n = processesOf(json)
  const time = (s) => n === 1 ? fmtTime(s.median) : spread(s, fmtTime)
  const shapes = new Map(json.shapes.map((s) => [s.name, s]))
  const header = ['shape', 'feeds', 'form', 'drop-in p50', ...json.peers.flatMap((p) => [`${short(p)} p50`, `÷ ${short(p)}`, 'paired', 'min'])]
  const body = rows(json).map((r) => [
    r.shape,
    shapes.get(r.shape).feeds.toLocaleString('en-US'),
    FORMS[r.form],
    time(r.times[json.dropIn]),
    ...json.peers.flatMap((p) => [time(r.times[p]), cell(json, r.ratios[p]), over(r.ratios[p].paired), over(r.ratios[p].min)])
  ])
  return [
    `#### Drop-in on strings, Node ${json.node}`, '',
    runHeading({
      file: run.file,
      node: json.node,
      v8: json.v8,
      date: json.date,
      git: json.git,
      samples: `${n === 1 ? 'one process (no range across processes)' : `${n} processes`}, at least ${json.sampling.minRounds} rounds per shape and form`,
      loadavg: [json.loadavg.before[0], json.loadavg.after[0]],
      note: json.note
    }), '',
    (n === 1 ? 'p50 per parser, one process; ratio: the drop-in\'s p50 ÷ the peer\'s.' : 'p50 per parser: median (range) across processes; ratio: the drop-in\'s median p50 ÷ the peer\'s (range of the per-process ratios).') +
      ' Beside it, two estimates less moved by the load on the machine: paired, the median of the per-round ratios (each round\'s two calls ran next to each other), and min, the ratio of the fastest calls' +
      (n === 1 ? '.' : ', each the median across processes.'), '',
    table(header, body), '',
    verification(json), ''
  ].join('\n')
}

/** benchmarks/README.md: the summary across Node versions, then every run's table, oldest Node first. */
export function parserStringsSection (dir) {
  const runs = loadStringResults(dir)
  if (runs.length === 0) return '_No results/parser-strings-*.json yet: run `npm run bench:strings -- --processes 3 --json benchmarks/results/parser-strings-$(node -v).json`._'
  return [
    'Ratio: the drop-in\'s median p50 ÷ eventsource-parser\'s, the same strings, in the same processes, with the range of' +
      ` the per-process ratios (${runs.map((r) => `\`results/${r.file}\``).join(', ')}); target at most 1.00 (at two decimals),` +
      ' above it in bold. The last row counts the shapes at or under it.', '',
    summaryTable(runs), '',
    ...runs.map(detail)
  ].join('\n')
}
