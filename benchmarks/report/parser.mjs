// The parser sections of the report (../report.mjs), from results/parser-<node>.json: per Node version,
// each fixture's p50 for ours and each peer of issue 28 (undici 7's and 8's EventSourceStream,
// eventsource-parser; "-" for a peer a file does not hold: files written before undici 8 was a peer),
// the ratio ours ÷ the fastest peer measured, and the targets (../parser-targets.mjs). A file written with
// `--processes N` gives the median and range across its N processes; a single-process file has one
// p50 per parser (the median of mitata's samples) and no range across processes, which the report says.

import { table, spread, ratioCell, runHeading, fmtTime, fmtX } from './format.mjs'
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

const processesOf = (json) => json.processes ?? 1

function heading (run) {
  const { json } = run
  const n = processesOf(json)
  return runHeading({
    file: run.file,
    node: json.node,
    v8: json.v8,
    date: json.date,
    git: json.git,
    samples: n === 1 ? 'one process (no range across processes)' : `${n} processes`,
    loadavg: [json.loadavg.before[0], json.loadavg.after[0]],
    note: json.note
  })
}

// A target's cell: met, **MISSED**, or n/a where it is not a target on that Node.
const status = (target, ratio, node) => !targetApplies(target, node) ? 'n/a' : targetMet(target, ratio) ? 'met' : '**MISSED**'
const time = (json, s) => processesOf(json) === 1 ? fmtTime(s.median) : spread(s, fmtTime)
const ratio = (json, r) => processesOf(json) === 1 ? fmtX(r.ratio) : ratioCell(r.ratio, r.perProcess, 'per process')

function verification (json) {
  const differ = json.verification.filter((v) => v.differences.length > 0)
  const parsers = 1 + Object.keys(json.peers).length
  if (differ.length === 0) return `Verified before timing: all ${json.verification.length} fixtures give identical events across the ${parsers} parsers.`
  return `Verified before timing: ${json.verification.length - differ.length} of ${json.verification.length} fixtures identical across the ${parsers} parsers; ` +
    `differences: ${differ.map((v) => `${v.fixture} (${v.differences.map((d) => short(d.implementation)).join(', ')})`).join('; ')}.`
}

/** benchmarks/README.md: every parser file's table, oldest Node first. */
export function parserSection (runs) {
  if (runs.length === 0) return '_No results/parser-*.json yet: run `npm run bench -- --json benchmarks/results/parser-$(node -v).json`._'
  const out = []
  for (const run of runs) {
    const { json } = run
    const list = rows(json)
    // Each column's peer name in this file, or undefined: "-" in its cells.
    const names = Object.fromEntries(PARSER_PEERS.map((id) => [id, Object.keys(list[0].peers).find((n) => peerColumn(n) === id)]))
    const missing = PARSER_PEERS.filter((id) => names[id] === undefined)
    const multi = processesOf(json) > 1
    out.push(`#### Parser, Node ${json.node}`, '', heading(run), '')
    out.push(multi
      ? 'p50 per parser: median (range) across processes; ratio: ours\' median p50 ÷ the fastest peer\'s (range of the per-process ratios).'
      : 'p50 per parser, one process; ratio: ours ÷ the fastest peer\'s p50.', '')
    out.push(`Peers: ${PARSER_PEERS.filter((id) => names[id]).map((id) => `\`${names[id]}\``).join(', ')}` +
      (missing.length ? `; not in this file ("-"): ${missing.map(peerLabel).join(', ')} (the run predates it as a peer).` : '.'), '')
    out.push(table(['fixture', 'ours p50', ...PARSER_PEERS.map((id) => `${peerLabel(id)} p50`), 'fastest peer', 'ratio', ...PARSER_TARGETS.map((t) => `target: ${t.short}`)],
      list.map((r) => [r.fixture, time(json, r.ours), ...PARSER_PEERS.map((id) => names[id] ? time(json, r.peers[names[id]]) : '-'), short(r.fastestPeer), ratio(json, r),
        ...PARSER_TARGETS.map((t) => status(t, r.ratio, json.node))])), '')
    const counts = PARSER_TARGETS.map((t) => `${t.what}: ${list.filter((r) => targetMet(t, r.ratio)).length} of ${list.length} fixtures` +
      (targetApplies(t, json.node) ? '' : ` (not a target on Node ${json.node.split('.')[0].slice(1)})`))
    out.push(`Targets: ${counts.join('; ')}. ${verification(json)}`, '')
    const strings = stringRows(json)
    if (strings.length !== 0) {
      out.push(`String form, Node ${json.node}: the drop-in (\`whatwg-eventsource/parser\`) and eventsource-parser fed the same strings; ` +
        (multi ? 'p50: median (range) across processes; ratio: drop-in ÷ eventsource-parser (range of the per-process ratios).' : 'p50, one process.'), '')
      out.push(table(['fixture (strings)', 'drop-in p50', 'eventsource-parser p50', 'ratio', 'target 1x'],
        strings.map((r) => [r.fixture, time(json, r.ours), time(json, r.esp), ratio(json, r), stringVerdict(r.ratio)])), '')
      out.push(`At least as fast as eventsource-parser on ${strings.filter((r) => r.ratio <= 1).length} of ${strings.length} fixtures.`, '')
    }
  }
  return out.join('\n')
}

// The string form's rows (drop-in ÷ eventsource-parser), in the shape of rows(); [] for a file without
// them (a `--form bytes` run, or one from before the string form was saved).
function stringRows (json) {
  if (json.stringSummary) {
    return json.stringSummary.map((s) => ({ fixture: s.fixture, ours: s.ours, esp: s.esp, ratio: s.ratio, perProcess: s.ratioPerProcess.samples }))
  }
  return []
}

const stringVerdict = (ratio) => ratio <= 1 ? 'meets' : '**misses** (slower)'

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
