// The serving targets of issue 49 (item 4), stated once: the runner (./run.mjs) prints them, the report
// (../report/server.mjs) shows them per Node. Each `evaluate(json)` reads a results/server-<node>.json
// and returns { value, shown, status } (status: met, MISSED), or null when the file lacks a figure.
//
//   idle heap     ours' heap per idle subscriber at most 1 KiB above the bare response's, at each count
//   fan-out 20    20 events per tick: ours' deliveries/s at least 5x the best peer's, and within 1.5x of
//                 the bare loop that writes one buffer per subscriber per tick (ours ÷ it at least 1/1.5)
//   fan-out 1     one event per tick: ours no slower than the bare response's one write per event
//   not reading   with 10 % of the subscribers not reading, ours' memory stays flat: its heap after GC at
//                 the last sample at most 1 MiB above the first; with its external memory (the encoded
//                 events of its history, which fills in the first half: at most 4 MiB by default, 256 of
//                 the 640 events of 16 KiB), at most 1 MiB above the sample taken half-way

import { PEERS } from './servers.mjs'

const NAMES = { 'better-sse': 'better-sse', hono: 'hono', 'fastify-sse': '@fastify/sse' }
const KiB = 1024
const MiB = 1024 * 1024

const ok = (r) => r?.verified === true
const median = (r, key) => r[key].median

function status (met) {
  return met ? 'met' : 'MISSED'
}

const fmtKiB = (bytes) => `${(bytes / KiB).toFixed(2)} KiB`
const fmtMiB = (bytes) => `${(bytes / MiB).toFixed(2)} MiB`
const fmtX = (x) => `${x.toFixed(2)}x`

function idleTarget (count) {
  return {
    id: `idle-${count}`,
    what: `${count.toLocaleString('en-US')} idle subscribers: ours' heap per subscriber − bare's <= 1 KiB`,
    evaluate (json) {
      const c = json.idle?.[count]
      if (!ok(c?.ours) || !ok(c?.bare)) return null
      const value = median(c.ours, 'heapUsedPerSubscriber') - median(c.bare, 'heapUsedPerSubscriber')
      return { value, shown: `${value >= 0 ? '+' : ''}${fmtKiB(value)}`, status: status(value <= KiB) }
    }
  }
}

const rate = (json, perTick, id) => {
  const r = json.fanout?.[perTick]?.[id]
  return ok(r) ? median(r, 'deliveriesPerSecond') : null
}

export const SERVER_TARGETS = [
  idleTarget(1000),
  idleTarget(10000),
  {
    id: 'fanout-20-peers',
    what: '20 per tick: ours ÷ the best peer >= 5x',
    evaluate (json) {
      const ours = rate(json, 20, 'ours')
      const peers = PEERS.map((id) => [id, rate(json, 20, id)]).filter(([, r]) => r !== null)
      if (ours === null || peers.length === 0) return null
      const [best, value] = peers.reduce((a, b) => (b[1] > a[1] ? b : a))
      return { value: ours / value, shown: `${fmtX(ours / value)} vs ${NAMES[best]}`, status: status(ours / value >= 5) }
    }
  },
  {
    id: 'fanout-20-bare-batched',
    what: '20 per tick: ours within 1.5x of bare-batched (ours ÷ it >= 0.67x)',
    evaluate (json) {
      const ours = rate(json, 20, 'ours')
      const bare = rate(json, 20, 'bare-batched')
      if (ours === null || bare === null) return null
      return { value: ours / bare, shown: fmtX(ours / bare), status: status(ours / bare >= 1 / 1.5) }
    }
  },
  {
    id: 'fanout-1-bare',
    what: '1 per tick: ours ÷ bare (one write per event) >= 1x',
    evaluate (json) {
      const ours = rate(json, 1, 'ours')
      const bare = rate(json, 1, 'bare')
      if (ours === null || bare === null) return null
      return { value: ours / bare, shown: fmtX(ours / bare), status: status(ours / bare >= 1) }
    }
  },
  {
    id: 'slow-heap',
    what: '10 % not reading: ours\' heap, last − first sample <= 1 MiB',
    evaluate (json) {
      const r = json.slow?.ours
      if (!ok(r)) return null
      const value = median(r, 'heapGrowth')
      return { value, shown: fmtMiB(value), status: status(value <= MiB) }
    }
  },
  {
    id: 'slow-flat',
    what: '10 % not reading: ours\' heap + external, last − half-way sample <= 1 MiB',
    evaluate (json) {
      const r = json.slow?.ours
      if (!ok(r)) return null
      const value = median(r, 'totalGrowthSecondHalf')
      return { value, shown: fmtMiB(value), status: status(value <= MiB) }
    }
  }
]
