// The events of the serving benchmarks (./run.mjs), shared by the server process (which publishes
// them), the runner and the test (which know what every subscriber must have received). Every event is
// generated from its index, so nothing has to be copied between processes.
//
//   welcome     the event every subscriber gets once it is subscribed: what makes it idle, having had
//               its head (some servers send the head with the first event only) and one event; the n-th
//               published has the id "welcome-<n>" (a channel refuses an id its history holds)
//   fan-out     event i (1-based): id "<i>", data 60 ASCII bytes: {"seq":"000042","text":"<35 bytes>"}
//   not-reading event i: the same shape with 16 KiB of data, so that the subscribers that do not read
//               fill their sockets (the kernel takes a few MiB each) within a few hundred events

/** The n-th welcome event (1-based). */
export function welcome (n) {
  return { id: `welcome-${n}`, data: 'welcome' }
}

export const FANOUT_DATA_BYTES = 60
export const SLOW_DATA_BYTES = 16 * 1024

// {"seq":"000042","text":"  and  "}
const VALUE_FRAME = 24 + 2

// Deterministic ASCII filler: slices of one pseudo-random alphanumeric string.
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'
const FILLER = (() => {
  let x = 0x2545f491
  let s = ''
  for (let i = 0; i < 16384; i++) {
    x ^= x << 13; x ^= x >>> 17; x ^= x << 5
    s += ALPHABET[(x >>> 0) % ALPHABET.length]
  }
  return s
})()

function filler (i, length) {
  const start = (i * 7919) % (FILLER.length - length)
  return FILLER.slice(start, start + length)
}

/** The data of event `i` with `bytes` of data (ASCII, so as many characters). */
export function eventData (i, bytes = FANOUT_DATA_BYTES) {
  return `{"seq":"${String(i).padStart(6, '0')}","text":"${filler(i, bytes - VALUE_FRAME)}"}`
}

/** Event `i` (1-based) as every server is given it: { id, data }. */
export function eventOf (i, bytes = FANOUT_DATA_BYTES) {
  return { id: String(i), data: eventData(i, bytes) }
}

/** Events first..first+n-1, cut into the batches published in one tick each. */
export function batches (n, perTick, bytes = FANOUT_DATA_BYTES, first = 1) {
  const out = []
  const last = first + n - 1
  for (let i = first; i <= last; i += perTick) {
    const batch = []
    for (let k = i; k < i + perTick && k <= last; k++) batch.push(eventOf(k, bytes))
    out.push(batch)
  }
  return out
}

/**
 * What a subscriber that stayed from the first welcome to the end of a fan-out of `n` events must have
 * received, as [id, data] pairs (the type is "message" for all of them).
 */
export function expectedEvents (n, bytes = FANOUT_DATA_BYTES) {
  const first = welcome(1)
  const out = [[first.id, first.data]]
  for (let i = 1; i <= n; i++) {
    const e = eventOf(i, bytes)
    out.push([e.id, e.data])
  }
  return out
}
