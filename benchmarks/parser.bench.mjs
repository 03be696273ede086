// Parser benchmark: our EventSourceParser side by side with undici@7's EventSourceStream and
// eventsource-parser@4, on the fixtures of ./fixtures.mjs, in one run. Then the string form: our
// drop-in for eventsource-parser (whatwg-eventsource/parser) against eventsource-parser itself, both
// fed the same strings.
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

import { createRequire } from 'node:module'
import { writeFileSync, mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import os from 'node:os'
import v8 from 'node:v8'
import vm from 'node:vm'
import { buildFixtures, digest } from './fixtures.mjs'
import { gitState } from './e2e/common.mjs'

// ---- options ----

const argv = process.argv.slice(2)
function option (name) {
  const i = argv.indexOf(name)
  return i === -1 ? undefined : argv[i + 1]
}
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

// mitata's GC before each sample wants a real gc(); without --expose-gc it allocates 1 GiB instead.
// `npm run bench` runs plain `node`, so expose it here, before mitata is loaded and looks for it.
if (typeof globalThis.gc !== 'function') {
  v8.setFlagsFromString('--expose-gc')
  globalThis.gc = vm.runInNewContext('gc')
}
const { do_not_optimize } = await import('mitata') // eslint-disable-line camelcase -- mitata's name
const { timeEntries } = await import('./parser-timing.mjs')

const require = createRequire(import.meta.url)
const { EventSourceParser } = require('../lib/parser/parser.js')
const { EventSourceStream } = require('undici/lib/web/eventsource/eventsource-stream.js')
const { createParser } = await import('eventsource-parser')
const { createParser: dropInCreateParser } = require('../parser.js')
const undiciVersion = require('undici/package.json').version
const espVersion = require('eventsource-parser/package.json').version

const filter = new RegExp(option('--filter') ?? '.*')
const verifyOnly = argv.includes('--verify-only')
const gcMode = option('--gc') ?? 'inner'
if (gcMode !== 'inner' && gcMode !== 'once') throw new Error('--gc takes inner or once')
const keepAlive = !argv.includes('--no-keep')
const form = option('--form') ?? 'both'
if (!['both', 'bytes', 'strings'].includes(form)) throw new Error('--form takes bytes or strings')
const timeBytes = form !== 'strings'
const timeStrings = form !== 'bytes'
// The previous iteration's parser of each implementation (see the top of the file).
const kept = { ours: null, undici: null, esp: null, dropIn: null, espStrings: null }

// ---- implementations ----
// count(chunks): the timed form, returns the number of events. collect(chunks): the same feeding, but
// recording what the consumer sees, for verification.

const OURS = 'whatwg-eventsource'
const UNDICI = `undici@${undiciVersion} EventSourceStream`
const ESP = `eventsource-parser@${espVersion}`
const noop = () => {}
const STREAM = { stream: true }

function undiciSettings () {
  return { lastEventId: '', origin: 'http://127.0.0.1', reconnectionTime: 3000 }
}

const implementations = [
  {
    name: OURS,
    count (chunks) {
      let n = 0
      const parser = new EventSourceParser({ onEvent () { n++ }, onRetry: noop })
      for (let i = 0; i < chunks.length; i++) parser.write(chunks[i])
      parser.end()
      if (keepAlive) kept.ours = parser
      return n
    },
    collect (chunks) {
      const events = []
      const retries = []
      const parser = new EventSourceParser({
        onEvent (type, data, lastEventId) { events.push({ type, data, lastEventId }) },
        onRetry (ms) { retries.push(ms) }
      })
      for (const chunk of chunks) parser.write(chunk)
      parser.end()
      return { events, retries, retryNote: 'per retry line' }
    }
  },
  {
    name: UNDICI,
    // As in undici's own benchmark and EventSource: write() with `push` overridden, so no Readable
    // buffering. The stream reads lastEventId/origin from eventSourceSettings.
    count (chunks) {
      let n = 0
      const stream = new EventSourceStream({ push () { n++; return true }, eventSourceSettings: undiciSettings() })
      for (let i = 0; i < chunks.length; i++) stream.write(chunks[i])
      if (keepAlive) kept.undici = stream
      return n
    },
    collect (chunks) {
      const events = []
      const retries = []
      // undici has no retry callback: it stores the value in eventSourceSettings when it dispatches.
      const settings = undiciSettings()
      let reconnectionTime = settings.reconnectionTime
      Object.defineProperty(settings, 'reconnectionTime', {
        get () { return reconnectionTime },
        set (ms) { reconnectionTime = ms; retries.push(ms) },
        enumerable: true
      })
      const stream = new EventSourceStream({
        push (e) { events.push({ type: e.type, data: e.options.data, lastEventId: e.options.lastEventId }); return true },
        eventSourceSettings: settings
      })
      for (const chunk of chunks) stream.write(chunk)
      return { events, retries, retryNote: 'stored in eventSourceSettings at dispatch' }
    }
  },
  {
    name: ESP,
    // eventsource-parser takes strings: decode with one streaming TextDecoder (which also drops a BOM).
    count (chunks) {
      let n = 0
      const parser = createParser({ onEvent () { n++ }, onRetry: noop })
      const decoder = new TextDecoder()
      for (let i = 0; i < chunks.length; i++) parser.feed(decoder.decode(chunks[i], STREAM))
      const tail = decoder.decode()
      if (tail !== '') parser.feed(tail)
      if (keepAlive) kept.esp = parser
      return n
    },
    collect (chunks) {
      const events = []
      const retries = []
      // Its events carry the id of their own block only; the last event ID (which persists across
      // events, as EventSource exposes it) is tracked through onId.
      let lastEventId = ''
      const parser = createParser({
        onId (id) { lastEventId = id },
        onEvent (e) { events.push({ type: e.event ?? 'message', data: e.data, lastEventId }) },
        onRetry (ms) { retries.push(ms) }
      })
      const decoder = new TextDecoder()
      for (const chunk of chunks) parser.feed(decoder.decode(chunk, STREAM))
      const tail = decoder.decode()
      if (tail !== '') parser.feed(tail)
      return { events, retries, retryNote: 'per retry line' }
    }
  }
]

// The string form: the fixtures decoded once, beforehand, as a TextDecoderStream hands them over (a
// character cut by a chunk boundary comes with the chunk that completes it), but with the BOM kept
// (ignoreBOM) for both parsers to drop. Timed: feeding those strings.
const DROP_IN = 'whatwg-eventsource/parser'

function toStrings (chunks) {
  const decoder = new TextDecoder('utf-8', { ignoreBOM: true })
  const out = chunks.map((chunk) => decoder.decode(chunk, STREAM))
  const tail = decoder.decode()
  if (tail !== '') out.push(tail)
  return out
}

function stringImplementation (name, create, keepAs) {
  return {
    name,
    count (strings) {
      let n = 0
      const parser = create({ onEvent () { n++ }, onRetry: noop })
      for (let i = 0; i < strings.length; i++) parser.feed(strings[i])
      if (keepAlive) kept[keepAs] = parser
      return n
    },
    collect (strings) {
      const events = []
      const retries = []
      // eventsource-parser's events carry their own block's id only: the last event ID is tracked
      // through onId, and a missing type is "message".
      let lastEventId = ''
      const parser = create({
        onId (id) { lastEventId = id },
        onEvent (e) { events.push({ type: e.event ?? 'message', data: e.data, lastEventId }) },
        onRetry (ms) { retries.push(ms) }
      })
      for (const s of strings) parser.feed(s)
      return { events, retries, retryNote: 'per retry line' }
    }
  }
}

const stringImplementations = [
  stringImplementation(DROP_IN, dropInCreateParser, 'dropIn'),
  stringImplementation(ESP, createParser, 'espStrings')
]

// ---- environment ----

const cpuModel = os.cpus()[0]?.model ?? 'unknown'
const loadBefore = os.loadavg()
const fmtLoad = (l) => l.map((x) => x.toFixed(2)).join(' ')
const fmtBytes = (n) => n >= 1024 * 1024 ? `${(n / 1024 / 1024).toFixed(2)} MiB` : n >= 1024 ? `${(n / 1024).toFixed(1)} KiB` : `${n} B`
const fmtTime = (ns) => ns >= 1e6 ? `${(ns / 1e6).toFixed(2)} ms` : `${(ns / 1e3).toFixed(1)} µs`

console.log(`node ${process.version} (v8 ${process.versions.v8}), ${os.platform()}-${os.arch()}`)
console.log(`cpu: ${cpuModel}, ${os.availableParallelism?.() ?? os.cpus().length} logical cores; load average ${fmtLoad(loadBefore)}`)
console.log(`peers: ${UNDICI}, ${ESP}`)
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

function firstDifference (got, want) {
  const n = Math.max(got.length, want.length)
  for (let i = 0; i < n; i++) {
    const g = got[i]
    const w = want[i]
    if (g === undefined || w === undefined || g.type !== w.type || g.data !== w.data || g.lastEventId !== w.lastEventId) {
      const show = (e) => e === undefined ? '(none)' : JSON.stringify({ ...e, data: e.data.length > 60 ? `${e.data.slice(0, 60)}… (${e.data.length} chars)` : e.data })
      return `event #${i}: expected ${show(w)}, got ${show(g)}`
    }
  }
  return null
}

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
    for (const impl of stringImplementations) {
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
      ? `  ${f.name.padEnd(nameWidth)}  verified: ${f.events.length} events in ${f.strings.length} strings, identical across ${stringImplementations.length} parsers`
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
  entries.push(...fixtureEntries(f.name + STRINGS, stringImplementations, f.strings, expectedCount))
}

const result = await timeEntries(entries, { gcMode, formatTime: fmtTime, log: (line) => console.log(line) })
const loadAfter = os.loadavg()

// ---- ratios ----
// For each fixture: our time divided by the fastest peer's, on p50 (the median sample) and on min.

const ratios = []
for (const f of timeBytes ? fixtures : []) {
  const groupId = result.layout.findIndex((l) => l.name === f.name)
  const stats = {}
  for (const b of result.benchmarks) if (b.group === groupId) stats[b.alias] = b.runs[0].stats
  const ours = stats[OURS]
  const peers = implementations.filter((i) => i.name !== OURS).map((i) => ({ name: i.name, ...stats[i.name] }))
  const fastestP50 = peers.reduce((a, b) => (b.p50 < a.p50 ? b : a))
  const fastestMin = peers.reduce((a, b) => (b.min < a.min ? b : a))
  const row = {
    fixture: f.name,
    ours: { p50: ours.p50, min: ours.min, avg: ours.avg },
    peers: Object.fromEntries(peers.map((p) => [p.name, { p50: p.p50, min: p.min, avg: p.avg }])),
    fastestPeerP50: fastestP50.name,
    fastestPeerMin: fastestMin.name,
    ratioP50: ours.p50 / fastestP50.p50,
    ratioMin: ours.min / fastestMin.min,
    differs: verification.find((v) => v.fixture === f.name).differences.map((d) => d.implementation)
  }
  row.verdict = row.ratioP50 <= 0.5 ? 'meets 0.5x' : row.ratioP50 < 1 ? 'faster, misses 0.5x' : 'NOT faster'
  ratios.push(row)
}

const short = (name) => name === UNDICI ? 'undici' : name === ESP ? 'e-p' : name
if (timeBytes) printRatios()
function printRatios () {
  console.log('')
  console.log(`ratios: ${OURS} time / fastest peer's time, same run (p50 = median sample; target <= 0.50)`)
  console.log(`${'fixture'.padEnd(nameWidth)} | ours p50   | ours min   | undici p50  | e-p p50    | fastest | p50 ratio | min ratio | verdict`)
  for (const r of ratios) {
    console.log([
      r.fixture.padEnd(nameWidth),
      fmtTime(r.ours.p50).padStart(9),
      fmtTime(r.ours.min).padStart(9),
      fmtTime(r.peers[UNDICI].p50).padStart(10),
      fmtTime(r.peers[ESP].p50).padStart(9),
      short(r.fastestPeerP50).padEnd(7),
      r.ratioP50.toFixed(2).padStart(9),
      r.ratioMin.toFixed(2).padStart(9),
      r.verdict + (r.differs.length ? ` (output differs: ${r.differs.map(short).join(', ')})` : '')
    ].join(' | '))
  }
  const missing = ratios.filter((r) => r.ratioP50 > 0.5)
  console.log('')
  console.log(missing.length === 0
    ? 'every fixture meets the 0.5x target (p50)'
    : `miss the 0.5x target (p50): ${missing.map((r) => `${r.fixture} (${r.ratioP50.toFixed(2)})`).join('; ')}`)
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
    node: process.version,
    v8: process.versions.v8,
    date: new Date().toISOString(),
    platform: `${os.platform()}-${os.arch()}`,
    cpu: cpuModel,
    cores: os.availableParallelism?.() ?? os.cpus().length,
    git: gitState(),
    note,
    loadavg: { before: loadBefore, after: loadAfter },
    command: [process.argv0, ...process.execArgv, ...process.argv.slice(1)].join(' '),
    gc: gcMode,
    form,
    keepAlive,
    peers: { undici: undiciVersion, 'eventsource-parser': espVersion },
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
