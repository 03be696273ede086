// Which Node a peer package says it runs on: its package.json `engines.node`, read from node_modules.
// The whole-client benchmarks measure a peer only where that range admits the running Node (the
// issue's "5 where the Node supports it"); the parser benchmark reports it next to each peer.
//
// Only the range forms the peers use are understood (`>=22.12`, `>=22.19.0`, `^20.18.1 || >=22`,
// alternatives of `>=`/`^` bounds); anything else throws, so a new peer with another form is looked at
// rather than silently admitted.

import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)

/** "v22.12.0" or "22.12" → [22, 12, 0]. */
function parts (version) {
  const p = version.replace(/^v/, '').split('.').map(Number)
  return [p[0] ?? 0, p[1] ?? 0, p[2] ?? 0]
}

function compare (a, b) {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i] - b[i]
  return 0
}

function admitsOne (bound, v) {
  const m = /^(>=|\^)\s*(\d+(?:\.\d+){0,2})$/.exec(bound.trim())
  if (m === null) throw new Error(`engines range not understood: ${JSON.stringify(bound)}`)
  const b = parts(m[2])
  return m[1] === '>=' ? compare(v, b) >= 0 : v[0] === b[0] && compare(v, b) >= 0
}

/**
 * Whether an `engines.node` range admits `version` (no range: any Node).
 * @param {string | undefined} range
 * @param {string} [version] defaults to the running Node
 */
export function enginesAdmit (range, version = process.version) {
  if (range === undefined || range.trim() === '' || range.trim() === '*') return true
  const v = parts(version)
  return range.split('||').some((alternative) => alternative.trim().split(/\s+/).every((bound) => admitsOne(bound, v)))
}

/**
 * A package's version, its `engines.node` and whether the running Node is inside it.
 * @param {string} name the name under node_modules (an alias such as `undici8` included)
 */
export function packageSupport (name) {
  const { version, engines } = require(`${name}/package.json`)
  const range = engines?.node
  return { version, engines: range ?? null, supported: enginesAdmit(range) }
}
