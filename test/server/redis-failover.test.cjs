'use strict'

// whatwg-eventsource/server/redis across processes (issue 50): three server processes, each a RedisChannel on the
// same stream behind one load balancer, subscribers spread over them, a publisher on one. One process is killed
// mid-stream, then Redis itself (SIGKILL, an append-only file fsync'd at every write) and started again: the
// killed process's subscribers come back through the others, those that stayed connected get nothing twice, and
// every subscriber ends with every event exactly once, in order.

const t = require('tap')
const { onceBounded } = require('../helpers/wait.cjs')
const { redisMissing } = require('../helpers/redis.cjs')
const { redisDeployment } = require('../helpers/redis-processes.cjs')

const SUBSCRIBERS = 30
const EVENTS = 300

if (redisMissing()) {
  t.plan(0, redisMissing())
} else {
  t.test('a process killed and Redis restarted mid-stream: every event once, in order, everywhere', async (t) => {
    const deployment = await redisDeployment(t, { persist: true })
    const { servers, balancer, subscribe, publish, kill, checkEvery, redis } = deployment

    const subscribers = []
    for (let i = 0; i < SUBSCRIBERS; i++) subscribers.push(subscribe())
    const published = []
    const publishNext = async () => {
      const data = `event ${published.length + 1}`
      published.push({ id: await publish(data), data })
      return data
    }
    // Open: subscribed (a process subscribes a client as its request arrives, and answers at once).
    await Promise.all(subscribers.map(({ source }) => onceBounded(source, 'open')))
    const spread = servers.map((server) => [...balancer.connections].filter((c) => c.target === server.port).length)
    t.same(spread, [10, 10, 10], 'the load balancer spread the subscribers over the three processes')

    // A third of the stream, then process 1 dies (SIGKILL): its subscribers reconnect to 0 and 2.
    while (published.length < EVENTS / 3) await publishNext()
    await kill(1)
    const beforeRedis = 2 * EVENTS / 3
    while (published.length < beforeRedis) await publishNext()
    t.notOk([...balancer.connections].some((c) => c.target === servers[1].port), 'nothing goes to process 1')

    // Redis crashes: the next publish fails (nothing sent, or no answer), and is made again once Redis is back.
    await redis.stop('SIGKILL')
    const during = publishNext()
    await servers[0].child.waitFor('stdout', /"failed":"ERR_EVENTSOURCE_(REDIS_UNAVAILABLE|PUBLISH_UNCONFIRMED)"/)
    await redis.start()
    await during
    for (const server of [servers[0], servers[2]]) {
      // Each process's reader lost its connection, and read again from where it was once Redis was back.
      await server.child.waitFor('stdout', /"error":"[^"]*(Socket closed unexpectedly|ECONNREFUSED)/)
    }
    while (published.length < EVENTS) await publishNext()

    const last = published.at(-1).data
    await Promise.all(subscribers.map((subscriber) => subscriber.until(last, 20_000)))
    checkEvery(t, subscribers, published)
    const ids = published.map(({ id }) => id)
    t.same(ids, [...new Set(ids)], 'every event has its own entry ID')
  })
}
