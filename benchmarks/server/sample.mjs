// One sample of a serving benchmark: a fresh server process (./serve.mjs, one server of
// ./servers.mjs) and a fresh client process (./client.mjs, raw sockets), driven over IPC. Used by
// ./run.mjs and by test/benchmarks/bench-server.test.cjs. Each sample checks what the client received
// before it reports a figure: every reading socket's event count, and the events decoded (with our
// parser) from the bodies the client captured; a failed check is the sample's `error`.
//
//   idleSample     subscribers that have had their head and one event: server memory per subscriber at
//                  each count, against the memory before them (after a warm-up of a few subscribers
//                  that came and went)
//   fanoutSample   `events` events to `subscribers` subscribers, `perTick` per tick: deliveries per
//                  second, from the first publish to the last event received by every subscriber
//   slowSample     events published while every `every`-th subscriber does not read: the server's
//                  memory before, during and after

import { fork } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { setTimeout as sleep } from 'node:timers/promises'
import { EventSourceParser } from '../../lib/entries/index.js'
import { expectedEvents, FANOUT_DATA_BYTES, SLOW_DATA_BYTES } from './workload.mjs'

const SERVE = fileURLToPath(new URL('serve.mjs', import.meta.url))
const CLIENT = fileURLToPath(new URL('client.mjs', import.meta.url))

/** A child process answering requests over IPC ({ type, seq, ... } -> { seq, ... }). */
class Child {
  #child
  #seq = 0
  #waiting = new Map()
  #exited = null

