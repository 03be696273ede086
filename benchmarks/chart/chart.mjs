// Draws the whole-client benchmark results as one SVG: bar panels for throughput (events/s, client CPU
// per event), idle memory per connection and time to open, from benchmarks/results/e2e-<node>.json and
// memory-<node>.json (whichever exist), with each target drawn where our bar has to reach.
// Written to benchmarks/results/whole-client-<node>.svg. ../e2e/run.mjs and ../memory/run.mjs call it
// after saving their results; to redraw from the committed JSON:
//
//   node benchmarks/chart/chart.mjs [--node v20.20.2]

import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { E2E_TARGETS, targetRatio, e2eTargetApplies } from '../e2e/targets.mjs'
import { MEMORY_TARGET } from '../memory/targets.mjs'

const resultsDir = fileURLToPath(new URL('../results/', import.meta.url))

const COLORS = {
  ours: '#2563eb',
  'ours+batch': '#60a5fa',
  undici: '#d97706',
  undici8: '#b45309',
  node: '#7c3aed',
  eventsource: '#059669',
  eventsource5: '#047857',
  floor: '#9ca3af'
}
// ours+diagnostics is left to the tables: it is ours, not a peer. ours+batch is drawn: the batch target's bar.
const ORDER = Object.keys(COLORS)
const LEGEND = {
  ours: 'ours',
  'ours+batch': 'ours with init.onBatch',
  undici: 'undici 7 EventSource',
  undici8: 'undici 8 EventSource',
  node: 'Node\'s own EventSource',
  eventsource: 'eventsource 4',
  eventsource5: 'eventsource 5',
  floor: 'floor (node:http GET)'
}
const SHORT = { ours: 'ours', undici: 'undici 7', undici8: 'undici 8', node: 'Node\'s own', eventsource: 'eventsource 4', eventsource5: 'eventsource 5' }
// The chart's layout, in SVG units.
const LAYOUT = Object.freeze({ width: 980, panelWidth: 470, gap: 20, labelWidth: 165, valueWidth: 125, rowHeight: 22, titleHeight: 40 })

const esc = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')

function fmt (value, unit) {
  if (unit === 'events/s') return value >= 1e6 ? `${(value / 1e6).toFixed(2)} M/s` : `${(value / 1e3).toFixed(1)} k/s`
  if (unit === 'µs') return `${value.toFixed(2)} µs`
  if (unit === 'KiB') return `${value.toFixed(1)} KiB`
  if (unit === 'ms') return `${value.toFixed(0)} ms`
  return String(value)
}

/**
 * One panel: a bar per client. `targets`: [{ value, label }] drawn as dashed lines (where our bar
 * has to reach, or stay under). `max`: the end of the scale; a longer bar is clipped there.
 */
