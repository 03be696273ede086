// The drop-in-on-strings section of the report (../report.mjs), from results/parser-strings-<node>.json
// (../parser-strings.bench.mjs): the ratio drop-in ÷ eventsource-parser across the shapes, per form and
// peer (rows) and Node version (columns). Each shape's ratio and p50s (medians and ranges across
// processes) stay in the JSON.

import { readdirSync, readFileSync } from 'node:fs'
import {
  summaryTable, paragraphs, wrap, runList, nodeColumn, acrossCases, fmtX, compareVersions, processesOf, processesText, runSummary
} from './format.mjs'

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

const runOf = (run) => runSummary(run,
  `${processesText(processesOf(run.json))}, at least ${run.json.sampling.minRounds} rounds per shape and form`)

// What the verification found: every shape identical to the newest peer (or the benchmark would not
// have timed it); the shapes on which an older peer differs, counted.
function verification (runs) {
  const newest = [...new Set(runs.map((run) => run.json.peers[0]))].join(' and ')
  const lines = [`Verified before timing, both forms, every shape: the drop-in's callbacks identical to ${newest}'s, record for record, and its events to the text's model.`]
  for (const run of runs) {
    for (const peer of run.json.peers.slice(1)) {
      const differ = run.json.verification.filter((v) => v.differences.some((d) => d.against === peer)).length
      lines.push(`${peer} (on ${run.json.node}) differs on ${differ} of ${run.json.verification.length} shapes (events and callbacks but onId, which it has not).`)
    }
  }
  return lines.join(' ')
}

/**
 * benchmarks/README.md: per form and peer (rows) and Node version (columns), the ratio drop-in ÷ peer
 * across the shapes: the median, the lowest and the highest; how many shapes are at most 1.00; then the
 * slowest shape of each. Each shape's ratio and p50s stay in the JSON.
 */
export function parserStringsSection (dir) {
  const runs = loadStringResults(dir)
  if (runs.length === 0) return '_No results/parser-strings-*.json yet: run `npm run bench:strings -- --processes 3 --json benchmarks/results/parser-strings-$(node -v).json`._'
  const lists = new Map(runs.map((run) => [run, rows(run.json)]))
  const peers = [...new Set(runs.flatMap((run) => run.json.peers))]
  const body = []
  const slowest = []
  for (const peer of peers) {
    for (const form of Object.keys(FORMS)) {
      const listOf = (run) => lists.get(run).filter((r) => r.form === form && r.ratios[peer])
      const cells = (fn) => runs.map((run) => listOf(run).length === 0 ? '-' : fn(listOf(run)))
      const name = `${FORMS[form]} ÷ ${short(peer)}`
      body.push([`${name}: all shapes`, ...cells((list) => acrossCases(list.map((r) => r.ratios[peer].ratio)))])
      body.push([`${name}: shapes at most 1.00`, ...cells((list) => `${list.filter((r) => !above(r.ratios[peer].ratio)).length} of ${list.length}`)])
      const worst = runs.filter((run) => listOf(run).length !== 0).map((run) => {
        const shape = listOf(run).reduce((a, b) => (b.ratios[peer].ratio > a.ratios[peer].ratio ? b : a))
        return `${run.json.node} ${fmtX(shape.ratios[peer].ratio)} (${shape.shape})`
      })
      slowest.push(wrap(`- ${name}: ${worst.join(', ')}`, 120, '  '))
    }
  }
  return paragraphs([
    'Ratio: the drop-in\'s median p50 ÷ the peer\'s, the same strings, in the same processes (target: at most 1.00, at two' +
      ' decimals). "all shapes": the median ratio over the shapes and, in brackets, the lowest and the highest; "-": the' +
      ' peer is not measured on that Node.', '',
    summaryTable(['form ÷ peer', ...runs.map((run) => nodeColumn(run.json.node))], body), '',
    ['The slowest shape of each:', '', ...slowest].join('\n'), '',
    verification(runs), '',
    runList(runs.map(runOf))
  ])
}
