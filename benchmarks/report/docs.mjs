// The generated blocks of the documentation (../report.mjs): the README's one table of headline figures,
// and which page of docs/ gets which summary (the whole client, startup and the parser in
// docs/performance.md; HTTP/2 in docs/http2.md; the eventsource-parser drop-in in its migration guide).
// docs/ ships in the npm package and benchmarks/ does not, so a summary's links into benchmarks/ become
// links to the repository.

import { readFileSync } from 'node:fs'
import { table, fmtRate, fmtKiB, fmtMs, fmtX, compareVersions } from './format.mjs'
import { wholeClientSummary } from './whole-client.mjs'
import { parserSummary, dropInSummary } from './parser.mjs'
import { startupSummary } from './startup.mjs'
import { http2Summary } from './tls.mjs'
import { sizeSummary } from './size.mjs'

/** The files of the documentation that hold generated blocks, by key, as paths from the root. */
export const DOC_FILES = {
  readme: 'README.md',
  performance: 'docs/performance.md',
  http2: 'docs/http2.md',
  parserDropIn: 'docs/migrating-from-eventsource-parser.md'
}

/** Where the repository's files are, for a page that ships without them (package.json's `repository`). */
export function repositoryRaw (root) {
  const { repository } = JSON.parse(readFileSync(`${root}package.json`, 'utf8'))
  const [, path] = /github\.com\/(.+?)(?:\.git)?$/.exec(repository.url)
  return `https://raw.githubusercontent.com/${path}/main`
}

// The headline clients, in the README's order; the floor is in docs/performance.md.
const CLIENTS = ['ours', 'undici', 'eventsource']

/**
 * README.md: one table, a row per measure and client, a column per Node version, medians only. Every
 * Node version with a result of any kind gets a column; a measure it has no file for is 'n/a'.
 */
export function frontPageTable ({ e2e, memory, startup, parser }) {
  const versions = [...new Set([...e2e, ...memory, ...startup].map((r) => r.json.environment.node)
    .concat(parser.map((r) => r.json.node)))]
    .sort(compareVersions)
  if (versions.length === 0) return '_No results yet: run the benchmarks (benchmarks/README.md)._'
  const byNode = (runs, node) => runs.find((r) => (r.json.environment?.node ?? r.json.node) === node)?.json
  const label = (c) => {
    const names = [...e2e, ...memory].map((r) => r.json.clients?.[c]).filter(Boolean)
    return names.at(-1) ?? c
  }
  const rows = []
  const measure = (what, cell) => CLIENTS.forEach((c, i) => rows.push([i === 0 ? what : '', label(c), ...versions.map((node) => cell(node, c) ?? 'n/a')]))

  const workloads = Object.entries(e2e.at(-1)?.json.workloads ?? {})
  for (const [name, w] of workloads) {
    measure(`${w.title}, events/s`, (node, c) => {
      const r = byNode(e2e, node)?.workloads[name]?.clients[c]
      return r?.verified && r.eventsPerSecond ? fmtRate(r.eventsPerSecond.median) : null
    })
  }
  const count = Object.keys(memory.at(-1)?.json.counts ?? {}).at(-1)
  if (count) {
    measure(`heap per idle connection (${Number(count).toLocaleString('en-US')} open)`, (node, c) => {
      const r = byNode(memory, node)?.counts[count]?.clients[c]
      return r?.verified ? fmtKiB(r.heapUsedPerConnection.median) : null
    })
  }
  if (startup.length > 0) {
    measure('from spawn to the first event', (node, c) => {
      const r = byNode(startup, node)?.results[c]
      return r?.parentMs ? fmtMs(r.parentMs.median) : null
    })
  }
  if (parser.length > 0) {
    const fixtures = parser.at(-1).json.summary.length
    rows.push([`parser time ÷ the faster of undici's and eventsource-parser's (${fixtures} fixtures)`, label('ours'), ...versions.map((node) => {
      const summary = byNode(parser, node)?.summary
      if (!summary?.length) return 'n/a'
      const ratios = summary.map((s) => s.ratio)
      return `${fmtX(Math.min(...ratios))}–${fmtX(Math.max(...ratios))}`
    })])
  }
  return [
    table(['median', 'client', ...versions.map((v) => `Node ${v}`)], rows), '',
    'Medians over several processes per client, from `benchmarks/results/*.json`.'
  ].join('\n')
}

/** The blocks of each documentation file, by the keys of DOC_FILES. */
export function docBlocks (results, dir, raw) {
  const relink = (markdown) => markdown.replaceAll('](benchmarks/', `](${raw}/benchmarks/`)
  return {
    readme: { 'readme-summary': frontPageTable(results), 'readme-size': sizeSummary(results.size) },
    performance: {
      'readme-whole-client': relink(wholeClientSummary(results.e2e, results.memory, dir)),
      'readme-startup': startupSummary(results.startup),
      'readme-parser': parserSummary(results.parser)
    },
    http2: { 'readme-http2': relink(http2Summary(results.memoryTls, results.e2eTls)) },
    parserDropIn: { 'readme-parser-drop-in': dropInSummary(results.parser) }
  }
}
