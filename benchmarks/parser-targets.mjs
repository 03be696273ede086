// The parser targets of issue 28, stated once: ./parser.bench.mjs and ./parser-processes.mjs print
// them, the report (./report/parser.mjs) puts them in the READMEs. A ratio is ours ÷ the fastest
// peer (on p50; across processes, on the median p50s), so below 1 is faster than every peer.
//
//   faster  on every Node: never slower than any peer, ratio < 1 on every fixture
//   half    on Node 24 and 26: at most 0.5x the fastest peer on every fixture

export const PARSER_TARGETS = [
  { id: 'faster', goal: 1, below: true, nodes: null, what: 'faster than every peer (< 1)', short: '< 1 (every Node)' },
  { id: 'half', goal: 0.5, below: false, nodes: [24, 26], what: 'at most 0.5x the fastest peer (Node 24, 26)', short: '<= 0.5 (Node 24, 26)' }
]

const major = (version) => Number(version.replace(/^v/, '').split('.')[0])

/** Whether a target is one on Node `version` ("v24.21.0"). */
export function targetApplies (target, version) {
  return target.nodes === null || target.nodes.includes(major(version))
}

export function targetMet (target, ratio) {
  return target.below ? ratio < target.goal : ratio <= target.goal
}

/**
 * A fixture's status against every target on Node `version`: { faster: 'met' | 'MISSED', half: ... },
 * 'n/a' where the target is not one on that Node.
 */
export function parserStatus (ratio, version) {
  return Object.fromEntries(PARSER_TARGETS.map((t) => [t.id, targetApplies(t, version) ? (targetMet(t, ratio) ? 'met' : 'MISSED') : 'n/a']))
}

/** Lines summing up a table of ratios ({ fixture, ratio }) against the targets on Node `version`. */
export function parserTargetLines (rows, version) {
  return PARSER_TARGETS.map((t) => {
    const misses = rows.filter((r) => !targetMet(t, r.ratio))
    const head = `${t.what}: ${rows.length - misses.length} of ${rows.length} fixtures`
    if (!targetApplies(t, version)) return `${head} (not a target on Node ${major(version)})`
    return misses.length === 0 ? `${head}: met` : `${head}: MISSED on ${misses.map((r) => `${r.fixture} (${r.ratio.toFixed(2)})`).join('; ')}`
  })
}
