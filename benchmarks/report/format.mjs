// Number formats and the list of runs shared by the report's sections (../report.mjs). Every figure
// the report prints is a median with its range: `spread()`.

export { table } from '../e2e/common.mjs'

/**
 * A paragraph of benchmarks/README.md cut into lines of at most `width` characters (a word longer than
 * that keeps its own line), each after the first indented by `indent` (a list item's continuation).
 */
export function wrap (text, width = 120, indent = '') {
  const lines = []
  let line = ''
  for (const word of text.split(' ')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line)
      line = indent + word
    } else {
      line = line === '' ? word : `${line} ${word}`
    }
  }
  return [...lines, line].join('\n')
}

/** Parts of a block joined by lines, each one-line paragraph wrapped (tables and lists come wrapped or unwrappable). */
export function paragraphs (parts) {
  return parts.map((part) => part.includes('\n') || part.startsWith('|') ? part : wrap(part)).join('\n')
}

/**
 * A Markdown table without the padding that aligns its columns in the source: benchmarks/README.md's
 * summaries are read rendered, and padding to the widest cell of each column would double their size.
 */
export function summaryTable (header, rows) {
  const line = (cells) => `| ${cells.join(' | ')} |`
  return [line(header), line(header.map((_, i) => i === 0 ? '---' : '--:')), ...rows.map(line)].join('\n')
}

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
 * lie inside that range, so the range is labelled (`per`), unless the table's caption says what it is (null).
 */
export function ratioCell (value, rounds, per = 'per round') {
  if (value == null) return ''
  if (rounds == null || rounds.length === 0) return `${fmtX(value)} (no range)`
  const lo = fmtX(Math.min(...rounds))
  const hi = fmtX(Math.max(...rounds))
  return `${fmtX(value)} (${per ? `${per} ` : ''}${lo === hi ? lo : `${lo}–${hi}`})`
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
 * The runs under a summary table, a line each: file, date, commit of lib/, load; `runs` are { file, date,
 * git, samples, loadavg, note }. What every run shares (its samples, e.g. "3 processes", and a note such
 * as "quick run, loaded machine") is said once, above the list; otherwise on each run's line.
 */
export function runList (runs) {
  const shared = (key) => {
    const values = new Set(runs.map((r) => r[key] ?? ''))
    return values.size === 1 && runs.length > 1 ? [...values][0] : null
  }
  const samples = shared('samples')
  const note = shared('note')
  const lines = runs.map((r) => {
    const parts = [`\`results/${r.file}\``]
    if (r.date) parts.push(r.date.slice(0, 10))
    parts.push(r.git ? `lib/ at ${r.git.commit}${r.git.libModified ? ' (modified)' : ''}` : 'commit not recorded')
    if (r.samples && samples === null) parts.push(r.samples)
    if (r.loadavg) parts.push(`load ${r.loadavg.map((x) => x.toFixed(2)).join(' → ')}`)
    return wrap(`- ${parts.join(', ')}${r.note && note === null ? `. Note: ${r.note}.` : ''}`, 120, '  ')
  })
  const head = [samples && `each ${samples}`, note && `note: ${note}`].filter(Boolean)
  return [wrap(`Runs${head.length ? ` (${head.join('; ')})` : ''}:`), '', ...lines].join('\n')
}

/** A column heading per run (two runs of one major version would otherwise share a heading). */
export const nodeColumn = (version) => `Node ${version}`

/** A ratio across cases (fixtures, shapes): "median (min–max)", the range being that of the cases. */
export function acrossCases (ratios) {
  return ratios.length === 0 ? 'n/a' : spread(stats(ratios), fmtX)
}

// The runs of the parser benchmarks: how many processes each sampled, and what the list under a table
// says of one run (runList).
export const processesOf = (json) => json.processes ?? 1

export const processesText = (n) => n === 1 ? 'one process (no range across processes)' : `${n} processes`

export function runSummary (run, samples) {
  const { json } = run
  return {
    file: run.file,
    date: json.date,
    git: json.git,
    samples,
    loadavg: [json.loadavg.before[0], json.loadavg.after[0]],
    note: json.note
  }
}
