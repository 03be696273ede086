// A server process of the Redis benchmark (./run.mjs): a Channel of whatwg-eventsource/server (mode
// 'channel', one process) or a RedisChannel on a shared stream (mode 'redis', one of three) behind node:http;
// GET / subscribes. Driven over IPC: { publish: count, perTick, everyMs } publishes `count` events of 60 bytes
// of data, each holding the time it was published (performance.timeOrigin + now(), comparable across
// processes), `perTick` at once, then the next ones `everyMs` later (0: in the next macrotask); it answers
// { published, firstAt } once all are.

import http from 'node:http'
import { once } from 'node:events'
import { setTimeout as delay } from 'node:timers/promises'
import { Channel } from 'whatwg-eventsource/server'
import { RedisChannel } from 'whatwg-eventsource/server/redis'

const { mode, url, stream } = JSON.parse(process.argv[2])
const channel = mode === 'redis'
  ? new RedisChannel({ url, stream, maxLength: 100_000, heartbeat: 0, retryJitter: 0 })
  : new Channel({ heartbeat: 0 })
const now = () => performance.timeOrigin + performance.now()
// 60 bytes of data: the time, then padding.
const dataAt = (time) => `${time.toFixed(3)};`.padEnd(60, '.')

const server = http.createServer((req, res) => channel.subscribe(res))
server.maxConnections = 20_000
server.listen(0, '127.0.0.1')
await Promise.all([once(server, 'listening'), channel.ready])

process.on('message', async ({ publish: count, perTick, everyMs }) => {
  const firstAt = now()
  for (let sent = 0; sent < count; sent += perTick) {
    const batch = []
    for (let i = 0; i < perTick && sent + i < count; i++) batch.push(channel.publish({ data: dataAt(now()) }))
    await Promise.all(batch)
    await (everyMs === 0 ? new Promise(setImmediate) : delay(everyMs))
  }
  process.send({ published: count, firstAt })
})
process.send({ port: server.address().port })
