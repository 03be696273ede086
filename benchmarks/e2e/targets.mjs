// The whole-client throughput targets (issue 15), stated once: the runner (./run.mjs) prints them,
// the report (../report/whole-client.mjs) puts them in the READMEs. `phase`: 'warm' is each process's
// median of its timed runs (steady state), 'cold' each process's first connection, 'all' the median
// over all timed runs. A ratio is ours ÷ the peer, on the median events/s.

export const E2E_TARGETS = [
  { workload: 'small', phase: 'warm', peer: 'undici', goal: 3, what: 'warm small events/s: ours ÷ undici EventSource' },
  { workload: 'small', phase: 'warm', peer: 'eventsource', goal: 2, what: 'warm small events/s: ours ÷ eventsource package' },
  { workload: 'small', phase: 'warm', peer: 'floor', goal: 0.4, what: 'warm small events/s: ours ÷ the node:http floor' },
  { workload: 'small', phase: 'cold', peer: 'eventsource', goal: 1.5, what: 'cold small events/s: ours ÷ eventsource package' },
  { workload: 'large', phase: 'all', peer: 'undici', goal: 3, what: '16 KiB events/s: ours ÷ undici EventSource' }
]

/** A client's median events/s in a target's phase, or null when not measured. */
export function phaseEventsPerSecond (clients, client, phase) {
  const c = clients?.[client]
  const measured = phase === 'all' ? c : c?.[phase]
  return measured?.eventsPerSecond?.median ?? null
}

/** The target's ratio in a run's `workloads` (as run.mjs records them), or null when not measured. */
export function targetRatio (workloads, target) {
  const clients = workloads[target.workload]?.clients
  const ours = phaseEventsPerSecond(clients, 'ours', target.phase)
  const peer = phaseEventsPerSecond(clients, target.peer, target.phase)
  return ours === null || peer === null ? null : ours / peer
}
