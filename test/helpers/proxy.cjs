'use strict'

// An HTTP proxy on 127.0.0.1, port 0, as undici's ProxyAgent and EnvHttpProxyAgent speak to one:
// CONNECT tunnels (net.connect to the target, bytes piped both ways) and absolute-form requests
// (forwarded with node:http). It records what it was asked for and the local port of every
// connection it opened to a target, so a test can tell that a request the server received came
// through it.

const http = require('node:http')
const net = require('node:net')
const { listen } = require('./server.cjs')

const HOP_BY_HOP = ['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'upgrade']

function withoutHopByHop (headers) {
  const copy = { ...headers }
  for (const name of HOP_BY_HOP) delete copy[name]
  return copy
}

/**
 * @param {import('tap').Test} t closes the proxy and every connection through it at teardown
 * @returns {Promise<{ url: string, seen: Array<{ method: string, target: string, headers: object }>, upstreamPorts: Set<number> }>}
 */
async function proxyServer (t) {
  const seen = []
  const upstreamPorts = new Set()
  // The connections to targets; listen() tracks those from clients.
  const upstreams = new Set()
  const track = (socket) => {
    upstreams.add(socket)
    socket.once('close', () => upstreams.delete(socket))
  }

  const server = http.createServer((req, res) => {
    seen.push({ method: req.method, target: req.url, headers: req.headers })
    const upstream = http.request(req.url, { method: req.method, headers: withoutHopByHop(req.headers), agent: false }, (response) => {
      res.writeHead(response.statusCode, withoutHopByHop(response.headers))
      response.pipe(res)
    })
    upstream.once('socket', (socket) => {
      track(socket)
      socket.once('connect', () => upstreamPorts.add(socket.localPort))
    })
    upstream.on('error', () => res.destroy())
    res.once('close', () => upstream.destroy())
    req.pipe(upstream)
  })

  server.on('connect', (req, clientSocket, head) => {
    seen.push({ method: req.method, target: req.url, headers: req.headers })
    const { hostname, port } = new URL(`http://${req.url}`)
    const upstream = net.connect(Number(port), hostname, () => {
      upstreamPorts.add(upstream.localPort)
      clientSocket.write('HTTP/1.1 200 Connection Established\r\n\r\n')
      if (head.length > 0) upstream.write(head)
      upstream.pipe(clientSocket)
      clientSocket.pipe(upstream)
    })
    track(upstream)
    const destroyBoth = () => {
      upstream.destroy()
      clientSocket.destroy()
    }
    for (const socket of [upstream, clientSocket]) {
      socket.on('error', destroyBoth)
      socket.once('close', destroyBoth)
    }
  })

  const listening = await listen(t, server)
  // Runs before listen()'s teardown (tap runs teardowns last-added first).
  t.teardown(() => { for (const socket of upstreams) socket.destroy() })
  return { url: `http://127.0.0.1:${listening.port}`, seen, upstreamPorts }
}

module.exports = { proxyServer }
