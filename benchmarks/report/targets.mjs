// The whole-client targets of issue 28 in the report (../report.mjs): throughput (../e2e/targets.mjs)
// per run and across Node versions, and idle heap over HTTP/1.1 (../memory/targets.mjs). A peer a file
// does not hold (files written before it was a peer, or a Node outside its engines) shows as "-"; a
// target that is not one on a run's Node is shown with "n/a" as its status.

import { table, spread, ratioCell, fmtRate, fmtX } from './format.mjs'
import { E2E_TARGETS, targetRatio, targetStatus, e2eTargetShown } from '../e2e/targets.mjs'
import { MEMORY_TARGET } from '../memory/targets.mjs'
import { e2eRounds, pairRatios, memoryRatio } from './rounds.mjs'

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

/** A target's ratio with the range of the per-process ratios (against the baseline: ours' per process). */
function ratioWithRange (run, t, r) {
  const ours = e2eRounds(run, t.workload, 'ours', 'eventsPerSecond', t.phase)
  if (r.peer === null) return ratioCell(r.ratio, ours === null ? null : [...ours.values()].map((v) => v / r.peerValue), 'per process')
  return ratioCell(r.ratio, pairRatios(ours, e2eRounds(run, t.workload, r.peer, 'eventsPerSecond', t.phase)))
}

/** benchmarks/README.md, per e2e run: every target, its peers' warm figures, the ratio and the status. */
export function e2eTargetTable (run) {
  const node = run.json.environment.node
  const rows = E2E_TARGETS.filter((t) => e2eTargetShown(t, node)).map((t) => {
    const r = targetRatio(run.json.workloads, t)
    const peers = PEER_COLUMNS.map(({ id }) => !t.peers.includes(id) ? '' : warm(run, id) ? spread(warm(run, id), fmtRate) : '-')
    if (r === null) return [t.what, '-', ...peers, '', 'not measured', `>= ${t.goal}x (${nodesOf(t)})`, '']
    const against = r.peer === null ? `committed: ${fmtRate(r.peerValue)}` : titleOf(r.peer)
    return [t.what, spread(warm(run, 'ours'), fmtRate), ...peers, against, ratioWithRange(run, t, r), `>= ${t.goal}x (${nodesOf(t)})`,
      bold(targetStatus(t, r.ratio, node))]
  })
  return table(['target (warm small events/s)', 'ours', ...PEER_COLUMNS.map((p) => p.title), 'the faster', 'ratio of medians', 'goal', `on ${node}`], rows)
}

/**
 * README.md and benchmarks/README.md: one row per Node version with an e2e file: every client's warm
 * small events/s and the ratio of each target, "n/a" where a target is not one on that Node.
 */
export function e2eTargetsByNode (runs) {
  const withWarm = runs.filter((run) => warm(run, 'ours'))
  if (withWarm.length === 0) return null
  const rows = withWarm.map((run) => {
    const node = run.json.environment.node
    const cells = E2E_TARGETS.map((t) => {
      const r = targetRatio(run.json.workloads, t)
      if (!e2eTargetShown(t, node)) return ''
      if (r === null) return '-'
      const status = targetStatus(t, r.ratio, node)
      const against = r.peer === null ? '' : ` vs ${titleOf(r.peer)}`
      return `${fmtX(r.ratio)}${against}: ${status === 'n/a' ? 'not a target' : bold(status)}`
    })
    return [node, fmtRate(warm(run, 'ours').median), ...PEER_COLUMNS.map(({ id }) => warm(run, id) ? fmtRate(warm(run, id).median) : '-'), ...cells]
  })
  return table(['Node', 'ours', ...PEER_COLUMNS.map((p) => p.title), ...E2E_TARGETS.map((t) => targetHeading(t))], rows)
}

function targetHeading (t) {
  if (t.baseline) return `ours ÷ committed Node 20 (>= ${t.goal}x, ${nodesOf(t)})`
  return `ours ÷ the faster of ${t.peers.map(titleOf).join(', ')} (>= ${t.goal}x, ${nodesOf(t)})`
}

/** benchmarks/README.md, per memory run: ours' heap per idle connection ÷ undici 7's, at each count. */
export function memoryTargetTable (run) {
  const rows = []
  for (const count of Object.keys(run.json.counts)) {
    const c = run.json.counts[count].clients
    if (!c.ours?.verified || !c[MEMORY_TARGET.peer]?.verified) continue
    const ratio = c.ours[MEMORY_TARGET.key].median / c[MEMORY_TARGET.peer][MEMORY_TARGET.key].median
    rows.push([`${MEMORY_TARGET.what}, ${Number(count).toLocaleString('en-US')} open`, memoryRatio(run, count, MEMORY_TARGET.peer, 'heap'),
      `<= ${MEMORY_TARGET.goal}x`, bold(ratio <= MEMORY_TARGET.goal ? 'met' : 'MISSED')])
    // Information, not the target: ours on the Agent undici's EventSource runs on (ours+agent).
    if (c['ours+agent']?.verified) {
      rows.push([`(information) the same with ours on the undici package's Agent, ${Number(count).toLocaleString('en-US')} open`,
        memoryRatio(run, count, MEMORY_TARGET.peer, 'heap', 'ours+agent'), '-', '-'])
    }
  }
  return rows.length ? table(['target (issue 28)', 'ratio of medians', 'goal', 'status'], rows) : null
}
