'use strict'

// whatwg-eventsource/server/redis under 200 random cuts (issue 50): three server processes on one stream behind a
// load balancer, subscribers spread over them, a publisher on one. The load balancer cuts subscribers'
// connections at random (seeded PRNG: REDIS_CUTS_SEED replays a run) while events are published; each subscriber
// reconnects to whichever process the balancer picks, with its Last-Event-ID, and is resumed from that process's
// history, from the stream when it came back later than the small history reaches, or after that process has
// caught up with the one it left. Every subscriber ends with every event exactly once, in order.

const t = require('tap')
const { onceBounded } = require('../helpers/wait.cjs')
const { prng } = require('../helpers/prng.cjs')
const { redisMissing } = require('../helpers/redis.cjs')
const { redisDeployment } = require('../helpers/redis-processes.cjs')

const SUBSCRIBERS = 24
const EVENTS = 400
const CUTS = 200
const SEED = Number(process.env.REDIS_CUTS_SEED ?? 0x5ed15)

if (redisMissing()) {
  t.plan(0, redisMissing())
} else {
  t.test(`${CUTS} cuts of subscribers' connections: every event once, in order (seed ${SEED})`, async (t) => {
    const random = prng(SEED)
    // A history of 5 events: a subscriber that comes back more than 5 events later is resumed from the stream.
    const { balancer, subscribe, publish, checkEvery } = await redisDeployment(t, { history: 5 })
    const subscribers = []
    for (let i = 0; i < SUBSCRIBERS; i++) subscribers.push(subscribe())
    await Promise.all(subscribers.map(({ source }) => onceBounded(source, 'open')))

    // The events after which connections are cut: CUTS of them, drawn among the first 90 % of the stream.
    const cutsAfter = new Array(EVENTS).fill(0)
    for (let i = 0; i < CUTS; i++) cutsAfter[random.int(Math.floor(EVENTS * 0.9))]++
    const published = []
    let cuts = 0
    for (let n = 0; n < EVENTS; n++) {
      const data = `event ${n + 1}`
      // Published by the first process, whose subscribers are cut like the others'.
      published.push({ id: await publish(data), data })
      for (let k = cutsAfter[n]; k > 0; k--) {
        const open = [...balancer.connections]
        if (open.length === 0) break
        random.pick(open).cut()
        cuts++
      }
    }
    t.ok(cuts >= CUTS * 0.9, `${cuts} connections cut`)

    const last = published.at(-1).data
    await Promise.all(subscribers.map((subscriber) => subscriber.until(last, 20_000)))
    checkEvery(t, subscribers, published)
  })
}
