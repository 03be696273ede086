// Encoding cost per event: each server's serializer (./encoders.mjs) on the fan-out's events (60 bytes
// of data and an id), in mitata. Run by ./run.mjs, one process per round (the figures go to
// results/server-<node>.json), or alone:
//
//   node --expose-gc benchmarks/server/encode.bench.mjs
//
// Verified first: what each encoder makes of every event of an iteration decodes (our parser) to that
// event; an encoder that fails is reported and not timed. One iteration encodes the same 100 events
// (each a fresh object, as a publisher makes them), a call per event (ours' batch encoder: 5 calls of
// 20); the figures are per event. The batch encoder's is per event of its batches.

import v8 from 'node:v8'
import vm from 'node:vm'
import { ENCODERS, availableEncoders } from './encoders.mjs'
import { eventOf } from './workload.mjs'
import { decode } from './sample.mjs'

if (typeof globalThis.gc !== 'function') {
  v8.setFlagsFromString('--expose-gc')
  globalThis.gc = vm.runInNewContext('gc')
}
const { bench, group, run, do_not_optimize } = await import('mitata') // eslint-disable-line camelcase -- mitata's name

const PER_ITERATION = 100
const ids = (process.argv.includes('--encoders') ? process.argv[process.argv.indexOf('--encoders') + 1].split(',') : availableEncoders())

const events = () => Array.from({ length: PER_ITERATION }, (_, i) => eventOf(1 + i))
const bytesOf = (out) => typeof out === 'string' ? Buffer.from(out) : out

const encoders = {}
const failures = {}
for (const id of ids) {
  const encoder = ENCODERS[id]
  const encode = await encoder.setup()
  const list = events()
  const outputs = []
  if (encoder.batch) {
    for (let i = 0; i < list.length; i += encoder.batch) outputs.push(encode(list.slice(i, i + encoder.batch)))
  } else {
    for (const event of list) outputs.push(await encode(event))
  }
  const got = decode(Buffer.concat(outputs.map(bytesOf)))
  const bad = list.findIndex((e, i) => got[i]?.[0] !== 'message' || got[i][1] !== e.id || got[i][2] !== e.data)
  if (bad !== -1 || got.length !== list.length) {
    failures[id] = bad !== -1 ? `event ${bad} decoded as ${JSON.stringify(got[bad] ?? null)}` : `${got.length} events decoded of ${list.length}`
    console.error(`${encoder.label}: VERIFICATION FAILED: ${failures[id]}`)
    continue
  }
  encoders[id] = { encoder, encode }
}

// The event objects are made inside the timed loop, as a publisher makes them (the same cost for every
// encoder), from one list of ids and data.
const pairs = events().map((e) => [e.id, e.data])

group(`encode an event (${PER_ITERATION} per iteration)`, () => {
  for (const [id, { encoder, encode }] of Object.entries(encoders)) {
    if (encoder.batch) {
      const size = encoder.batch
      bench(encoder.label, () => {
        let n = 0
        for (let i = 0; i < pairs.length; i += size) {
          const batch = []
          for (let k = i; k < i + size; k++) batch.push({ id: pairs[k][0], data: pairs[k][1] })
          n += encode(batch).length
        }
        return do_not_optimize(n)
      })
    } else if (id === 'hono') {
      bench(encoder.label, async () => {
        let n = 0
        for (const [id, data] of pairs) n += (await encode({ id, data })).length
        return do_not_optimize(n)
      })
    } else {
      bench(encoder.label, () => {
        let n = 0
        for (const [id, data] of pairs) n += encode({ id, data }).length
        return do_not_optimize(n)
      })
    }
  }
})

const result = await run({ throw: true, format: process.send ? 'quiet' : 'mitata' })

const perEvent = {}
for (const b of result.benchmarks) {
  for (const r of b.runs) {
    const id = Object.keys(encoders).find((k) => encoders[k].encoder.label === r.name)
    perEvent[id] = {
      label: r.name,
      p50Ns: r.stats.p50 / PER_ITERATION,
      avgNs: r.stats.avg / PER_ITERATION,
      minNs: r.stats.min / PER_ITERATION
    }
  }
}
if (process.send) process.send({ perEvent, failures, perIteration: PER_ITERATION }, () => process.exit(0))
