// Before anything is timed, benchmarks/parser-strings.bench.mjs checks every shape in both forms: the
// drop-in's records (every callback, in order; ./implementations.mjs) against each peer's, record for
// record, and the events of the feed form against the text's model (the events its generator wrote).

const show = (r) => {
  if (r === undefined) return '(none)'
  const s = JSON.stringify(r)
  return s.length > 120 ? `${s.slice(0, 120)}… (${s.length} chars)` : s
}

/** The first record where two lists differ, as a sentence; null when they are the same. */
export function firstDifference (got, want) {
  const n = Math.max(got.length, want.length)
  for (let i = 0; i < n; i++) {
    if (JSON.stringify(got[i]) !== JSON.stringify(want[i])) return `record #${i}: expected ${show(want[i])}, got ${show(got[i])}`
  }
  return null
}

/**
 * The feed form's records as the model's events: the type defaults to "message", the ID carries over.
 * An event's own `id` is the ID its block set (eventsource-parser 4 also calls onId before it; 3 has no onId).
 */
function asModel (records) {
  const events = []
  let lastEventId = ''
  for (const r of records) {
    if (r[0] === 'id') lastEventId = r[1]
    else if (r[0] === 'event') {
      if (r[1] !== undefined) lastEventId = r[1]
      events.push({ type: r[2] ?? 'message', data: r[3], lastEventId })
    }
  }
  return events
}

// Events first, then the other callbacks but onId, each list in its order: how records are compared
// with eventsource-parser 3, which has no onId (an event's `id` is still the ID of its block).
const byKind = (records) => [
  ...records.filter((r) => r[0] === 'event'),
  ['others'],
  ...records.filter((r) => r[0] !== 'event' && r[0] !== 'events' && r[0] !== 'id')
]

/**
 * Checks one shape; returns { shape, counts: { [form]: { [name]: events } }, differences: [{ form,
 * implementation, against, detail }] }. A difference of the drop-in from the model or from the newest
 * peer (impls[1], compared callback for callback) stops the benchmark (the caller's decision); one from
 * an older peer (compared event for event, then callback for callback: byKind) is reported.
 * @param {object} shape from ./shapes.mjs
 * @param {string[]} strings the shape's strings
 * @param {object[]} impls [dropIn, ...peers] from ./implementations.mjs
 * @param {string[]} forms
 */
export async function verifyShape (shape, strings, impls, forms) {
  const entry = { shape: shape.name, counts: {}, differences: [] }
  for (const form of forms) {
    entry.counts[form] = {}
    const records = []
    for (const impl of impls) {
      const got = await impl[form].collect(strings)
      records.push(got)
      const events = got.filter((r) => r[0] === 'event').length
      entry.counts[form][impl.name] = events
      // The timed form must count what the recorded one found.
      const counted = await impl[form].count(strings)
      if (counted !== events) throw new Error(`${impl.name} ${form}: count() found ${counted} events, collect() ${events}, on ${shape.name}`)
      if (form === 'feed') {
        const detail = firstDifference(asModel(got), shape.events)
        if (detail !== null) entry.differences.push({ form, implementation: impl.name, against: 'model', detail })
      } else if (events !== shape.events.length) {
        entry.differences.push({ form, implementation: impl.name, against: 'model', detail: `${events} events, the model has ${shape.events.length}` })
      }
    }
    for (let p = 1; p < impls.length; p++) {
      const detail = p === 1 ? firstDifference(records[0], records[p]) : firstDifference(byKind(records[0]), byKind(records[p]))
      if (detail !== null) entry.differences.push({ form, implementation: impls[0].name, against: impls[p].name, detail })
    }
  }
  return entry
}