function panel (x, y, { title, subtitle, unit, bars, targets = [], max = null }) {
  const height = LAYOUT.titleHeight + bars.length * LAYOUT.rowHeight + 14 + 10 * targets.length
  const plotW = LAYOUT.panelWidth - LAYOUT.labelWidth - LAYOUT.valueWidth
  max ??= Math.max(...bars.map((b) => b.value), ...targets.map((t) => t.value)) * 1.05
  const scale = (v) => (Math.min(v, max) / max) * plotW
  const out = []
  out.push(`<g transform="translate(${x},${y})">`)
  out.push(`<rect width="${LAYOUT.panelWidth}" height="${height}" fill="#fff" stroke="#e5e7eb"/>`)
  out.push(`<text x="10" y="18" font-weight="600">${esc(title)}</text>`)
  out.push(`<text x="10" y="33" fill="#6b7280" font-size="11">${esc(subtitle)}</text>`)
  bars.forEach((b, i) => {
    const by = LAYOUT.titleHeight + i * LAYOUT.rowHeight
    out.push(`<text x="${LAYOUT.labelWidth - 6}" y="${by + 14}" text-anchor="end" font-size="11">${esc(b.label)}</text>`)
    out.push(`<rect x="${LAYOUT.labelWidth}" y="${by + 3}" width="${Math.max(1, scale(b.value)).toFixed(1)}" height="${LAYOUT.rowHeight - 6}" fill="${COLORS[b.client] ?? '#6b7280'}"/>`)
    const note = [b.note, b.value > max ? 'clipped' : ''].filter(Boolean).join(', ')
    const labelX = b.value > max ? LAYOUT.labelWidth + 4 : LAYOUT.labelWidth + scale(b.value) + 4
    const fill = b.value > max ? ' fill="#fff"' : ''
    out.push(`<text x="${labelX}" y="${by + 14}" font-size="11"${fill}>${esc(fmt(b.value, unit))}${note ? ` <tspan${fill || ' fill="#6b7280"'}>${esc(note)}</tspan>` : ''}</text>`)
  })
  targets.forEach((t, i) => {
    const tx = LAYOUT.labelWidth + scale(t.value)
    out.push(`<line x1="${tx.toFixed(1)}" x2="${tx.toFixed(1)}" y1="${LAYOUT.titleHeight - 2}" y2="${LAYOUT.titleHeight + bars.length * LAYOUT.rowHeight}" stroke="#dc2626" stroke-dasharray="3,2"/>`)
    out.push(`<text x="${tx.toFixed(1)}" y="${LAYOUT.titleHeight + bars.length * LAYOUT.rowHeight + 9 + 10 * i}" font-size="9" fill="#dc2626" text-anchor="middle">${esc(t.label)}</text>`)
  })
  out.push('</g>')
  return { svg: out.join('\n'), height }
}

function bars (entries, value, ratioOf) {
  return ORDER.filter((c) => entries[c] && value(entries[c]) != null).map((c) => ({
    client: c,
    // The runtime's own is labelled after its flag and bundled undici in the tables: too long for a bar.
    label: c === 'node' ? LEGEND.node : entries[c].label,
    value: value(entries[c]),
    note: ratioOf && c !== 'ours' && entries.ours && value(entries.ours) != null ? ratioOf(value(entries.ours), value(entries[c])) : ''
  }))
}

const times = (a, b) => `ours ${(a / b).toFixed(2)}x`

/**
 * Builds the SVG for `node` (e.g. v20.20.2) from the results files (other paths may be given); returns
 * its path, or null when there are no results.
 */
