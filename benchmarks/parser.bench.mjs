// Parser benchmark: our EventSourceParser side by side with the peers of issue 28 (undici 7's and
// undici 8's EventSourceStream, eventsource-parser 4; ./parser-peers.mjs loads them), on the fixtures
// of ./fixtures.mjs, in one run, with ours ÷ the fastest peer per fixture against the targets of
// ./parser-targets.mjs. Then the string form: our drop-in for eventsource-parser
// (whatwg-eventsource/parser) against eventsource-parser itself, both fed the same strings.
//
//   npm run bench                                   all fixtures
//   node benchmarks/parser.bench.mjs --json out.json  also save the raw results (or BENCH_JSON=out.json)
//   node benchmarks/parser.bench.mjs --filter 1-byte  only fixtures whose name matches the RegExp
//   node benchmarks/parser.bench.mjs --verify-only    check the outputs, time nothing
//   node benchmarks/parser.bench.mjs --gc once        mitata's default GC (once per benchmark) instead of
//                                                     a full GC before every sample ('inner', the default)
//   node benchmarks/parser.bench.mjs --no-keep        do not keep the previous iteration's parser alive
//                                                     (shows the artefact described below)
//   node benchmarks/parser.bench.mjs --processes 3    the whole run in 3 fresh processes, one after
//                                                     another, then each fixture's p50 across them:
//                                                     median and range (./parser-processes.mjs)
//   node benchmarks/parser.bench.mjs --note 'text'    stored in the JSON (e.g. "quick run, loaded machine")
//   node benchmarks/parser.bench.mjs --form strings   only the string form (or --form bytes: only bytes)
//   node benchmarks/parser.bench.mjs --budget 50      mitata's time budget per benchmark in ms (default
//                                                     642): a quick run that proves it runs, not figures
//   node benchmarks/parser.bench.mjs --peers undici8  only these peers (ids: undici7, undici8,
//                                                     eventsource-parser; default all three)
//
// Before timing, every implementation parses every fixture once and its output is compared with the
// fixture's model (the events the generator wrote). Inside the timed iteration each implementation
// gets a fresh parser, is fed the same Buffer chunk list, and its event count is asserted.
//
// Why each implementation keeps its previous iteration's parser alive: by default mitata runs a full
// GC before every sample (see ./parser-timing.mjs). If no instance of a parser is alive then, V8
// drops what only live instances kept: the class's instance maps (map transitions are weak), so
// optimized code specialized on them is deoptimized ("reason: weak objects" under --trace-deopt),
// and, for a closure-based parser, the optimized code held only by dead closures. Every sample would
// then time deoptimized code re-warming: on this machine 3-15x slower at p50 than steady state, by an
// amount that differs per implementation. A process with an open EventSource always has a live parser, so
// one retained instance per implementation is the realistic state. `--no-keep` reproduces the artefact.

