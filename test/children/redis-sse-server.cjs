'use strict'

// One server process of the Redis tests (test/server/redis-*.test.cjs): an HTTP server on 127.0.0.1 whose
// GET /events subscribes the client to a RedisChannel, and whose POST /publish (a JSON event as the body)
// publishes it through Redis outages, as docs/server-redis.md shows: on ERR_EVENTSOURCE_REDIS_UNAVAILABLE,
// again once the client is ready; on ERR_EVENTSOURCE_PUBLISH_UNCONFIRMED, again only if the stream does not
// have the event (each event's data is unique here). It answers { id }.
//
// Argument: JSON { url, stream, maxLength, history, retry, retryJitter }. Prints one JSON line per thing the
// test may wait for: { port } once the channel follows the stream, { failed: code } for a publish that failed
// (and will be tried again), { error: message } for what the channel reports.

const http = require('node:http')
const { once } = require('node:events')
const { createClient } = require('redis')
const { RedisChannel } = require('whatwg-eventsource/server/redis')

const options = JSON.parse(process.argv[2])
const print = (message) => process.stdout.write(`${JSON.stringify(message)}\n`)

async function main () {
  const client = createClient({ url: options.url })
  // node-redis emits 'error' at every lost connection (and reconnects); the channel reports its own.
  client.on('error', () => {})
  await client.connect()
  const channel = new RedisChannel({
    client,
    stream: options.stream,
    maxLength: options.maxLength,
    history: options.history,
    retry: options.retry,
    retryJitter: options.retryJitter,
    heartbeat: 0,
    onError: (error) => print({ error: `${error.code ?? error.name}: ${error.message}` })
  })

  // Not events.once(), which rejects at the first 'error' the client emits while it reconnects.
  const ready = () => client.isReady ? undefined : new Promise((resolve) => client.once('ready', resolve))

  // In the stream already? Looked for among its newest entries, the only ones an unconfirmed XADD can be.
  const appended = async (data) => {
    const newest = await client.xRevRange(options.stream, '+', '-', { COUNT: 100 })
    return newest.find((entry) => entry.message.data === data)?.id
  }

  async function publish (event) {
    for (;;) {
      try {
        return await channel.publish(event)
      } catch (error) {
        if (error.code !== 'ERR_EVENTSOURCE_REDIS_UNAVAILABLE' && error.code !== 'ERR_EVENTSOURCE_PUBLISH_UNCONFIRMED') {
          throw error
        }
        print({ failed: error.code })
        await ready()
        if (error.code === 'ERR_EVENTSOURCE_PUBLISH_UNCONFIRMED') {
          const id = await appended(event.data)
          if (id !== undefined) return id
        }
      }
    }
  }

  const server = http.createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/events') {
      channel.subscribe(res)
      return
    }
    if (req.method === 'POST' && req.url === '/publish') {
      let body = ''
      req.setEncoding('utf8')
      req.on('data', (chunk) => { body += chunk })
      req.on('end', () => {
        publish(JSON.parse(body)).then((id) => {
          res.end(JSON.stringify({ id }))
        }, (error) => {
          res.statusCode = 500
          res.end(JSON.stringify({ error: error.message }))
        })
      })
      return
    }
    res.statusCode = 404
    res.end()
  })
  // SIGTERM: a clean exit (which writes the coverage of this process, when it is measured). The end of stdin,
  // a pipe from the test: the test process is gone (tap killed it past its timeout), so this one goes too.
  let closing = false
  const shutdown = () => {
    if (closing) return
    closing = true
    server.closeAllConnections()
    server.close()
    Promise.all([channel.close(), client.close()]).then(() => process.exit(0))
  }
  process.once('SIGTERM', shutdown)
  process.stdin.once('end', shutdown).resume()
  await channel.ready
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  print({ port: server.address().port })
}

main().catch((error) => {
  print({ error: error.stack })
  process.exitCode = 1
})
