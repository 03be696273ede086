// The size of each entry point in a browser bundle (benchmarks/size/measure.mjs says how it is measured),
// side by side with the peers: prints the table, writes results/size.json, and regenerates the size
// block of benchmarks/README.md from it (as `npm run bench:report` does for every block).
//
//   npm run size        node benchmarks/size.mjs

import { writeFileSync } from 'node:fs'
import { ENTRIES, PEERS, BUDGETS, measureAll, esbuildVersion } from './size/measure.mjs'
import { gitState } from './e2e/common.mjs'
import { table, fmtInt } from './e2e/common.mjs'
import { RESULTS_DIR, generate } from './report.mjs'

const rows = await measureAll([...ENTRIES, ...PEERS])
const json = {
  date: new Date().toISOString(),
  environment: { esbuild: esbuildVersion(), node: process.version, git: gitState() },
  method: 'esbuild --bundle --platform=browser --format=esm --minify, gzip -9',
  rows: rows.map(({ name, source, minified, gzipped, error }) => (error === undefined
    ? { name, source, minified, gzipped, budget: BUDGETS[name] ?? null, ours: ENTRIES.some((e) => e.name === name) }
    : { name, source, error, budget: BUDGETS[name] ?? null, ours: ENTRIES.some((e) => e.name === name) }))
}
console.log(table(['import', 'minified (B)', 'gzipped (B)', 'budget (B)'], json.rows.map((row) => [
  row.name, row.error === undefined ? fmtInt(row.minified) : `fails: ${row.error}`, row.error === undefined ? fmtInt(row.gzipped) : '',
  row.budget === null ? '' : fmtInt(row.budget)
])))
writeFileSync(`${RESULTS_DIR}/size.json`, JSON.stringify(json, null, 2) + '\n')
for (const file of generate()) {
  if (file.before !== file.after) writeFileSync(file.path, file.after)
  console.log(`${file.path}: ${file.before === file.after ? 'up to date' : `rewrote ${file.changed.join(', ')}`}`)
}
