// The parser sections of the report (../report.mjs), from results/parser-<node>.json: per Node version,
// each fixture's p50 for ours and the two peers and the ratio ours ÷ fastest peer. A file written with
// `--processes N` gives the median and range across its N processes; a single-process file has one
// p50 per parser (the median of mitata's samples) and no range across processes, which the report says.

import { table, spread, ratioCell, runHeading, fmtTime, fmtX } from './format.mjs'

const short = (name) => name.split('@')[0]

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

const verdict = (ratio) => ratio <= 0.5 ? 'meets' : ratio < 1 ? '**misses** (faster than both)' : '**misses** (NOT faster)'
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
    const peerNames = Object.keys(list[0].peers)
    const multi = processesOf(json) > 1
    out.push(`#### Parser, Node ${json.node}`, '', heading(run), '')
    out.push(multi
      ? 'p50 per parser: median (range) across processes; ratio: ours\' median p50 ÷ the fastest peer\'s (range of the per-process ratios).'
      : 'p50 per parser, one process; ratio: ours ÷ the fastest peer\'s p50.', '')
    out.push(table(['fixture', 'ours p50', ...peerNames.map((n) => `${n} p50`), 'fastest peer', 'ratio', 'target 0.5x'],
      list.map((r) => [r.fixture, time(json, r.ours), ...peerNames.map((n) => time(json, r.peers[n])), short(r.fastestPeer), ratio(json, r), verdict(r.ratio)])), '')
    const meets = list.filter((r) => r.ratio <= 0.5).length
    const faster = list.filter((r) => r.ratio < 1).length
    out.push(`Meets 0.5x on ${meets} of ${list.length} fixtures; faster than both peers on ${faster} of ${list.length}. ${verification(json)}`, '')
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

/** docs/performance.md: ratio per fixture (rows) and Node version (columns). */
export function parserSummary (runs) {
  if (runs.length === 0) return '_No parser results yet._'
  const notes = runs.filter((r) => r.json.note).map((r) => `> Note (Node ${r.json.node}): ${r.json.note}.`)
  return [...notes.flatMap((n) => [n, '']), ratioByNode(runs, rows, 'fixture'), '',
    `From ${runs.map((r) => `\`benchmarks/results/${r.file}\``).join(', ')}; a range is given where the file holds several processes.`].join('\n')
}
