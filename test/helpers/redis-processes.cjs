'use strict'

// The Redis tests' deployment: a redis-server, server processes (test/children/redis-sse-server.cjs, each a
// RedisChannel on the same stream behind an HTTP server) and a load balancer in front of them (a TCP relay
// that sends each new connection to the next process alive, round robin). Subscribers are this package's
// EventSource on the load balancer's URL: when their connection is cut or their process dies, they reconnect
// through it to a process alive, with their Last-Event-ID, as a browser behind a real load balancer would.
// Events are published through one process (POST /publish), and every subscriber must end with every event
// exactly once, in order (`checkEvery`).

const path = require('node:path')
const { EventSource } = require('../..')
const { redisServer } = require('./redis.cjs')
const { tcpRelay } = require('./relay.cjs')
const { runChild } = require('./child.cjs')
const { bounded } = require('./wait.cjs')

const CHILD = path.join(__dirname, '..', 'children', 'redis-sse-server.cjs')
const root = path.join(__dirname, '..', '..')

/**
 * @param {import('tap').Test} t
 * @param {{ processes?: number, history?: number, maxLength?: number, retry?: number, retryJitter?: number,
 *   persist?: boolean }} [options] history: each process's local history (small, so that clients that come
 *   back late are resumed from the stream); retry, retryJitter: the subscribers' reconnection times
 */
async function redisDeployment (t, {
  processes = 3, history = 20, maxLength = 100_000, retry = 20, retryJitter = 60, persist = false
} = {}) {
  const redis = await redisServer(t, { persist })
  const stream = `events-${process.pid}`
  const config = JSON.stringify({ url: redis.url, stream, maxLength, history, retry, retryJitter })
  const servers = []
  for (let i = 0; i < processes; i++) {
    const child = runChild(t, [CHILD, config], { cwd: root, isolate: true, stdin: 'pipe' })
    servers.push({ child, alive: true, port: 0, index: i })
  }
  // Stopped with SIGTERM at teardown, before runChild's SIGKILL: a child that exits on its own writes its coverage.
  t.teardown(() => Promise.all(servers.filter(({ child }) => child.alive()).map(({ child }) => {
    child.child.kill('SIGTERM')
    return child.exited()
  })))
  for (const server of servers) {
    const [, port] = await server.child.whileAlive(server.child.waitFor('stdout', /\{"port":(\d+)\}/, 20_000))
    server.port = Number(port)
  }

  // Round robin over the processes alive.
  let turn = 0
  const balancer = await tcpRelay(t, () => {
    const alive = servers.filter((server) => server.alive)
    return alive[turn++ % alive.length].port
  })
  const url = `http://127.0.0.1:${balancer.port}/events`

  /** A subscriber: an EventSource through the load balancer, recording every message. */
  function subscribe () {
    const source = new EventSource(url)
    t.teardown(() => source.close())
    const received = []
    const waiters = []
    source.onmessage = (event) => {
      received.push({ id: event.lastEventId, data: event.data })
      for (let i = waiters.length - 1; i >= 0; i--) {
        if (waiters[i].done()) waiters.splice(i, 1)[0].resolve()
      }
    }
    source.addEventListener('gap', () => received.push({ gap: true }))
    return {
      source,
      received,
      /** Resolves once the subscriber has a message with this data. */
      until (data, ms) {
        const done = () => received.some((message) => message.data === data)
        if (done()) return Promise.resolve()
        return bounded(new Promise((resolve) => waiters.push({ done, resolve })),
          () => `a subscriber to receive "${data}" (it has ${received.length} messages, the last ` +
            `${JSON.stringify(received.at(-1))})`, ms)
      }
    }
  }

  /** Publishes through process `index`; resolves with the entry ID. */
  async function publish (data, index = 0) {
    const response = await fetch(`http://127.0.0.1:${servers[index].port}/publish`, {
      method: 'POST', body: JSON.stringify({ data })
    })
    const body = await response.json()
    if (response.status !== 200) throw new Error(`publish ${data}: ${body.error}`)
    return body.id
  }

  /** Kills process `index` (SIGKILL): the load balancer sends no new connection there. */
  async function kill (index) {
    const server = servers[index]
    server.alive = false
    server.child.child.kill('SIGKILL')
    await server.child.exited()
  }

  /**
   * Every subscriber has every event published, exactly once, in order, and no gap event; ids are the entry
   * IDs publish() resolved with.
   */
  function checkEvery (t, subscribers, published) {
    const expected = published.map(({ id, data }) => ({ id, data }))
    let exact = 0
    for (const [i, subscriber] of subscribers.entries()) {
      const same = JSON.stringify(subscriber.received) === JSON.stringify(expected)
      if (same) exact++
      else t.same(subscriber.received, expected, `subscriber ${i}: every event once, in order`)
    }
    t.equal(exact, subscribers.length, `${exact} of ${subscribers.length} subscribers have every one of the ` +
      `${published.length} events exactly once, in order`)
  }

  return { redis, stream, servers, balancer, url, subscribe, publish, kill, checkEvery }
}

module.exports = { redisDeployment }
