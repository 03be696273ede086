// The eventsource-parser drop-in (whatwg-eventsource/parser and /parser/stream) against
// eventsource-parser itself on strings, shape by shape, in one run: the texts of the parser
// benchmark's fixtures fed per event, in 64-character, 16 KiB and 64 KiB feeds and in 1- to
// 7-character feeds, and texts for what they leave out (CJK and emoji, CRLF and CR token streams, a
// 1 MiB line in 1 KiB and 7-character feeds): ./parser-strings/shapes.mjs. Each shape through
// `createParser().feed()` and through `EventSourceParserStream` (./parser-strings/implementations.mjs).
// Ratio: the drop-in's time ÷ the peer's, same shape, same process; target at most 1.00.
//
//   npm run bench:strings                               every shape, both forms
//   node benchmarks/parser-strings.bench.mjs --processes 3 --json out.json
//                                     the whole run in 3 fresh processes, one after another; per shape
//                                     and form, the median and range of each parser's p50 across them
//   --filter 'CR\b'                   only shapes whose name matches the RegExp
//   --form feed | stream              one form only (default: both)
//   --peers 4,3                       the peers: eventsource-parser 4 (the devDependency) and 3 (the
//                                     eventsource-parser3 alias); default 4, and 4,3 on Node 20
//   --rounds 10 --max-rounds 60 --time 400
//                                     sampling (./parser-strings/sampling.mjs): at least 10 rounds of
//                                     one call per parser, more while a shape has taken under 400 ms
//                                     (GCs included), at most 60
//   --verify-only                     check the outputs, time nothing
//   --note 'text'                     stored in the JSON (e.g. "loaded machine")
//
// As in ./parser.bench.mjs (its header says why): outputs are verified before anything is timed (the
// drop-in against each peer record for record, every callback in order, and against the text's model),
// a full GC before every call, one call per sample, never batched, and each parser keeps its previous
// iteration's parser (or stream) alive. Unlike it, the parsers of a shape are sampled in alternating
// rounds, not one after the other: ./parser-strings/sampling.mjs says why.

