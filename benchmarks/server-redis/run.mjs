// The Redis backplane's benchmark (issue 50): publish-to-delivery latency (p50, p99) and deliveries per second
// with 3,000 subscribers, on three processes sharing a RedisChannel against one process with a Channel, on this
// machine; and the Redis memory an event of the stream takes. Results: results/server-redis-<node>.json.
//
//   node benchmarks/server-redis/run.mjs [--subscribers 3000] [--latency-events 200] [--every-ms 25]
//                                        [--burst-events 1000] [--rounds 3]
//
// Needs redis-server (it starts its own on a free port, nothing on disk). The subscribers are raw sockets in one
// client process (./clients.mjs); the publisher is the first server process (./server.mjs). Latency: one event
// every 25 ms (120,000 deliveries/s, under what either set-up can do here); throughput: events 20 at a time, the next 20 in the next macrotask, deliveries/s from the first
// publish to the last subscriber's last event. Everything runs on this machine at once (servers, Redis, the
// clients): the figures compare the two set-ups under the same load, not what separate machines would do. The
// set-ups alternate, --rounds times each; a figure is the median of its rounds.

import { fork, spawn } from 'node:child_process'
import { once } from 'node:events'
import fs from 'node:fs'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { createClient } from 'redis'

const here = path.dirname(new URL(import.meta.url).pathname)
const { values } = parseArgs({
  options: {
    subscribers: { type: 'string', default: '3000' },
    'latency-events': { type: 'string', default: '200' },
    'every-ms': { type: 'string', default: '25' },
    'burst-events': { type: 'string', default: '1000' },
    rounds: { type: 'string', default: '3' }
  }
})
const ROUNDS = Number(values.rounds)
const SUBSCRIBERS = Number(values.subscribers)
const LATENCY_EVENTS = Number(values['latency-events'])
const EVERY_MS = Number(values['every-ms'])
const BURST_EVENTS = Number(values['burst-events'])

async function freePort () {
  const probe = http.createServer().listen(0, '127.0.0.1')
  await once(probe, 'listening')
  const { port } = probe.address()
  probe.close()
  return port
}

async function startRedis () {
  const port = await freePort()
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'])
  let log = ''
  await new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk) => { if ((log += chunk).includes('Ready to accept connections')) resolve() })
    child.on('exit', () => reject(new Error(`redis-server exited:\n${log}`)))
  })
  return { url: `redis://127.0.0.1:${port}`, child }
}

// The next IPC message of `child` that has `key`.
function message (child, key) {
  return new Promise((resolve, reject) => {
    const onMessage = (m) => {
      if (!(key in m)) return
      child.off('message', onMessage)
      resolve(m)
    }
    child.on('message', onMessage)
    child.once('exit', (code) => reject(new Error(`a child exited (${code}) before sending ${key}`)))
  })
}

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]

async function measure (mode, redis) {
  const count = mode === 'redis' ? 3 : 1
  const stream = `bench-${Date.now()}`
  const servers = []
  for (let i = 0; i < count; i++) {
    servers.push(fork(path.join(here, 'server.mjs'), [JSON.stringify({ mode, url: redis.url, stream })]))
  }
  const ports = (await Promise.all(servers.map((server) => message(server, 'port')))).map(({ port }) => port)
  const clients = fork(path.join(here, 'clients.mjs'), [JSON.stringify({ ports, subscribers: SUBSCRIBERS })])
  await message(clients, 'opened')
  const [publisher] = servers

  const run = async (events, perTick, everyMs) => {
    clients.send({ expect: events })
    const delivered = message(clients, 'latencies')
    publisher.send({ publish: events, perTick, everyMs })
    const { firstAt } = await message(publisher, 'published')
    const { latencies, lastAt, deliveries } = await delivered
    return { latencies, seconds: (lastAt - firstAt) / 1000, deliveries }
  }
  // A warm-up, then the two measures.
  await run(100, 20, 0)
  const paced = await run(LATENCY_EVENTS, 1, EVERY_MS)
  const burst = await run(BURST_EVENTS, 20, 0)
  for (const child of [clients, ...servers]) child.kill()
  const round = (ms) => Math.round(ms * 100) / 100
  return {
    processes: count,
    subscribers: SUBSCRIBERS,
    latency: {
      events: LATENCY_EVENTS,
      everyMs: EVERY_MS,
      deliveries: paced.deliveries,
      p50Ms: round(quantile(paced.latencies, 0.5)),
      p99Ms: round(quantile(paced.latencies, 0.99)),
      maxMs: round(paced.latencies.at(-1))
    },
    throughput: {
      events: BURST_EVENTS,
      deliveries: burst.deliveries,
      seconds: round(burst.seconds),
      deliveriesPerSecond: Math.round(burst.deliveries / burst.seconds),
      p50Ms: round(quantile(burst.latencies, 0.5)),
      p99Ms: round(quantile(burst.latencies, 0.99))
    }
  }
}

