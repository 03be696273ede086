// Generates the benchmark tables of the documentation (README.md's one table, the summaries in docs/:
// report/docs.mjs) and of benchmarks/README.md from the committed results
// (benchmarks/results/<kind>-<node version>.json, every Node version present), between
// `<!-- bench:<name>:start -->` and `<!-- bench:<name>:end -->` markers, so the figures in the docs are
// the figures in the JSON.
//
//   npm run bench:report             rewrite the blocks
//   node benchmarks/report.mjs --check  exit 1 (and name the blocks) when a file differs from what the
//                                       JSON gives; test/benchmarks/bench-report.test.cjs runs this

import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { compareVersions } from './report/format.mjs'
import { applyBlocks, changedBlocks } from './report/markers.mjs'
import { e2eSection, memorySection, floorTable } from './report/whole-client.mjs'
import { parserSection } from './report/parser.mjs'
import { parserStringsSection } from './report/parser-strings.mjs'
import { startupSection } from './report/startup.mjs'
import { tlsSection } from './report/tls.mjs'
import { DOC_FILES, docBlocks, repositoryRaw } from './report/docs.mjs'
import { sizeSection } from './report/size.mjs'
import { serverSection } from './report/server.mjs'
import { serverRedisSection } from './report/server-redis.mjs'

const root = fileURLToPath(new URL('..', import.meta.url))
export const RESULTS_DIR = `${root}benchmarks/results`
export const FILES = {
  ...Object.fromEntries(Object.entries(DOC_FILES).map(([key, path]) => [key, `${root}${path}`])),
  benchmarks: `${root}benchmarks/README.md`,
  serverRedis: `${root}benchmarks/server-redis/README.md`
}

// e2eTls and memoryTls: the same runners with --tls (results/e2e-tls-<node>.json, memory-tls-<node>.json).
// size: results/size.json (`npm run size`), one file whatever the Node version. server:
// results/server-<node>.json (`npm run bench:server`); serverRedis: results/server-redis-<node>.json
// (benchmarks/server-redis/run.mjs).
const KINDS = ['e2e', 'memory', 'parser', 'startup', 'server', 'serverRedis', 'e2eTls', 'memoryTls', 'size']

/** { kind: [{ file, version, json }] }, each list sorted by Node version, oldest first. */
export function loadResults (dir = RESULTS_DIR) {
  const out = Object.fromEntries(KINDS.map((k) => [k, []]))
  for (const file of readdirSync(dir)) {
    if (file === 'size.json') out.size.push({ file, version: null, json: JSON.parse(readFileSync(`${dir}/${file}`, 'utf8')) })
    const m = /^(e2e|memory|parser|startup|server-redis|server)-(tls-)?(v\d+\.\d+\.\d+)\.json$/.exec(file)
    if (m === null || (m[2] && m[1] !== 'e2e' && m[1] !== 'memory')) continue
    const kind = m[1] === 'server-redis' ? 'serverRedis' : m[1]
    out[m[2] ? `${kind}Tls` : kind].push({ file, version: m[3], json: JSON.parse(readFileSync(`${dir}/${file}`, 'utf8')) })
  }
  for (const k of KINDS) out[k].sort((a, b) => compareVersions(a.version, b.version))
  return out
}

/** The blocks of each file, by the keys of FILES: { readme: { name: markdown }, ..., benchmarks: { ... } }. */
export function renderBlocks (results, dir = RESULTS_DIR) {
  return {
    ...docBlocks(results, dir, repositoryRaw(root)),
    benchmarks: {
      parser: parserSection(results.parser),
      'parser-strings': parserStringsSection(dir),
      e2e: e2eSection(results.e2e, dir),
      memory: memorySection(results.memory),
      startup: startupSection(results.startup),
      floor: floorTable(results.e2e),
      tls: tlsSection(results.memoryTls, results.e2eTls),
      size: sizeSection(results.size),
      server: serverSection(results.server)
    },
    serverRedis: {
      'server-redis': serverRedisSection(results.serverRedis)
    }
  }
}

/**
 * Each file's current text and the text the JSON gives: [{ path, before, after, changed: [names] }].
 * `read` is injectable so the test can feed altered documents.
 */
export function generate ({ results = loadResults(), read = (p) => readFileSync(p, 'utf8'), dir = RESULTS_DIR } = {}) {
  const blocks = renderBlocks(results, dir)
  return Object.entries(FILES).map(([key, path]) => {
    const before = read(path)
    const after = applyBlocks(before, blocks[key], path)
    return { path, before, after, changed: changedBlocks(before, after, Object.keys(blocks[key])) }
  })
}

/** Notes of the committed results ("quick run, loaded machine"), so whoever regenerates sees them. */
function notes (results) {
  return KINDS.flatMap((k) => results[k].filter((r) => r.json.note).map((r) => `${r.file}: ${r.json.note}`))
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const check = process.argv.includes('--check')
  const results = loadResults()
  const files = generate({ results })
  for (const n of notes(results)) console.log(`note: ${n}`)
  let stale = 0
  for (const f of files) {
    const name = f.path.slice(root.length)
    if (f.before === f.after) {
      console.log(`${name}: up to date`)
    } else if (check) {
      stale++
      console.log(`${name}: differs from benchmarks/results/ in block(s): ${f.changed.join(', ') || '(marker layout)'}`)
    } else {
      writeFileSync(f.path, f.after)
      console.log(`${name}: rewrote ${f.changed.join(', ')}`)
    }
  }
  if (stale > 0) {
    console.log('run `npm run bench:report` to regenerate')
    process.exitCode = 1
  }
}