import { writeFileSync, mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import os from 'node:os'
import { runHeader, exposeGc, option } from './e2e/common.mjs'

const argv = process.argv.slice(2)
const jsonPath = option('--json') ?? process.env.BENCH_JSON
const note = option('--note') ?? null
const verifyOnly = argv.includes('--verify-only')

const processes = Number(option('--processes') ?? '1')
if (processes > 1 && !verifyOnly) {
  const { runProcesses } = await import('./parser-strings/processes.mjs')
  await runProcesses({ processes, argv, jsonPath, note })
  process.exit(0)
}

exposeGc()
const { sampleRounds, pairedRatio } = await import('./parser-strings/sampling.mjs')
const { buildShapes } = await import('./parser-strings/shapes.mjs')
const { loadImplementations, DROP_IN } = await import('./parser-strings/implementations.mjs')
const { verifyShape } = await import('./parser-strings/verify.mjs')

const filter = new RegExp(option('--filter') ?? '.*')
const form = option('--form') ?? 'both'
if (!['both', 'feed', 'stream'].includes(form)) throw new Error('--form takes feed or stream')
const forms = form === 'both' ? ['feed', 'stream'] : [form]
const peerMajors = (option('--peers') ?? (process.versions.node.startsWith('20.') ? '4,3' : '4')).split(',')
const minRounds = Number(option('--rounds') ?? '10')
const maxRounds = Number(option('--max-rounds') ?? '60')
const wallNs = Number(option('--time') ?? '400') * 1e6

const fmtTime = (ns) => ns >= 1e6 ? `${(ns / 1e6).toFixed(2)} ms` : `${(ns / 1e3).toFixed(1)} µs`
const fmtLoad = (l) => l.map((x) => x.toFixed(2)).join(' ')
const cpuModel = os.cpus()[0]?.model ?? 'unknown'
const loadBefore = os.loadavg()

const impls = await loadImplementations(peerMajors)
const peers = impls.slice(1)
console.log(`node ${process.version} (v8 ${process.versions.v8}), ${os.platform()}-${os.arch()}; cpu: ${cpuModel}; load average ${fmtLoad(loadBefore)}`)
console.log(`${DROP_IN} against ${peers.map((p) => p.name).join(', ')}; forms: ${forms.join(', ')}`)
console.log(`rounds of one call per parser, order rotating, a full GC before every call; at least ${minRounds} rounds, more while under ${wallNs / 1e6} ms, at most ${maxRounds}`)

const shapes = buildShapes().filter((s) => filter.test(s.name))
if (shapes.length === 0) throw new Error(`no shape matches ${filter}`)
const nameWidth = Math.max(...shapes.map((s) => s.name.length))

// ---- verification ----

console.log('\nverification (the drop-in against each peer, record for record, and against the model):')
const verification = []
let refuse = false
const newest = peers[0].name
for (const shape of shapes) {
  const entry = await verifyShape(shape, shape.strings(), impls, forms)
  verification.push(entry)
  const counts = forms.map((f) => `${f} ${entry.counts[f][DROP_IN]}`).join(', ')
  if (entry.differences.length === 0) {
    console.log(`  ${shape.name.padEnd(nameWidth)}  ${String(shape.feeds).padStart(6)} strings; events: ${counts}; identical across ${impls.length} parsers`)
    continue
  }
  console.log(`  ${shape.name.padEnd(nameWidth)}  DIFFERS:`)
  for (const d of entry.differences) {
    console.log(`    ${d.form}: ${d.implementation} against ${d.against}: ${d.detail}`)
    if (d.implementation === DROP_IN && (d.against === 'model' || d.against === newest)) refuse = true
  }
}
if (refuse) {
  console.error(`\n${DROP_IN} does not give what ${newest} gives (or what the model says); refusing to time it.`)
  process.exit(1)
}
if (verifyOnly) process.exit(0)

// ---- timing ----

const results = []
for (let s = 0; s < shapes.length; s++) {
  const shape = shapes[s]
  const strings = shape.strings()
  for (const f of forms) {
    const expected = verification[s].counts[f]
    // The drop-in first in one shape, second in the next, ...: the rounds rotate from there.
    const entries = impls.map((_, i) => impls[(i + s) % impls.length]).map((impl) => {
      const count = impl[f].count
      const want = expected[impl.name]
      const check = (n) => {
        if (n !== want) throw new Error(`${impl.name}: expected ${want} events, got ${n}`)
        return n
      }
      return f === 'feed'
        ? { name: impl.name, isAsync: false, fn: () => check(count(strings)) }
        : { name: impl.name, isAsync: true, fn: async () => check(await count(strings)) }
    })
    const { rounds, stats } = await sampleRounds(entries, { minRounds, maxRounds, wallNs })
    const times = Object.fromEntries(impls.map((impl) => {
      const { byRound, ...rest } = stats[impl.name]
      return [impl.name, rest]
    }))
    const ratios = Object.fromEntries(peers.map((p) => [p.name, times[DROP_IN].p50 / times[p.name].p50]))
    // The median of the per-round ratios, and of the minimum times: stored beside the ratio of p50s.
    const paired = Object.fromEntries(peers.map((p) => [p.name, pairedRatio(stats[DROP_IN].byRound, stats[p.name].byRound)]))
    const minRatios = Object.fromEntries(peers.map((p) => [p.name, times[DROP_IN].min / times[p.name].min]))
    results.push({ shape: shape.name, form: f, rounds, times, ratios, paired, minRatios })
    const cells = impls.map((impl) => `${impl.name.replace('eventsource-parser@', 'e-p ').replace('whatwg-eventsource/parser', 'drop-in')} ${fmtTime(times[impl.name].p50)}`)
    const ratioCells = peers.map((p) => `${ratios[p.name].toFixed(2)} (paired ${paired[p.name].toFixed(2)}, min ${minRatios[p.name].toFixed(2)})`)
    console.log(`  ${shape.name.padEnd(nameWidth)} ${f.padEnd(6)} ${String(rounds).padStart(3)} rounds  ${cells.join('  ')}  ratio ${ratioCells.join(' / ')}`)
  }
}
const loadAfter = os.loadavg()

const slower = results.filter((r) => Object.values(r.ratios).some((x) => x > 1))
console.log(`\nratio: ${DROP_IN} p50 ÷ the peer's p50, same shape, same process (target <= 1.00); above 1.00 on ${slower.length} of ${results.length}:`)
for (const r of slower) console.log(`  ${r.shape} (${r.form}): ${Object.entries(r.ratios).map(([p, x]) => `${p} ${x.toFixed(2)}`).join(', ')}`)
console.log(`load average before ${fmtLoad(loadBefore)}, after ${fmtLoad(loadAfter)}`)

if (jsonPath) {
  const out = {
    ...runHeader({ cpu: cpuModel, note, loadBefore, loadAfter }),
    dropIn: DROP_IN,
    peers: peers.map((p) => p.name),
    forms,
    sampling: { gc: 'full GC before every call', order: 'rounds, one call per parser, order rotating', minRounds, maxRounds, timeMs: wallNs / 1e6 },
    shapes: shapes.map((s) => ({ name: s.name, text: s.text, feeding: s.feeding, feeds: s.feeds, chars: s.chars, events: s.events.length, fixtures: s.fixtures })),
    verification,
    results
  }
  mkdirSync(dirname(jsonPath), { recursive: true })
  writeFileSync(jsonPath, JSON.stringify(out))
  console.log(`results written to ${jsonPath}`)
}
