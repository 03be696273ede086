// The whole-client throughput targets of issue 28, stated once: the runner (./run.mjs) prints them,
// the report (../report/whole-client.mjs) and the chart (../chart/chart.mjs) show them. All are on
// warm small events: each process's median of its timed runs, then the median over processes.
//
//   undici       Node 22, 24, 26: ours ÷ the faster of undici 7's, undici 8's and the runtime's own
//                EventSource (--experimental-eventsource) >= 3.5
//   eventsource  Node 22, 24, 26: ours ÷ the faster of the eventsource package 4 and 5 >= 3 (5 where the
//                Node supports it)
//   node20       Node 20: ours no slower than in the committed Node 20 result, NODE20_BASELINE
//   batch        Node 22, 24, 26 (issue 48): ours with init.onBatch ÷ ours with an onmessage listener >= 2
//                (`subject`: the client measured, when it is not `ours`)
//
// "The faster" is the peer with the higher median among those the run measured; a peer the run did
// not measure (an older file, a Node outside its engines) is named as missing, not counted.

export const NODE20_BASELINE = {
  // Ours, warm small events/s, median over 5 processes (range 1.14 M-1.82 M), from
  // benchmarks/results/e2e-v20.20.2.json as committed in 1a4f3fd (lib/ at c9e56d0, a fresh clone,
  // nothing else running). A constant: the file itself is replaced by each new Node 20 run.
  eventsPerSecond: 1360285.2360346878,
  file: 'e2e-v20.20.2.json',
  commit: '1a4f3fd',
  lib: 'c9e56d0'
}

export const E2E_TARGETS = [
  {
    id: 'undici',
    workload: 'small',
    phase: 'warm',
    peers: ['undici', 'undici8', 'node'],
    goal: 3.5,
    nodes: [22, 24, 26],
    what: 'warm small events/s: ours ÷ the faster of undici 7, undici 8 and Node\'s own EventSource'
  },
  {
    id: 'eventsource',
    workload: 'small',
    phase: 'warm',
    peers: ['eventsource', 'eventsource5'],
    goal: 3,
    nodes: [22, 24, 26],
    what: 'warm small events/s: ours ÷ the faster of the eventsource package 4 and 5'
  },
  {
    id: 'node20',
    workload: 'small',
    phase: 'warm',
    peers: [],
    baseline: NODE20_BASELINE,
    goal: 1,
    nodes: [20],
    what: `warm small events/s: ours ÷ ours in the committed Node 20 result (${(NODE20_BASELINE.eventsPerSecond / 1e6).toFixed(2)} M/s, ${NODE20_BASELINE.file} at ${NODE20_BASELINE.commit})`
  },
  {
    id: 'batch',
    workload: 'small',
    phase: 'warm',
    subject: 'ours+batch',
    peers: ['ours'],
    goal: 2,
    nodes: [22, 24, 26],
    what: 'warm small events/s: ours with init.onBatch ÷ ours with an onmessage listener'
  }
]

const major = (version) => Number(version.replace(/^v/, '').split('.')[0])

/** Whether a target is one on Node `version` ("v22.23.3"). */
export function e2eTargetApplies (target, version) {
  return target.nodes.includes(major(version))
}

/** A client's median events/s in a target's phase, or null when not measured. */
export function phaseEventsPerSecond (clients, client, phase) {
  const c = clients?.[client]
  const measured = phase === 'all' ? c : c?.[phase]
  return measured?.eventsPerSecond?.median ?? null
}

/**
 * Whether a target is shown for a run on Node `version`: every peer target on every Node (on the Nodes
 * it is not a target on, as information), the baseline only on its own Node (ours on Node 22 ÷ ours
 * on Node 20 says nothing).
 */
export function e2eTargetShown (target, version) {
  return target.baseline === undefined || e2eTargetApplies(target, version)
}

/**
 * A target in a run's `workloads` (as run.mjs records them): { ratio, ours, peer, peerValue, missing }
 * (peer: the faster peer's id, null against the baseline; missing: the target's peers the run did not
 * measure), or null when ours or every peer is missing.
 */
export function targetRatio (workloads, target) {
  const clients = workloads[target.workload]?.clients
  const ours = phaseEventsPerSecond(clients, target.subject ?? 'ours', target.phase)
  if (ours === null) return null
  if (target.baseline) return { ratio: ours / target.baseline.eventsPerSecond, ours, peer: null, peerValue: target.baseline.eventsPerSecond, missing: [] }
  const measured = target.peers.filter((p) => phaseEventsPerSecond(clients, p, target.phase) !== null)
  if (measured.length === 0) return null
  const peer = measured.reduce((a, b) => (phaseEventsPerSecond(clients, b, target.phase) > phaseEventsPerSecond(clients, a, target.phase) ? b : a))
  const peerValue = phaseEventsPerSecond(clients, peer, target.phase)
  return { ratio: ours / peerValue, ours, peer, peerValue, missing: target.peers.filter((p) => !measured.includes(p)) }
}

/** 'met', 'MISSED', or 'n/a' where the target is not one on Node `version`. */
export function targetStatus (target, ratio, version) {
  if (!e2eTargetApplies(target, version)) return 'n/a'
  return ratio >= target.goal ? 'met' : 'MISSED'
}