// The two set-ups one after the other, ROUNDS times (A, B, A, B...), so that a change of the machine's load hits
// both alike; each figure is the median of the rounds, with every round's figures beside it.
async function interleaved (redis) {
  const rounds = { channel: [], redis3: [] }
  for (let i = 0; i < ROUNDS; i++) {
    rounds.channel.push(await measure('channel', redis))
    rounds.redis3.push(await measure('redis', redis))
  }
  const median = (values) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]
  const summary = (runs) => {
    const pick = (part) => Object.fromEntries(Object.keys(runs[0][part]).map((key) =>
      [key, median(runs.map((run) => run[part][key]))]))
    return {
      processes: runs[0].processes,
      subscribers: runs[0].subscribers,
      latency: pick('latency'),
      throughput: pick('throughput'),
      rounds: runs
    }
  }
  return { rounds: ROUNDS, channel: summary(rounds.channel), redis3: summary(rounds.redis3) }
}

// Redis memory per entry: used_memory before and after 100,000 XADDs (pipelined), and MEMORY USAGE of the key.
async function redisMemory (redis, dataBytes) {
  const client = createClient({ url: redis.url })
  await client.connect()
  const key = `memory-${dataBytes}`
  const usedMemory = async () => Number(/used_memory:(\d+)/.exec(await client.info('memory'))[1])
  const before = await usedMemory()
  const entries = 100_000
  const padding = 'x'.repeat(dataBytes - 6)
  for (let i = 0; i < entries; i += 1000) {
    const batch = []
    for (let j = i; j < i + 1000; j++) batch.push(client.xAdd(key, '*', { data: `${String(j).padStart(6, '0')}${padding}` }))
    await Promise.all(batch)
  }
  const after = await usedMemory()
  const usage = await client.memoryUsage(key, { SAMPLES: 0 })
  await client.del(key)
  await client.close()
  return {
    dataBytes,
    entries,
    usedMemoryPerEntry: Math.round((after - before) / entries * 10) / 10,
    memoryUsagePerEntry: Math.round(usage / entries * 10) / 10
  }
}

const redis = await startRedis()
try {
  const results = {
    node: process.version,
    machine: `${os.cpus()[0].model}, ${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB`,
    loadAverage: os.loadavg().map((load) => Math.round(load * 100) / 100),
    redis: (await new Promise((resolve) => {
      const version = spawn('redis-server', ['--version'])
      let text = ''
      version.stdout.on('data', (chunk) => { text += chunk })
      version.on('exit', () => resolve(/v=(\S+)/.exec(text)?.[1] ?? text.trim()))
    })),
    command: `node benchmarks/server-redis/run.mjs --subscribers ${SUBSCRIBERS} --latency-events ${LATENCY_EVENTS} ` +
      `--every-ms ${EVERY_MS} --burst-events ${BURST_EVENTS} --rounds ${ROUNDS}`,
    ...await interleaved(redis),
    memory: [await redisMemory(redis, 60), await redisMemory(redis, 600)]
  }
  const file = path.join(here, '..', 'results', `server-redis-${process.version}.json`)
  fs.writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`)
  console.log(JSON.stringify(results, null, 2))
  console.log(`written to ${path.relative(process.cwd(), file)}`)
} finally {
  redis.child.kill()
}
