// The whole-client targets of issue 28 in the report (../report.mjs): throughput (../e2e/targets.mjs)
// across Node versions, and idle heap over HTTP/1.1 (../memory/targets.mjs). A peer a file
// does not hold (files written before it was a peer, or a Node outside its engines) shows as "-"; a
// target that is not one on a run's Node is shown with "n/a" as its status.

import { table, fmtRate, fmtX } from './format.mjs'
import { E2E_TARGETS, targetRatio, targetStatus, e2eTargetShown } from '../e2e/targets.mjs'
import { MEMORY_TARGET } from '../memory/targets.mjs'

// The peers of the throughput targets, as columns.
export const PEER_COLUMNS = [
  { id: 'undici', title: 'undici 7' },
  { id: 'undici8', title: 'undici 8' },
  { id: 'node', title: 'Node\'s own' },
  { id: 'eventsource', title: 'eventsource 4' },
  { id: 'eventsource5', title: 'eventsource 5' }
]
const titleOf = (id) => PEER_COLUMNS.find((p) => p.id === id)?.title ?? id

const warm = (run, id) => run.json.workloads.small?.clients[id]?.warm?.eventsPerSecond ?? null
const bold = (status) => status === 'MISSED' ? '**MISSED**' : status
const nodesOf = (t) => `Node ${t.nodes.join(', ')}`

/**
 * docs/performance.md: one row per Node version with an e2e file: every client's warm
 * small events/s and the ratio of each target, "n/a" where a target is not one on that Node.
 */
export function e2eTargetsByNode (runs) {
  const withWarm = runs.filter((run) => warm(run, 'ours'))
  if (withWarm.length === 0) return null
  const rows = withWarm.map((run) => {
    const node = run.json.environment.node
    const cells = E2E_TARGETS.map((t) => e2eTargetCell(run, t))
    return [node, fmtRate(warm(run, 'ours').median), ...PEER_COLUMNS.map(({ id }) => warm(run, id) ? fmtRate(warm(run, id).median) : '-'), ...cells]
  })
  return table(['Node', 'ours', ...PEER_COLUMNS.map((p) => p.title), ...E2E_TARGETS.map((t) => targetHeading(t))], rows)
}

/**
 * A target's cell for one e2e run: the ratio, the faster peer and the status ("not a target" on a Node
 * it is not one on); '' where it is not shown on that Node, '-' where the run lacks its figures.
 */
export function e2eTargetCell (run, t) {
  const node = run.json.environment.node
  const r = targetRatio(run.json.workloads, t)
  if (!e2eTargetShown(t, node)) return ''
  if (r === null) return '-'
  const status = targetStatus(t, r.ratio, node)
  const against = r.peer === null ? '' : ` vs ${titleOf(r.peer)}`
  return `${fmtX(r.ratio)}${against}: ${status === 'n/a' ? 'not a target' : bold(status)}`
}

function targetHeading (t) {
  if (t.baseline) return `ours ÷ committed Node 20 (>= ${t.goal}x, ${nodesOf(t)})`
  if (t.subject === 'ours+batch') return `ours with onBatch ÷ ours (>= ${t.goal}x, ${nodesOf(t)})`
  return `ours ÷ the faster of ${t.peers.map(titleOf).join(', ')} (>= ${t.goal}x, ${nodesOf(t)})`
}

/** benchmarks/README.md, per memory run and count: ours' heap per idle connection ÷ undici 7's and the status. */
export function memoryTargetCell (run, count) {
  const c = run.json.counts[count]?.clients
  if (!c?.ours?.verified || !c[MEMORY_TARGET.peer]?.verified) return '-'
  const ratio = c.ours[MEMORY_TARGET.key].median / c[MEMORY_TARGET.peer][MEMORY_TARGET.key].median
  return `${fmtX(ratio)}: ${bold(ratio <= MEMORY_TARGET.goal ? 'met' : 'MISSED')}`
}
