'use strict'

// A TCP relay on 127.0.0.1: every connection to it is joined to a port that `pick()` chooses as it arrives. In
// front of several servers it is a load balancer (the Redis tests' three processes); in front of one it is the
// wire itself, whose connections a test can cut, or hold (the bytes one side sends are kept, not delivered,
// until it lets them go). Closed at teardown, with every connection.

const net = require('node:net')
const { once } = require('node:events')

/**
 * @param {import('tap').Test} t
 * @param {() => number} pick the port of the server a new connection goes to
 * @returns {Promise<{ port: number, connections: Set<object>, cut: (connection: object) => void }>}
 *   each connection: `target` (the port it went to), `holdReplies()` / `release()` (the server's bytes kept,
 *   then delivered), `replyHeld()` (resolves once some are kept), `cut()` (both sockets destroyed), `closed`
 */
async function tcpRelay (t, pick) {
  const connections = new Set()
  const server = net.createServer((client) => {
    const target = pick()
    const upstream = net.connect(target, '127.0.0.1')
    let held = null
    let onHeld = null
    let resolveClosed
    const connection = {
      target,
      client,
      upstream,
      closed: new Promise((resolve) => { resolveClosed = resolve }),
      holdReplies () { held ??= [] },
      /** Resolves once the server has sent bytes that are held (it has answered). */
      replyHeld () {
        if (held?.length > 0) return Promise.resolve()
        return new Promise((resolve) => { onHeld = resolve })
      },
      release () {
        const chunks = held ?? []
        held = null
        for (const chunk of chunks) client.write(chunk)
      },
      cut () {
        client.destroy()
        upstream.destroy()
      }
    }
    connections.add(connection)
    // What the test relays is small: written as it comes, without backpressure.
    client.on('data', (chunk) => upstream.write(chunk))
    upstream.on('data', (chunk) => {
      if (held !== null) {
        held.push(chunk)
        onHeld?.()
        onHeld = null
      } else {
        client.write(chunk)
      }
    })
    const end = () => {
      connection.cut()
      if (connections.delete(connection)) resolveClosed()
    }
    for (const socket of [client, upstream]) {
      socket.on('error', end)
      socket.on('close', end)
    }
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  t.teardown(async () => {
    for (const connection of connections) connection.cut()
    server.close()
    await once(server, 'close')
  })
  return { port: server.address().port, connections, cut: (connection) => connection.cut() }
}

module.exports = { tcpRelay }
