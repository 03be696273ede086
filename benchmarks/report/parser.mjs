// The parser sections of the report (../report.mjs), from results/parser-<node>.json: per fixture and
// Node version, the ratio ours ÷ the fastest peer of issue 28 (undici 7's and 8's EventSourceStream,
// eventsource-parser), ours ÷ each peer across the fixtures ("-" for a peer a file does not hold: files
// written before undici 8 was a peer), and the targets (../parser-targets.mjs). A file written with
// `--processes N` gives the median and range across its N processes; a single-process file has one
// p50 per parser (the median of mitata's samples) and no range across processes, which the report says.
// Each parser's p50s stay in the JSON.

import {
  table, summaryTable, paragraphs, ratioCell, runList, nodeColumn, acrossCases, fmtX, processesOf, processesText, runSummary
} from './format.mjs'
import { PARSER_PEERS, peerColumn, peerLabel } from '../parser-peers.mjs'
import { PARSER_TARGETS, targetApplies, targetMet } from '../parser-targets.mjs'

/** A peer's name in a file → its column's heading ("undici@8.12.4 EventSourceStream" → "undici 8 EventSourceStream"). */
const short = (name) => peerColumn(name) === null ? name.split('@')[0] : peerLabel(peerColumn(name))

/** A file's rows, the same shape for both kinds of file. */
function rows (json) {
  if (json.summary) {
    return json.summary.map((s) => ({
      fixture: s.fixture,
      ours: s.ours,
      peers: s.peers,
      fastestPeer: s.fastestPeer,
      ratio: s.ratio,
      perProcess: s.ratioPerProcess.samples
    }))
  }
  const one = (x) => ({ median: x.p50, min: x.p50, max: x.p50 })
  return json.ratios.map((r) => ({
    fixture: r.fixture,
    ours: one(r.ours),
    peers: Object.fromEntries(Object.entries(r.peers).map(([name, p]) => [name, one(p)])),
    fastestPeer: r.fastestPeerP50,
    ratio: r.ratioP50,
    perProcess: null
  }))
}

const runOf = (run) => runSummary(run, processesText(processesOf(run.json)))

const ratio = (json, r) => processesOf(json) === 1 ? fmtX(r.ratio) : ratioCell(r.ratio, r.perProcess, 'per process')
// The same without the words, for the cells of benchmarks/README.md's table (its caption says what the range is).
const compact = (json, r) => processesOf(json) === 1 ? fmtX(r.ratio) : ratioCell(r.ratio, r.perProcess, null)

// Each peer's column id → its name in this file, or undefined where the file does not hold it.
const peerNames = (list) => Object.fromEntries(PARSER_PEERS.map((id) => [id, Object.keys(list[0].peers).find((n) => peerColumn(n) === id)]))

// A target's cell: how many fixtures meet it, then met, **MISSED**, or "not a target" on that Node.
function targetCell (target, list, node) {
  const met = list.filter((r) => targetMet(target, r.ratio)).length
  const cell = `${met} of ${list.length}`
  return !targetApplies(target, node) ? `${cell} (not a target)` : met === list.length ? `${cell}: met` : `${cell}: **MISSED**`
}

// Whether every run's parsers gave identical events on every fixture, else which differ where.
function verification (runs) {
  const differ = runs.flatMap((run) => run.json.verification.filter((v) => v.differences.length > 0)
    .map((v) => `${v.fixture} on ${run.json.node} (${v.differences.map((d) => short(d.implementation)).join(', ')})`))
  return differ.length === 0
    ? 'Verified before timing, in every run: each fixture gives identical events across ours and the peers.'
    : `Verified before timing; differences: ${differ.join('; ')}.`
}

/**
 * benchmarks/README.md: ours ÷ the fastest peer per fixture (rows) and Node version (columns), then
 * ours ÷ each peer and the string form across fixtures, the targets, and the runs.
 */
