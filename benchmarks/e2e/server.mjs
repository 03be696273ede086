// The event-stream server of the whole-client benchmarks: its own process (forked by a runner), so its
// CPU time is not the client's. It tells its parent its ports over IPC: one for cleartext HTTP/1.1, one
// for HTTP/1.1 over TLS (node:https) and one for HTTP/2 over TLS (node:http2, which also answers
// HTTP/1.1 to a client that does not offer h2), all with the same handler and the tests' certificate.
//
//   GET /stream?kind=small|large&n=N  N events, written as fast as the socket takes them (each write()
//                                     a 64 KiB slice of the prebuilt stream, the next one on 'drain'),
//                                     then the response ends
//   GET /idle?i=I                     the headers and one event (id: I, data: "idle I"), then nothing
//                                     until the client goes away
//
// Streams are built once per (kind, n) and kept: the server spends its time writing, not formatting.
// Slices are cut every 64 KiB whatever the event boundaries, so clients see events split over chunks.

import http from 'node:http'
import https from 'node:https'
import http2 from 'node:http2'
import { streamBytes, idleEventText } from './workloads.mjs'
import { tlsFixture } from './clients.mjs'

const WRITE_SIZE = 64 * 1024
const HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' }

const streams = new Map()
function stream (kind, n) {
  const key = `${kind}:${n}`
  let bytes = streams.get(key)
  if (bytes === undefined) {
    bytes = streamBytes(kind, n)
    streams.set(key, bytes)
  }
  return bytes
}

let idleOpen = 0

function handle (req, res) {
  const url = new URL(req.url, 'http://localhost')
  if (url.pathname === '/stream') {
    const kind = url.searchParams.get('kind')
    const n = Number(url.searchParams.get('n'))
    if ((kind !== 'small' && kind !== 'large') || !(n > 0)) {
      res.writeHead(400).end()
      return
    }
    const bytes = stream(kind, n)
    res.writeHead(200, HEADERS)
    let offset = 0
    const pump = () => {
      while (offset < bytes.length) {
        const end = Math.min(offset + WRITE_SIZE, bytes.length)
        const more = res.write(bytes.subarray(offset, end))
        offset = end
        if (!more) {
          res.once('drain', pump)
          return
        }
      }
      res.end()
    }
    // A client that goes away early (they close at the last event) stops the pump.
    res.on('close', () => { offset = bytes.length })
    pump()
    return
  }
  if (url.pathname === '/idle') {
    res.writeHead(200, HEADERS)
    res.write(idleEventText(url.searchParams.get('i') ?? ''))
    idleOpen++
    res.on('close', () => { idleOpen-- })
    return
  }
  res.writeHead(404).end()
}

const server = http.createServer(handle)
const tls = tlsFixture()
const tlsServer = https.createServer(tls, handle)
// Sessions of thousands of streams (undici's one-session Agent puts every source on one): Node's
// default of 10 MB per session would refuse streams long before.
const h2Server = http2.createSecureServer({ ...tls, allowHTTP1: true, maxSessionMemory: 1024 }, handle)
h2Server.on('session', (session) => session.on('error', () => {}))

// No timeouts: idle connections stay as long as their clients want them.
for (const s of [server, tlsServer]) {
  s.requestTimeout = 0
  s.headersTimeout = 0
  s.keepAliveTimeout = 0
  s.timeout = 0
}
h2Server.setTimeout(0)

process.on('message', (message) => {
  if (message?.type === 'prepare') {
    // Build a stream ahead of its first request, so the first client does not wait for it.
    stream(message.kind, message.n)
    process.send({ type: 'prepared', kind: message.kind, n: message.n })
  } else if (message?.type === 'stats') {
    process.send({ type: 'stats', idleOpen, cpu: process.cpuUsage() })
  } else if (message?.type === 'exit') {
    process.exit(0)
  }
})
process.on('disconnect', () => process.exit(0))

// The accept queue must hold a burst of thousands of connects (the kernel caps it at somaxconn).
const listening = [server, tlsServer, h2Server].map((s) => new Promise((resolve) => {
  s.listen({ host: '127.0.0.1', port: 0, backlog: 65535 }, () => resolve(s.address().port))
}))
Promise.all(listening).then(([port, tlsPort, h2Port]) => {
  process.send({ type: 'listening', port, tlsPort, h2Port })
})
