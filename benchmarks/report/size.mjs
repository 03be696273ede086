// The size section of the report (../report.mjs), from results/size.json (written by `npm run size`):
// each entry point of the package, and each peer, minified and gzipped in a browser bundle, with the
// budget where there is one.

import { fmtInt } from '../e2e/common.mjs'
import { summaryTable, wrap } from './format.mjs'

const cell = (row, key) => row.error === undefined ? fmtInt(row[key]) : ''

function status (row) {
  if (row.budget === null) return ''
  if (row.error !== undefined) return `fails to bundle: ${row.error}`
  return row.gzipped <= row.budget ? 'met' : `MISSED by ${fmtInt(row.gzipped - row.budget)} B`
}

/** benchmarks/README.md: the table of results/size.json. */
export function sizeSection (runs) {
  if (runs.length === 0) return '_No results/size.json yet: run `npm run size`._'
  const { json, file } = runs[0]
  const env = json.environment
  const git = env.git ? `lib/ at ${env.git.commit}${env.git.libModified ? ' (modified)' : ''}` : 'commit not recorded'
  const out = [
    wrap(`**esbuild ${env.esbuild}**, ${json.date.slice(0, 10)}, ${git}, \`${json.method}\`, \`results/${file}\``),
    ''
  ]
  const header = ['import', 'minified (B)', 'gzipped (B)', 'budget, gzipped (B)', 'status']
  // (A row of two statements shows them on one line.)
  const line = (row) => [`\`${row.source.replaceAll('\n', '; ')}\``, cell(row, 'minified'), cell(row, 'gzipped'), row.budget === null ? '' : fmtInt(row.budget), status(row)]
  out.push(summaryTable(header, json.rows.filter((row) => row.ours).map(line)), '')
  out.push('The peers, measured the same way:', '')
  out.push(summaryTable(header.slice(0, 3), json.rows.filter((row) => !row.ours).map((row) => line(row).slice(0, 3))))
  return out.join('\n')
}

/**
 * README.md: one sentence, each budgeted entry point's gzipped size in a browser bundle, the EventSource's
 * with the extensions, and the peers'.
 */
export function sizeSummary (runs) {
  if (runs.length === 0) return '_No results/size.json yet: run `npm run size`._'
  const { json } = runs[0]
  const size = (row) => row.error === undefined ? `${fmtInt(row.gzipped)} B` : 'does not bundle'
  const ours = json.rows.filter((row) => row.ours && (row.budget !== null || row.name.endsWith('/extensions'))).map((row) => `\`${row.name}\` ${size(row)}`)
  const peers = json.rows.filter((row) => !row.ours).map((row) => `\`${row.name}\` ${size(row)}`)
  return `Gzipped, in a browser bundle (esbuild ${json.environment.esbuild}, minified, gzip -9; every entry point: ` +
    '[benchmarks/README.md](https://github.com/whatwg-eventsource/whatwg-eventsource/blob/main/benchmarks/README.md#bundle-size-sizemjs)): ' +
    `${ours.join(', ')}; the peers ${peers.join(', ')}. \`npm run size\` measures it.`
}