export function parserSection (runs) {
  if (runs.length === 0) return '_No results/parser-*.json yet: run `npm run bench -- --json benchmarks/results/parser-$(node -v).json`._'
  const lists = new Map(runs.map((run) => [run, rows(run.json)]))
  const fixtures = rows(runs.at(-1).json).map((r) => r.fixture)
  const body = fixtures.map((f) => [f, ...runs.map((run) => {
    const r = lists.get(run).find((x) => x.fixture === f)
    return r ? compact(run.json, r) : 'n/a'
  })])
  for (const id of PARSER_PEERS) {
    body.push([`all fixtures: ours ÷ ${peerLabel(id)}`, ...runs.map((run) => {
      const list = lists.get(run)
      const name = peerNames(list)[id]
      return name === undefined ? '-' : acrossCases(list.map((r) => r.ours.median / r.peers[name].median))
    })])
  }
  if (runs.some((run) => stringRows(run.json).length !== 0)) {
    body.push(['all fixtures, as strings: the drop-in ÷ eventsource-parser', ...runs.map((run) => acrossCases(stringRows(run.json).map((r) => r.ratio)))])
  }
  for (const t of PARSER_TARGETS) body.push([`target: ${t.what}, fixtures`, ...runs.map((run) => targetCell(t, lists.get(run), run.json.node))])
  return paragraphs([
    'Ratio: ours\' median p50 ÷ the fastest peer\'s, per fixture (below 1 is faster), with the range of the per-process' +
      ' ratios. The rows "all fixtures" give the median ratio over the fixtures and, in brackets, the lowest and the highest;' +
      ' "-": the peer is not in that file (the run predates it). The string form times our drop-in' +
      ' (`whatwg-eventsource/parser`) against eventsource-parser on the fixtures decoded to strings.', '',
    summaryTable(['fixture', ...runs.map((run) => nodeColumn(run.json.node))], body), '',
    verification(runs), '',
    runList(runs.map(runOf))
  ])
}

// The string form's rows (drop-in ÷ eventsource-parser), in the shape of rows(); [] for a file without
// them (a `--form bytes` run, or one from before the string form was saved).
function stringRows (json) {
  if (json.stringSummary) {
    return json.stringSummary.map((s) => ({ fixture: s.fixture, ours: s.ours, esp: s.esp, ratio: s.ratio, perProcess: s.ratioPerProcess.samples }))
  }
  return []
}

// A table of one ratio per fixture (rows) and Node version (columns), from each run's `rowsOf` rows.
function ratioByNode (runs, rowsOf, firstHeader) {
  const fixtures = rowsOf(runs[0].json).map((r) => r.fixture)
  const header = [firstHeader, ...runs.map((run) => `Node ${run.json.node}${processesOf(run.json) === 1 ? ' (one process)' : ` (${processesOf(run.json)} processes)`}`)]
  const body = fixtures.map((f) => [f, ...runs.map((run) => {
    const r = rowsOf(run.json).find((x) => x.fixture === f)
    return r ? ratio(run.json, r) : 'n/a'
  })])
  return table(header, body)
}

/** docs/migrating-from-eventsource-parser.md: the string form's ratio per fixture (rows) and Node version (columns). */
export function dropInSummary (runs) {
  const withStrings = runs.filter((run) => stringRows(run.json).length !== 0)
  if (withStrings.length === 0) return '_No string-form results yet._'
  return [ratioByNode(withStrings, stringRows, 'fixture (strings)'), '',
    `Drop-in time ÷ eventsource-parser's, the same strings, from ${withStrings.map((r) => `\`benchmarks/results/${r.file}\``).join(', ')}.`].join('\n')
}

/** Per target (rows) and Node version (columns): on how many fixtures it is met; then the peers measured. */
function targetsTable (runs) {
  const header = ['target: ours ÷ the fastest peer', ...runs.map((run) => `Node ${run.json.node}`)]
  const body = PARSER_TARGETS.map((t) => [t.what, ...runs.map((run) => {
    const list = rows(run.json)
    const met = list.filter((r) => targetMet(t, r.ratio)).length
    const cell = `${met} of ${list.length} fixtures`
    return !targetApplies(t, run.json.node) ? `${cell} (not a target)` : met === list.length ? `${cell}: met` : `${cell}: **MISSED**`
  })])
  body.push(['peers measured', ...runs.map((run) => PARSER_PEERS.map((id) => Object.keys(rows(run.json)[0].peers).some((n) => peerColumn(n) === id) ? peerLabel(id) : '-').join(', '))])
  return table(header, body)
}

/** docs/performance.md: ratio per fixture (rows) and Node version (columns), then the targets per Node. */
export function parserSummary (runs) {
  if (runs.length === 0) return '_No parser results yet._'
  const notes = runs.filter((r) => r.json.note).map((r) => `> Note (Node ${r.json.node}): ${r.json.note}.`)
  return [...notes.flatMap((n) => [n, '']), ratioByNode(runs, rows, 'fixture'), '', targetsTable(runs), '',
    `From ${runs.map((r) => `\`benchmarks/results/${r.file}\``).join(', ')}; a range is given where the file holds several processes.`].join('\n')
}