import { writeFileSync, mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import os from 'node:os'
import { buildFixtures, digest } from './fixtures.mjs'
import { runHeader, exposeGc, option } from './e2e/common.mjs'

// ---- options ----

const argv = process.argv.slice(2)
const jsonPath = option('--json') ?? process.env.BENCH_JSON
const note = option('--note') ?? null

// --processes N (N > 1): this process times nothing; it runs the benchmark in N child processes
// (--verify-only times nothing anyway: it runs here, once).
const processes = Number(option('--processes') ?? '1')
if (processes > 1 && !argv.includes('--verify-only')) {
  const { runProcesses } = await import('./parser-processes.mjs')
  await runProcesses({ processes, argv, jsonPath, note })
  process.exit(0)
}

exposeGc()
const { do_not_optimize } = await import('mitata') // eslint-disable-line camelcase -- mitata's name
const { timeEntries } = await import('./parser-timing.mjs')

const { OURS, DROP_IN, PARSER_PEERS, peerInfo, byteImplementations, stringImplementations, toStrings, firstDifference } = await import('./parser-peers.mjs')
const { PARSER_TARGETS, parserStatus, parserTargetLines } = await import('./parser-targets.mjs')

const filter = new RegExp(option('--filter') ?? '.*')
const verifyOnly = argv.includes('--verify-only')
const gcMode = option('--gc') ?? 'inner'
if (gcMode !== 'inner' && gcMode !== 'once') throw new Error('--gc takes inner or once')
const keepAlive = !argv.includes('--no-keep')
const form = option('--form') ?? 'both'
if (!['both', 'bytes', 'strings'].includes(form)) throw new Error('--form takes bytes or strings')
const timeBytes = form !== 'strings'
const timeStrings = form !== 'bytes'
// --peers undici7,eventsource-parser: a subset of the peers (default: all of them, on every Node).
const peerIds = (option('--peers') ?? PARSER_PEERS.join(',')).split(',')
const peers = peerIds.map(peerInfo)
const budgetMs = option('--budget') === undefined ? undefined : Number(option('--budget'))

// ---- implementations ----
// ./parser-peers.mjs: ours and each peer, how each is fed. count(chunks) is the timed form and returns
// the number of events; collect(chunks) feeds the same way, recording what the consumer sees.

const implementations = await byteImplementations({ peers: peerIds, keepAlive })
const stringImpls = await stringImplementations({ keepAlive })
const ESP = stringImpls[1].name

// ---- environment ----

const cpuModel = os.cpus()[0]?.model ?? 'unknown'
const loadBefore = os.loadavg()
const fmtLoad = (l) => l.map((x) => x.toFixed(2)).join(' ')
const fmtBytes = (n) => n >= 1024 * 1024 ? `${(n / 1024 / 1024).toFixed(2)} MiB` : n >= 1024 ? `${(n / 1024).toFixed(1)} KiB` : `${n} B`
const fmtTime = (ns) => ns >= 1e6 ? `${(ns / 1e6).toFixed(2)} ms` : `${(ns / 1e3).toFixed(1)} µs`

console.log(`node ${process.version} (v8 ${process.versions.v8}), ${os.platform()}-${os.arch()}`)
console.log(`cpu: ${cpuModel}, ${os.availableParallelism?.() ?? os.cpus().length} logical cores; load average ${fmtLoad(loadBefore)}`)
for (const p of peers) {
  console.log(`peer: ${p.name}, engines node ${p.engines ?? 'any'}${p.supported ? '' : ` (outside it on ${process.version}: timed anyway, a parser needs nothing newer)`}`)
}
console.log(`targets: ${PARSER_TARGETS.map((t) => t.what).join('; ')}`)
console.log(`mitata gc: ${gcMode === 'inner' ? "'inner' (full GC before every sample)" : "'once' (per benchmark)"}; one call per sample, never batched; previous parser kept alive: ${keepAlive}`)
console.log('')

const fixtures = buildFixtures().filter((f) => filter.test(f.name))
if (fixtures.length === 0) throw new Error(`no fixture matches ${filter}`)

const nameWidth = Math.max(...fixtures.map((f) => f.name.length))
console.log('fixtures:')
for (const f of fixtures) {
  console.log(`  ${f.name.padEnd(nameWidth)}  ${fmtBytes(f.bytes).padStart(10)} in ${String(f.chunks.length).padStart(6)} chunks, ${String(f.events.length).padStart(5)} events`)
}
console.log('')

// ---- verification ----

const verification = []
let oursWrong = false
console.log('verification (each implementation against the fixture model):')
for (const f of fixtures) {
  const wantDigest = digest(f.events, f.retries)
  const entry = { fixture: f.name, events: f.events.length, retries: f.retries.length, digest: wantDigest, differences: [], expectedCount: {} }
  for (const impl of implementations) {
    const got = impl.collect(f.chunks)
    entry.expectedCount[impl.name] = got.events.length
    const diff = firstDifference(got.events, f.events)
    if (diff !== null) {
      entry.differences.push({ implementation: impl.name, what: 'events', count: got.events.length, detail: diff })
    } else if (got.retries.join() !== f.retries.join()) {
      entry.differences.push({
        implementation: impl.name,
        what: 'retries',
        detail: `retry values (${got.retryNote}): expected ${f.retries.length} [${f.retries.slice(0, 5)}…], got ${got.retries.length} [${got.retries.slice(0, 5)}…]`
      })
    }
    if (impl.name === OURS && digest(got.events, got.retries) !== wantDigest) oursWrong = true
    // The timed iteration asserts this implementation's own (verified or documented) count.
    if (impl.count(f.chunks) !== got.events.length) throw new Error(`${impl.name}: count() and collect() disagree on ${f.name}`)
  }
  verification.push(entry)
  if (entry.differences.length === 0) {
    const retryText = f.retries.length ? ` and ${f.retries.length} retry values` : ''
    console.log(`  ${f.name.padEnd(nameWidth)}  verified: ${f.events.length} event${f.events.length === 1 ? '' : 's'}${retryText} identical across ${implementations.length} parsers`)
  } else {
    console.log(`  ${f.name.padEnd(nameWidth)}  DIFFERS:`)
    for (const d of entry.differences) console.log(`    ${d.implementation}: ${d.detail}`)
  }
}
const stringVerification = []
if (timeStrings) {
  console.log('')
  console.log('verification, string form (each against the fixture model):')
  for (const f of fixtures) {
    f.strings = toStrings(f.chunks)
    const entry = { fixture: f.name, strings: f.strings.length, differences: [], expectedCount: {} }
    for (const impl of stringImpls) {
      const got = impl.collect(f.strings)
      entry.expectedCount[impl.name] = got.events.length
      const diff = firstDifference(got.events, f.events)
      if (diff !== null) entry.differences.push({ implementation: impl.name, what: 'events', detail: diff })
      else if (got.retries.join() !== f.retries.join()) entry.differences.push({ implementation: impl.name, what: 'retries', detail: 'retry values differ' })
      if (impl.count(f.strings) !== got.events.length) throw new Error(`${impl.name}: count() and collect() disagree on ${f.name}`)
    }
    stringVerification.push(entry)
    if (entry.differences.some((d) => d.implementation === DROP_IN)) oursWrong = true
    console.log(entry.differences.length === 0
      ? `  ${f.name.padEnd(nameWidth)}  verified: ${f.events.length} events in ${f.strings.length} strings, identical across ${stringImpls.length} parsers`
      : `  ${f.name.padEnd(nameWidth)}  DIFFERS: ${entry.differences.map((d) => `${d.implementation}: ${d.detail}`).join('; ')}`)
  }
}
console.log('')
if (oursWrong) {
  console.error(`${OURS} does not produce the fixture's events; refusing to time it.`)
  process.exit(1)
}
if (verifyOnly) process.exit(verification.some((v) => v.differences.length) ? 2 : 0)

// ---- benchmarks ----
// Timed one call per sample, never batched (./parser-timing.mjs says why), in this order: each
// fixture's implementations side by side, the byte form's fixtures, then the string form's.

// One entry per implementation of a fixture: it parses `input` (chunks or strings) with a fresh
// parser and checks the count of events found when the outputs were verified.
function fixtureEntries (group, impls, input, expectedCount) {
  return impls.map((impl) => {
    const expected = expectedCount[impl.name]
    const count = impl.count
    return {
      group,
      name: impl.name,
      fn: () => {
        const n = count(input)
        if (n !== expected) throw new Error(`${impl.name}: expected ${expected} events, got ${n}`)
        return do_not_optimize(n)
      }
    }
  })
}

const entries = []
for (const f of timeBytes ? fixtures : []) {
  const { expectedCount } = verification.find((v) => v.fixture === f.name)
  entries.push(...fixtureEntries(f.name, implementations, f.chunks, expectedCount))
}
const STRINGS = ' (strings)'
for (const f of timeStrings ? fixtures : []) {
  const { expectedCount } = stringVerification.find((v) => v.fixture === f.name)
  entries.push(...fixtureEntries(f.name + STRINGS, stringImpls, f.strings, expectedCount))
}

const result = await timeEntries(entries, { gcMode, budgetMs, formatTime: fmtTime, log: (line) => console.log(line) })
const loadAfter = os.loadavg()

// ---- ratios ----
// For each fixture: our time divided by the fastest peer's, on p50 (the median sample) and on min.

const ratios = []
for (const f of timeBytes ? fixtures : []) {
  const groupId = result.layout.findIndex((l) => l.name === f.name)
  const stats = {}
  for (const b of result.benchmarks) if (b.group === groupId) stats[b.alias] = b.runs[0].stats
  const ours = stats[OURS]
  const timed = implementations.filter((i) => i.name !== OURS).map((i) => ({ name: i.name, ...stats[i.name] }))
  const fastestP50 = timed.reduce((a, b) => (b.p50 < a.p50 ? b : a))
  const fastestMin = timed.reduce((a, b) => (b.min < a.min ? b : a))
  const row = {
    fixture: f.name,
    ours: { p50: ours.p50, min: ours.min, avg: ours.avg },
    peers: Object.fromEntries(timed.map((p) => [p.name, { p50: p.p50, min: p.min, avg: p.avg }])),
    fastestPeerP50: fastestP50.name,
    fastestPeerMin: fastestMin.name,
    ratioP50: ours.p50 / fastestP50.p50,
    ratioMin: ours.min / fastestMin.min,
    differs: verification.find((v) => v.fixture === f.name).differences.map((d) => d.implementation)
  }
  row.targets = parserStatus(row.ratioP50, process.version)
  ratios.push(row)
}

// Short names in the printed tables: the peer ids (undici7, undici8, eventsource-parser).
const short = (name) => implementations.find((i) => i.name === name)?.id ?? stringImpls.find((i) => i.name === name)?.id ?? name
if (timeBytes) printRatios()
function printRatios () {
  const peerNames = implementations.filter((i) => i.name !== OURS).map((i) => i.name)
  const width = (name) => Math.max(9, short(name).length + 4)
  console.log('')
  console.log(`ratios on ${process.version}: ${OURS} time / the fastest peer's time, same run (p50 = the median sample)`)
  console.log([
    'fixture'.padEnd(nameWidth), 'ours p50 '.padStart(9), 'ours min '.padStart(9), ...peerNames.map((n) => `${short(n)} p50`.padStart(width(n))),
    'fastest'.padEnd(18), 'p50 ratio', 'min ratio', ...PARSER_TARGETS.map((t) => t.short)
  ].join(' | '))
  for (const r of ratios) {
    console.log([
      r.fixture.padEnd(nameWidth),
      fmtTime(r.ours.p50).padStart(9),
      fmtTime(r.ours.min).padStart(9),
      ...peerNames.map((n) => fmtTime(r.peers[n].p50).padStart(width(n))),
      short(r.fastestPeerP50).padEnd(18),
      r.ratioP50.toFixed(2).padStart(9),
      r.ratioMin.toFixed(2).padStart(9),
      ...PARSER_TARGETS.map((t) => r.targets[t.id].padEnd(t.short.length))
    ].join(' | ') + (r.differs.length ? ` (output differs: ${r.differs.map(short).join(', ')})` : ''))
  }
  console.log('')
  for (const line of parserTargetLines(ratios.map((r) => ({ fixture: r.fixture, ratio: r.ratioP50 })), process.version)) console.log(line)
}

// The string form: the drop-in's time divided by eventsource-parser's, on the same strings.
const stringRatios = []
for (const f of timeStrings ? fixtures : []) {
  const groupId = result.layout.findIndex((l) => l.name === f.name + STRINGS)
  const stats = {}
  for (const b of result.benchmarks) if (b.group === groupId) stats[b.alias] = b.runs[0].stats
  const row = {
    fixture: f.name,
    ours: { p50: stats[DROP_IN].p50, min: stats[DROP_IN].min, avg: stats[DROP_IN].avg },
    esp: { p50: stats[ESP].p50, min: stats[ESP].min, avg: stats[ESP].avg },
    ratioP50: stats[DROP_IN].p50 / stats[ESP].p50,
    ratioMin: stats[DROP_IN].min / stats[ESP].min,
    differs: stringVerification.find((v) => v.fixture === f.name).differences.map((d) => d.implementation)
  }
  row.verdict = row.ratioP50 <= 1 ? 'at least as fast' : 'slower'
  stringRatios.push(row)
}
if (timeStrings) {
  console.log('')
  console.log(`string form: ${DROP_IN} time / ${ESP} time, the same strings, same run (target <= 1.00)`)
  console.log(`${'fixture'.padEnd(nameWidth)} | drop-in p50 | drop-in min | e-p p50    | e-p min    | p50 ratio | min ratio | verdict`)
  for (const r of stringRatios) {
    console.log([
      r.fixture.padEnd(nameWidth),
      fmtTime(r.ours.p50).padStart(10),
      fmtTime(r.ours.min).padStart(10),
      fmtTime(r.esp.p50).padStart(9),
      fmtTime(r.esp.min).padStart(9),
      r.ratioP50.toFixed(2).padStart(9),
      r.ratioMin.toFixed(2).padStart(9),
      r.verdict + (r.differs.length ? ` (output differs: ${r.differs.map(short).join(', ')})` : '')
    ].join(' | '))
  }
  const slower = stringRatios.filter((r) => r.ratioP50 > 1)
  console.log('')
  console.log(slower.length === 0
    ? 'the drop-in is at least as fast as eventsource-parser on every fixture (p50)'
    : `slower than eventsource-parser (p50): ${slower.map((r) => `${r.fixture} (${r.ratioP50.toFixed(2)})`).join('; ')}`)
}
console.log(`load average before ${fmtLoad(loadBefore)}, after ${fmtLoad(loadAfter)}`)

// ---- JSON ----

// Drops the generated loop source ("debug") and replaces the sorted sample array (up to a million
// numbers) by its count and its 0th..100th percentiles.
function trimStats (stats) {
  const { samples, debug, ...rest } = stats
  const percentiles = Array.from({ length: 101 }, (_, p) => samples[Math.round((p / 100) * (samples.length - 1))])
  return { ...rest, samples: samples.length, percentiles }
}

if (jsonPath) {
  const out = {
    ...runHeader({ cpu: cpuModel, note, loadBefore, loadAfter }),
    gc: gcMode,
    budgetMs: budgetMs ?? null,
    form,
    keepAlive,
    // Each peer's id, version, engines range and whether this Node is inside it.
    peers: Object.fromEntries(peers.map(({ name, ...rest }) => [name, rest])),
    fixtures: fixtures.map((f) => ({ name: f.name, bytes: f.bytes, chunks: f.chunks.length, events: f.events.length })),
    verification,
    ratios,
    stringVerification,
    stringRatios,
    // mitata's own result, with each stats object trimmed (see trimStats).
    mitata: {
      context: result.context,
      layout: result.layout,
      benchmarks: result.benchmarks.map((b) => ({ ...b, runs: b.runs.map((r) => ({ ...r, stats: trimStats(r.stats) })) }))
    }
  }
  mkdirSync(dirname(jsonPath), { recursive: true })
  writeFileSync(jsonPath, JSON.stringify(out))
  console.log(`raw results written to ${jsonPath}`)
}