export function writeChart ({
  node = process.version,
  e2ePath = `${resultsDir}e2e-${node}.json`,
  memoryPath = `${resultsDir}memory-${node}.json`,
  out = `${resultsDir}whole-client-${node}.svg`
} = {}) {
  const e2e = existsSync(e2ePath) ? JSON.parse(readFileSync(e2ePath, 'utf8')) : null
  const memory = existsSync(memoryPath) ? JSON.parse(readFileSync(memoryPath, 'utf8')) : null
  if (e2e === null && memory === null) return null

  const panels = []
  if (e2e !== null) {
    for (const [name, w] of Object.entries(e2e.workloads)) {
      const c = w.clients
      const eps = bars(c, (r) => r.eventsPerSecond?.median, times)
      // The targets of issue 28 on this Node (warm small events), where our bar must reach.
      const targets = []
      for (const t of E2E_TARGETS.filter((x) => x.workload === name && e2eTargetApplies(x, e2e.environment.node))) {
        const r = targetRatio(e2e.workloads, t)
        if (r !== null) targets.push({ value: t.goal * r.peerValue, label: `${t.goal}x ${r.peer === null ? 'committed Node 20' : SHORT[r.peer]} (warm)` })
      }
      panels.push({ title: `Throughput: ${w.title}`, subtitle: 'events/s over loopback, median (higher is better)', unit: 'events/s', bars: eps, targets })
      panels.push({ title: `Client CPU per event: ${w.title}`, subtitle: 'process.cpuUsage() user+system / events, median (lower is better)', unit: 'µs', bars: bars(c, (r) => r.cpuUsPerEvent?.median, (a, b) => `ours ${(a / b).toFixed(2)}x`) })
    }
  }
  if (memory !== null) {
    for (const entry of Object.values(memory.counts)) {
      const c = entry.clients
      const peer = c[MEMORY_TARGET.peer]?.[MEMORY_TARGET.key]
      const targets = peer ? [{ value: MEMORY_TARGET.goal * peer.median / 1024, label: `target ${MEMORY_TARGET.goal}x undici 7` }] : []
      panels.push({ title: `Idle heap per connection: ${entry.count.toLocaleString('en-US')} connections`, subtitle: 'heapUsed after GC, (after - before) / count, median (lower is better)', unit: 'KiB', bars: bars(c, (r) => r.heapUsedPerConnection && r.heapUsedPerConnection.median / 1024, times), targets })
    }
    const last = Object.values(memory.counts).at(-1)
    if (last) {
      const c = last.clients
      panels.push({ title: `Time to open ${last.count.toLocaleString('en-US')} connections`, subtitle: 'first constructor to the last connection\'s event, median (lower is better)', unit: 'ms', bars: bars(c, (r) => r.timeToOpenAllMs?.median, times) })
      panels.push({ title: `Idle RSS per connection: ${last.count.toLocaleString('en-US')} connections`, subtitle: 'rss after GC, (after - before) / count, median (lower is better; noisy)', unit: 'KiB', bars: bars(c, (r) => r.rssPerConnection && r.rssPerConnection.median / 1024, times) })
    }
  }

  // Throughput panels: the floor is far ahead of the EventSources; its bar is clipped (and says so) so
  // that the scale stays readable for the three EventSources.
  for (const p of panels) {
    if (p.unit !== 'events/s') continue
    const others = [...p.bars.filter((b) => b.client !== 'floor').map((b) => b.value), ...p.targets.map((t) => t.value)]
    p.max = Math.max(...others) * 1.3
  }

  const env = (e2e ?? memory).environment
  const lib = env.git ? `, lib/ at ${env.git.commit}${env.git.libModified ? '+' : ''}` : ''
  const header = `whatwg-eventsource whole-client benchmarks — node ${env.node}, ${env.cpu} (${env.cores} cores), ${env.platform}${lib}`
  const commands = [e2e && `${e2e.command} (${e2e.date.slice(0, 10)})`, memory && `${memory.command} (${memory.date.slice(0, 10)})`].filter(Boolean).join('; ')
  const parts = []
  let y = 56
  for (let i = 0; i < panels.length; i += 2) {
    let rowHeight = 0
    for (let j = 0; j < 2 && i + j < panels.length; j++) {
      const p = panels[i + j]
      const drawn = panel(LAYOUT.gap / 2 + j * (LAYOUT.panelWidth + LAYOUT.gap), y, p)
      parts.push(drawn.svg)
      rowHeight = Math.max(rowHeight, drawn.height)
    }
    y += rowHeight + LAYOUT.gap
  }
  // The legend names the clients drawn, four to a line.
  const drawn = ORDER.filter((c) => panels.some((p) => p.bars.some((b) => b.client === c)))
  const legend = drawn.map((c, i) => {
    const lx = 10 + (i % 4) * 240
    const ly = y + Math.floor(i / 4) * 16
    return `<rect x="${lx}" y="${ly}" width="10" height="10" fill="${COLORS[c]}"/><text x="${lx + 14}" y="${ly + 9}" font-size="11">${esc(LEGEND[c])}</text>`
  }).join('\n')
  const height = y + 8 + 16 * Math.ceil(drawn.length / 4)
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${LAYOUT.width}" height="${height}" viewBox="0 0 ${LAYOUT.width} ${height}" font-family="system-ui, -apple-system, Segoe UI, Helvetica, Arial, sans-serif" font-size="12">
<rect width="100%" height="100%" fill="#f9fafb"/>
<text x="10" y="22" font-size="15" font-weight="600">${esc(header)}</text>
<text x="10" y="42" font-size="11" fill="#6b7280">${esc(commands)}; red dashed lines: where our bar must reach (throughput) or stay under (memory, time)</text>
${parts.join('\n')}
${legend}
</svg>
`
  writeFileSync(out, svg)
  return out
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const i = process.argv.indexOf('--node')
  const path = writeChart({ node: i === -1 ? process.version : process.argv[i + 1] })
  console.log(path ?? 'no results to draw')
}
