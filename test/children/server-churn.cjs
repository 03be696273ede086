'use strict'

// A child process for test/server/server-hostile.test.cjs, run with --expose-gc: a node:http server whose every
// request subscribes to one Channel (whatwg-eventsource/server), and in the same process `cycles` raw clients,
// `concurrency` at a time, that connect, send a request and leave, each its own way: at once (before the head),
// after the head (destroyed or reset), after the events the channel writes at once; a third of them resume with
// a Last-Event-ID the channel has, a few with one it does not know (the gap). An event is published every five
// connections. heapUsed after GC is sampled once the first `warm` cycles are over and once all are, each time
// when every connection is gone; then the channel's size, whether its heartbeat timer was cleared, and the
// sockets still open are reported. Prints one JSON line.
//
//   node --expose-gc test/children/server-churn.cjs <cycles> <warm> <concurrency>

const http = require('node:http')
const net = require('node:net')
const asyncHooks = require('node:async_hooks')
const { Channel } = require('../../lib/entries/server.js')

const [cycles, warm, concurrency] = process.argv.slice(2).map(Number)
// The heartbeat's interval, known among Node's timers: the newest heartbeat timer is kept to see it cleared.
const HEARTBEAT = 987_654
const heartbeat = { created: 0, newest: null }
asyncHooks.createHook({
  init (id, type, trigger, resource) {
    if (type === 'Timeout' && resource._repeat === HEARTBEAT) {
      heartbeat.created++
      heartbeat.newest = resource
    }
  }
}).enable()

const turn = () => new Promise((resolve) => setImmediate(resolve))

function heapAfterGc () {
  global.gc()
  global.gc()
  return process.memoryUsage().heapUsed
}

const WAYS = ['at once', 'after the head', 'reset after the head', 'after the events']

async function main () {
  const channel = new Channel({ heartbeat: HEARTBEAT, history: 100 })
  const server = http.createServer((req, res) => channel.subscribe(res))
  server.listen(0, '127.0.0.1')
  await new Promise((resolve) => server.once('listening', resolve))
  const { port } = server.address()
  const ids = []
  const report = { cycles: 0, ways: Object.fromEntries(WAYS.map((way) => [way, 0])), samples: [], published: 0 }

  // One client: connects, asks, leaves its way; resolves once its socket is closed.
  function client (n) {
    return new Promise((resolve) => {
      const way = WAYS[n % WAYS.length]
      report.ways[way]++
      const socket = net.connect(port, '127.0.0.1')
      socket.on('error', () => {})
      socket.once('close', resolve)
      // A few events back: the channel writes them at once.
      const id = n % 3 === 0 ? ids.at(-5) ?? '' : n % 17 === 0 ? `unknown-${n}` : ''
      socket.write(`GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\n${id === '' ? '' : `Last-Event-ID: ${id}\r\n`}\r\n`)
      if (way === 'at once') {
        socket.destroy()
        return
      }
      let received = ''
      socket.on('data', (chunk) => {
        received += chunk.toString('latin1')
        if (!received.includes('\r\n\r\n')) return
        if (way === 'after the head') socket.destroy()
        else if (way === 'reset after the head') socket.resetAndDestroy()
        else if (id === '' || received.includes('\n\n\r\n')) socket.destroy()
      })
    })
  }

  async function run (from, to) {
    let next = from
    const worker = async () => {
      while (next < to) {
        const n = next++
        if (n % 5 === 0) {
          ids.push(channel.publish({ data: `event ${n}` }))
          if (ids.length > 10) ids.shift()
          report.published++
        }
        await client(n)
        report.cycles++
      }
    }
    await Promise.all(Array.from({ length: concurrency }, worker))
    // Every connection gone on the server's side too, and every subscriber.
    for (let i = 0; channel.size > 0 || await connections(server) > 0; i++) {
      if (i > 10_000) throw new Error(`connections left: ${await connections(server)}, subscribers ${channel.size}`)
      await turn()
    }
  }

  await run(0, warm)
  report.samples.push({ cycle: warm, heapUsed: heapAfterGc() })
  await run(warm, cycles)
  report.samples.push({ cycle: cycles, heapUsed: heapAfterGc() })
  report.size = channel.size
  report.heartbeatTimers = heartbeat.created
  report.heartbeatCleared = heartbeat.newest?._destroyed ?? null
  report.sockets = process.getActiveResourcesInfo().filter((type) => type === 'TCPSocketWrap').length
  channel.close()
  server.close()
  console.log(JSON.stringify(report))
}

const connections = (server) => new Promise((resolve, reject) => server.getConnections((err, n) => err ? reject(err) : resolve(n)))

main().catch((err) => {
  console.log(JSON.stringify({ error: String(err.stack) }))
  process.exitCode = 1
})
