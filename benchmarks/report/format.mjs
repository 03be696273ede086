// Number formats and the per-run heading shared by the report's sections (../report.mjs). Every figure
// the report prints is a median with its range: `spread()`.

export { table } from '../e2e/common.mjs'

export const fmtRate = (x) => x >= 1e6 ? `${(x / 1e6).toFixed(2)} M` : x >= 1e3 ? `${(x / 1e3).toFixed(1)} k` : x.toFixed(0)
export const fmtUs = (x) => `${x.toFixed(2)} µs`
export const fmtKiB = (bytes) => `${(bytes / 1024).toFixed(2)} KiB`
export const fmtMs = (x) => `${x.toFixed(x >= 100 ? 0 : 1)} ms`
export const fmtNs = (x) => `${x.toFixed(1)} ns`
export const fmtX = (x) => `${x.toFixed(2)}x`
export const plural = (n, word) => `${n} ${word}${n === 1 ? '' : word.endsWith('s') ? 'es' : 's'}`
/** Nanoseconds as µs or ms (the parser's p50s). */
export const fmtTime = (ns) => ns >= 1e6 ? `${(ns / 1e6).toFixed(2)} ms` : `${(ns / 1e3).toFixed(1)} µs`

export function median (values) {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

/** { median, min, max } of values, or null for none. */
export function stats (values) {
  return values.length === 0 ? null : { median: median(values), min: Math.min(...values), max: Math.max(...values) }
}

/** "median (min–max)"; a single-value range is printed once. */
export function spread (s, fmt) {
  if (s == null) return 'n/a'
  const lo = fmt(s.min)
  const hi = fmt(s.max)
  return `${fmt(s.median)} (${lo === hi ? lo : `${lo}–${hi}`})`
}

/**
 * A ratio of medians with the range of the per-round ratios (each round pairs the two clients' samples
 * taken one after the other); without rounds, the ratio alone and why. The ratio of medians need not
 * lie inside that range, so the range is labelled.
 */
export function ratioCell (value, rounds, per = 'per round') {
  if (value == null) return ''
  if (rounds == null || rounds.length === 0) return `${fmtX(value)} (no range)`
  const lo = fmtX(Math.min(...rounds))
  const hi = fmtX(Math.max(...rounds))
  return `${fmtX(value)} (${per} ${lo === hi ? lo : `${lo}–${hi}`})`
}

/** "v20.20.2" → [20, 20, 2], for sorting. */
export function versionKey (v) {
  return v.replace(/^v/, '').split('.').map(Number)
}

export function compareVersions (a, b) {
  const x = versionKey(a)
  const y = versionKey(b)
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i] - y[i]
  return 0
}

/**
 * The line that names where a run's figures come from: Node version, date, commit of lib/, samples,
 * load; then its note (e.g. "quick run, loaded machine") as a quote line.
 */
export function runHeading ({ file, node, v8, date, git, samples, loadavg, note }) {
  const parts = [`**Node ${node}**${v8 ? ` (V8 ${v8.split('.').slice(0, 2).join('.')})` : ''}`]
  if (date) parts.push(date.slice(0, 10))
  parts.push(git ? `lib/ at ${git.commit}${git.libModified ? ' (modified)' : ''}` : 'commit not recorded')
  if (samples) parts.push(samples)
  if (loadavg) parts.push(`load average ${loadavg.map((x) => x.toFixed(2)).join(' → ')}`)
  parts.push(`\`results/${file}\``)
  const lines = [parts.join(', ')]
  if (note) lines.push('', `> Note: ${note}.`)
  return lines.join('\n')
}
