// One server process of the serving benchmarks: forked by ./sample.mjs with --expose-gc, it runs one
// server of ./servers.mjs (argv[2]: JSON { server }) and does what its parent asks over IPC. Every
// request carries a `seq`, echoed in its reply.
//
//   count                           { subscribers }: how many requests the server has subscribed
//   memory                          { usage }: process.memoryUsage() after a full GC
//   welcome                         publishes the next welcome event (./workload.mjs) in one tick
//   fanout { first, events, perTick, seconds }
//                                   publishes `events` events from event `first`, perTick per tick (setImmediate between
//                                   ticks), and no tick after `seconds` (0: no limit); replies after the
//                                   last tick with { t0, published } (t0: process.hrtime of the first
//                                   publish, as a string: the client's clock is the same monotonic
//                                   clock) and the CPU time of the publishing
//   slow { events, perTick, bytes, every, intervalMs }
//                                   the same with events of `bytes` of data, a tick every `intervalMs`,
//                                   and a memory sample (after a full GC, with the count of subscribers)
//                                   before the first tick and after every `every` events
//   cpu                             { cpuUs }: CPU time of this process so far

import { setTimeout as sleep } from 'node:timers/promises'
import { startServer } from './servers.mjs'
import { welcome, batches } from './workload.mjs'

if (typeof globalThis.gc !== 'function') throw new Error('run with --expose-gc')

const { server: id } = JSON.parse(process.argv[2])
const server = await startServer(id)
let welcomes = 0

async function fullGC () {
  // Several rounds, with turns of the event loop between them for finalizers and weak callbacks.
  for (let i = 0; i < 4; i++) {
    globalThis.gc()
    await sleep(10)
  }
}

const cpuUs = (since) => {
  const c = process.cpuUsage(since)
  return c.user + c.system
}

// Publishes `count` ticks, the events of tick i being `tick(i)`, one tick per turn of the event loop;
// `between(published)` may return a
// promise to wait on before the next tick (a memory sample); with `seconds`, no tick starts after that
// much time from the first; with `intervalMs`, ticks are that far apart (a steady rate), else one per
// turn of the event loop. Resolves with { t0 } (the time of the first publish) and { published }.
function publishTicks (count, tick, { between = null, seconds = 0, intervalMs = 0 } = {}) {
  return new Promise((resolve, reject) => {
    let t0 = null
    let i = 0
    let published = 0
    const until = BigInt(Math.round(seconds * 1e9))
    const step = async () => {
      try {
        if (t0 === null) t0 = process.hrtime.bigint()
        const events = tick(i)
        server.publish(events)
        published += events.length
        i++
        if (between !== null) await between(published)
        if (i === count || (until !== 0n && process.hrtime.bigint() - t0 >= until)) resolve({ t0, published })
        else if (intervalMs > 0) setTimeout(step, intervalMs)
        else setImmediate(step)
      } catch (err) {
        reject(err)
      }
    }
    step()
  })
}

const HANDLERS = {
  count: () => ({ subscribers: server.subscribers() }),
  async memory () {
    await fullGC()
    return { usage: process.memoryUsage() }
  },
  welcome () {
    server.publish([welcome(++welcomes)])
    return {}
  },
  async fanout ({ first, events, perTick, seconds }) {
    // Built before the clock starts: the server's time goes to publishing, not to making events.
    const ticks = batches(events, perTick, undefined, first)
    const cpu = process.cpuUsage()
    const { t0, published } = await publishTicks(ticks.length, (i) => ticks[i], { seconds })
    return { t0: String(t0), published, publishMs: Number(process.hrtime.bigint() - t0) / 1e6, publishCpuUs: cpuUs(cpu) }
  },
  async slow ({ events, perTick, bytes, every, intervalMs }) {
    // Each tick's events made as it is published, and dropped after: kept, their data (flattened by the
    // first encoder that reads it) would be memory of this harness, counted as the server's.
    const tick = (i) => batches(Math.min(perTick, events - i * perTick), perTick, bytes, 1 + i * perTick)[0]
    const samples = []
    const sample = async (published) => {
      await fullGC()
      samples.push({ published, subscribers: server.subscribers(), usage: process.memoryUsage() })
    }
    await sample(0)
    let next = every
    await publishTicks(Math.ceil(events / perTick), tick, {
      intervalMs,
      between (published) {
        if (published < next) return
        next += every
        return sample(published)
      }
    })
    return { samples }
  },
  cpu: () => ({ cpuUs: cpuUs() })
}

process.on('message', async (m) => {
  let reply
  try {
    reply = await HANDLERS[m.type](m)
  } catch (err) {
    reply = { error: err.stack ?? String(err) }
  }
  process.send({ seq: m.seq, ...reply })
})
process.on('disconnect', () => process.exit(0))
process.send({ type: 'ready', port: server.port })