  static async start (script, config, execArgv, what) {
    const child = new Child()
    child.#child = fork(script, [JSON.stringify(config)], { execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
    const ready = new Promise((resolve, reject) => {
      child.#child.on('message', (m) => {
        if (m?.type === 'ready') return resolve(m)
        const w = child.#waiting.get(m.seq)
        if (w === undefined) return
        child.#waiting.delete(m.seq)
        if (m.error !== undefined) w.reject(new Error(`${what}: ${m.error}`))
        else w.resolve(m)
      })
      child.#child.once('exit', (code, signal) => {
        child.#exited = `${what} exited (${code ?? signal})`
        const err = new Error(child.#exited)
        reject(err)
        for (const w of child.#waiting.values()) w.reject(err)
        child.#waiting.clear()
      })
    })
    try {
      child.ready = await bounded(ready, 60_000, `${what} to start`)
    } catch (err) {
      child.kill()
      throw err
    }
    return child
  }

  call (type, params = {}, ms = 120_000) {
    if (this.#exited !== null) return Promise.reject(new Error(this.#exited))
    const seq = ++this.#seq
    const reply = new Promise((resolve, reject) => this.#waiting.set(seq, { resolve, reject }))
    this.#child.send({ type, seq, ...params })
    return bounded(reply, ms, `${type}`)
  }

  kill () {
    this.#child.kill('SIGKILL')
  }
}

function bounded (promise, ms, what) {
  let timer
  const timeout = new Promise((resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms)
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}

/**
 * A client process (./client.mjs) alone, for a server of the caller's: call(type, params) and kill(),
 * as ./client.mjs describes.
 */
export function startClient ({ capture = 'ends' } = {}) {
  return Child.start(CLIENT, { capture }, ['--no-warnings'], 'client')
}

/** The two processes of a sample, and the function `fn(server, client)` run on them; both are killed after. */
async function withProcesses (id, { capture = 'ends', serverArgv = [] } = {}, fn) {
  const server = await Child.start(SERVE, { server: id }, ['--expose-gc', '--no-warnings', ...serverArgv], `server ${id}`)
  let client = null
  try {
    client = await startClient({ capture })
    return await fn(server, client, server.ready.port)
  } finally {
    server.kill()
    client?.kill()
  }
}

/** Resolves once the server has subscribed `n` requests (polling: servers subscribe at their own pace). */
async function subscribed (server, n, ms = 120_000) {
  const deadline = Date.now() + ms
  for (;;) {
    const { subscribers } = await server.call('count')
    if (subscribers === n) return
    if (Date.now() > deadline) throw new Error(`the server has ${subscribers} subscribers, expected ${n}, after ${ms} ms`)
    await sleep(20)
  }
}

// Connections are opened in steps, each once the server has subscribed the previous: all at once, the
// server's accept queue (listen backlog: 511) overflows behind a slow handler, and the kernel's SYN
// retries (1 s, then 3 s) would be timed as the server's.
const STEP = 250

/** Opens `n` more subscribers (`open` are open already), in steps; resolves once the server has them all. */
async function subscribe (server, client, port, n, open, group) {
  for (let done = 0; done < n; done += STEP) {
    const count = Math.min(STEP, n - done)
    await client.call('connect', { port, count, group })
    await subscribed(server, open + done + count)
  }
}

/** The events in a body: [type, lastEventId, data] each, decoded by our parser. */
export function decode (body) {
  const events = []
  const parser = new EventSourceParser({ onEvent (type, data, id) { events.push([type, id, data]) } })
  parser.write(body)
  return events
}

/**
 * Checks a client report: each reading socket's count in `counts` passes `countOk`; each captured
 * body's events (decoded) are `expected(events)` ([id, data] pairs, type "message"). Returns null or
 * what is wrong.
 */
export function checkReport (report, countOk, expected) {
  const bad = report.counts.findIndex((c) => !countOk(c))
  if (bad !== -1) return `subscriber ${bad} counted ${report.counts[bad]} events`
  if (report.captures.length === 0) return 'no body captured'
  for (const { index, body } of report.captures) {
    const got = decode(Buffer.from(body, 'base64'))
    const want = expected(got)
    const i = got.findIndex((e, k) => e[0] !== 'message' || e[1] !== want[k]?.[0] || e[2] !== want[k]?.[1])
    if (i !== -1) return `subscriber ${index}: event ${i} decoded as ${JSON.stringify(got[i]).slice(0, 200)}, expected ${JSON.stringify(want[i] ?? null).slice(0, 200)}`
    if (got.length !== want.length) return `subscriber ${index}: ${got.length} events decoded, expected ${want.length}`
  }
  return null
}

/**
 * Idle subscribers: memory per subscriber at each of `counts` (ascending; the sockets of a count stay
 * open for the next). Resolves with { before, steps: [{ count, usage, perSubscriber }], error }.
 */
export function idleSample (id, { counts, warmup = 20, capture } = {}) {
  return withProcesses(id, { capture }, async (server, client, port) => {
    // Warm-up: a few subscribers come, get an event and go (lazily loaded code and per-server state
    // are not per-subscriber costs).
    await subscribe(server, client, port, warmup, 0, 'warmup')
    await server.call('welcome')
    await client.call('expect', { events: 1 })
    await client.call('close', { group: 'warmup' })
    await subscribed(server, 0)
    await sleep(200)
    const before = (await server.call('memory')).usage
    const steps = []
    let open = 0
    for (const count of counts) {
      await subscribe(server, client, port, count - open, open, `idle-${count}`)
      open = count
      await server.call('welcome')
      await client.call('expect', { events: 1 })
      await sleep(200)
      const { usage } = await server.call('memory')
      const perSubscriber = {}
      for (const key of Object.keys(usage)) perSubscriber[key] = (usage[key] - before[key]) / count
      steps.push({ count, usage, perSubscriber })
    }
    // Every socket has its welcome (those of a smaller count, one per count since), and nothing else.
    const report = await client.call('report')
    const welcomes = (got) => got.map((e) => /^welcome-\d+$/.test(e[1]) ? [e[1], 'welcome'] : ['welcome-<n>', 'welcome'])
    const error = checkReport(report, (c) => c >= 1 && c <= counts.length, welcomes)
    return { before, steps, error }
  })
}

/**
 * Fan-out: `events` events (or those published in `seconds`, when not 0) to `subscribers`, `perTick`
 * per tick, timed after `warmup` events published the same way and received by all (the code of the
 * hot path compiled, the servers' buffers grown). Resolves with { published, deliveriesPerSecond, ms,
 * publishMs, serverCpuMs, error }.
 */
export function fanoutSample (id, { subscribers, events, perTick, seconds = 0, warmup = 20, capture } = {}) {
  return withProcesses(id, { capture }, async (server, client, port) => {
    await subscribe(server, client, port, subscribers, 0, 'fanout')
    await server.call('welcome')
    await client.call('expect', { events: 1 })
    await server.call('fanout', { first: 1, events: warmup, perTick })
    await client.call('expect', { events: 1 + warmup })
    const cpu = await server.call('cpu')
    const fanout = await server.call('fanout', { first: 1 + warmup, events, perTick, seconds })
    const { published } = fanout
    // The time the last event arrived on the last socket (the client keeps it, whether it came before
    // or after this request).
    const { at } = await client.call('expect', { events: 1 + warmup + published })
    const ms = Number(BigInt(at) - BigInt(fanout.t0)) / 1e6
    const serverCpuMs = ((await server.call('cpu')).cpuUs - cpu.cpuUs) / 1000
    const report = await client.call('report')
    const want = expectedEvents(warmup + published, FANOUT_DATA_BYTES)
    const error = checkReport(report, (c) => c === 1 + warmup + published, () => want)
    return {
      published,
      deliveriesPerSecond: published * subscribers / (ms / 1000),
      ms,
      publishMs: fanout.publishMs,
      publishCpuMs: fanout.publishCpuUs / 1000,
      serverCpuMs,
      error
    }
  })
}

/**
 * Not reading: every `every`-th subscriber stops reading after its welcome, then `events` events of
 * `bytes` are published, `perTick` per tick, a tick every `intervalMs` (a rate the others can read at:
 * a server may let go a reader that falls behind by more than it keeps), with a memory sample (after GC) before the first, after
 * every tenth of them, and once the reading subscribers have received them all (the last). Resolves
 * with { samples: [{ published, usage }], paused, dropped (subscribers the server let go), error }.
 */
export function slowSample (id, { subscribers, every, events, perTick, intervalMs = 0, bytes = SLOW_DATA_BYTES, capture } = {}) {
  return withProcesses(id, { capture }, async (server, client, port) => {
    await subscribe(server, client, port, subscribers, 0, 'slow')
    await server.call('welcome')
    await client.call('expect', { events: 1 })
    const { paused } = await client.call('pause', { every })
    const received = client.call('expect', { events: 1 + events }, 300_000)
    const { samples } = await server.call('slow', { events, perTick, bytes, intervalMs, every: Math.ceil(events / 10) }, 300_000)
    await received
    samples.push({ published: events, usage: (await server.call('memory')).usage, last: true })
    // A paused socket does not see its server close it (it reads nothing, not even the end): the
    // server's count says whether it dropped the subscribers that do not read.
    const { subscribers: left } = await server.call('count')
    const report = await client.call('report')
    const want = expectedEvents(events, bytes)
    const error = checkReport(report, (c) => c === 1 + events, () => want)
    return { samples, paused, dropped: subscribers - left, error }
  })
}
