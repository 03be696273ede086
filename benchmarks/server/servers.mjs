// The servers of the serving benchmarks (./run.mjs), each written the way its documentation shows:
// one library per server process (./serve.mjs), on node:http, on 127.0.0.1 and a port of the system's
// choosing. Every one answers GET /sse by subscribing the request, and publishes a tick's events
// (`publish(batch)`, one call per tick) to every subscriber:
//
//   bare          writeHead(200, text/event-stream), then per event one Buffer, encoded once and
//                 written to every subscriber: the memory floor, and the "one write per event" reference
//   bare-batched  the same, but the tick's events concatenated into one Buffer, written once to every
//                 subscriber: the reference for fan-out
//   better-sse    a Channel; createSession(req, res), channel.register(session), channel.broadcast()
//   hono          streamSSE(c, cb) through @hono/node-server; the callback keeps the stream in a set
//                 until it is aborted, and writeSSE() is called on each stream per event
//   fastify-sse   @fastify/sse on fastify: a route { sse: 'only' }, reply.sse.keepAlive() and
//                 sendHeaders(), and reply.sse.send() on each subscriber's context per event
//   ours          Channel from whatwg-eventsource/server (lib/entries/server.js): channel.subscribe(res)
//                 and channel.publish(event)
//
// Each library keeps its defaults (its heartbeat timers, better-sse's `retry` at connection), which
// are part of what a subscriber costs, except for the data serializer: better-sse and @fastify/sse
// default to JSON.stringify, which would quote the data; with `serializer: String` every server sends
// the same data, and the decoded events can be compared. The client counts only blocks with data, so
// heartbeats and better-sse's retry block are not counted as events.

import http from 'node:http'
import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { enginesAdmit } from '../engines.mjs'

const require = createRequire(import.meta.url)

export const SERVERS = ['bare', 'bare-batched', 'better-sse', 'hono', 'fastify-sse', 'ours']
// The libraries the targets compare ours with (the bare servers are references, not peers).
export const PEERS = ['better-sse', 'hono', 'fastify-sse']

// The package each server loads (its version goes in the label; its engines decide where it runs).
const PACKAGES = {
  'better-sse': ['better-sse'],
  hono: ['hono', '@hono/node-server'],
  'fastify-sse': ['@fastify/sse', 'fastify']
}

const OURS_ENTRY = fileURLToPath(new URL('../../lib/entries/server.js', import.meta.url))

/** A package's package.json, found above its entry (some packages do not export ./package.json). */
export function packageJson (name) {
  let dir = dirname(require.resolve(name))
  for (;;) {
    const file = join(dir, 'package.json')
    if (existsSync(file)) {
      const json = JSON.parse(readFileSync(file, 'utf8'))
      if (json.name === name) return json
    }
    const up = dirname(dir)
    if (up === dir) throw new Error(`no package.json of ${name} above ${require.resolve(name)}`)
    dir = up
  }
}

export function serverLabel (id) {
  switch (id) {
    case 'bare': return 'bare node:http, one write per event'
    case 'bare-batched': return 'bare node:http, one write per tick'
    case 'ours': return 'ours: Channel (whatwg-eventsource/server)'
    default: return PACKAGES[id].map((name) => `${name}@${packageJson(name).version}`).join(' on ')
  }
}

/**
 * The servers of `ids` that this checkout and this Node can run, and why the others are left out:
 * ours until lib/entries/server.js exists; a peer whose engines exclude this Node, unless `explicit`
 * (named on the command line).
 */
export function supportedServers (ids, explicit = false) {
  const out = { ids: [], skipped: [] }
  for (const id of ids) {
    if (!SERVERS.includes(id)) throw new Error(`unknown server ${id}: one of ${SERVERS.join(', ')}`)
    if (id === 'ours' && !existsSync(OURS_ENTRY)) {
      out.skipped.push({ id, why: 'lib/entries/server.js is not in this checkout' })
      continue
    }
    const excluded = explicit ? undefined : (PACKAGES[id] ?? []).map((name) => [name, packageJson(name).engines?.node]).find(([, range]) => !enginesAdmit(range))
    if (excluded) out.skipped.push({ id, why: `${excluded[0]} needs Node ${excluded[1]} (its engines field), this is ${process.version}` })
    else out.ids.push(id)
  }
  return out
}

const HEAD = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' }

/** An event as the bare servers write it. */
export function bareText ({ id, data }) {
  return `id: ${id}\ndata: ${data}\n\n`
}

// A node:http server on 127.0.0.1, listening; resolves with its port.
function listen (server) {
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve(server.address().port))
  })
}

// Each factory resolves with { port, subscribers(): number, publish(batch): void }.
const FACTORIES = {
  async bare () {
    const subscribers = new Set()
    const server = http.createServer((req, res) => {
      res.writeHead(200, HEAD)
      subscribers.add(res)
      res.once('close', () => subscribers.delete(res))
    })
    return {
      port: await listen(server),
      subscribers: () => subscribers.size,
      publish (batch) {
        for (const event of batch) {
          const bytes = Buffer.from(bareText(event))
          for (const res of subscribers) res.write(bytes)
        }
      }
    }
  },

  async 'bare-batched' () {
    const subscribers = new Set()
    const server = http.createServer((req, res) => {
      res.writeHead(200, HEAD)
      subscribers.add(res)
      res.once('close', () => subscribers.delete(res))
    })
    return {
      port: await listen(server),
      subscribers: () => subscribers.size,
      publish (batch) {
        let text = ''
        for (const event of batch) text += bareText(event)
        const bytes = Buffer.from(text)
        for (const res of subscribers) res.write(bytes)
      }
    }
  },

  async 'better-sse' () {
    const { createChannel, createSession } = await import('better-sse')
    const channel = createChannel()
    const server = http.createServer(async (req, res) => {
      const session = await createSession(req, res, { serializer: String })
      channel.register(session)
    })
    return {
      port: await listen(server),
      subscribers: () => channel.sessionCount,
      publish (batch) {
        for (const event of batch) channel.broadcast(event.data, 'message', { eventId: event.id })
      }
    }
  },

  async hono () {
    const { Hono } = await import('hono')
    const { streamSSE } = await import('hono/streaming')
    const { createAdaptorServer } = await import('@hono/node-server')
    const streams = new Set()
    const app = new Hono()
    app.get('/sse', (c) => streamSSE(c, async (stream) => {
      streams.add(stream)
      await new Promise((resolve) => stream.onAbort(resolve))
      streams.delete(stream)
    }))
    const server = createAdaptorServer({ fetch: app.fetch })
    return {
      port: await listen(server),
      subscribers: () => streams.size,
      publish (batch) {
        // writeSSE() catches its own write errors; its promise is not awaited, as a broadcast cannot
        // wait on each subscriber in turn.
        for (const event of batch) for (const stream of streams) stream.writeSSE(event)
      }
    }
  },

  async 'fastify-sse' () {
    const { default: Fastify } = await import('fastify')
    const { default: fastifySse } = await import('@fastify/sse')
    const contexts = new Set()
    const app = Fastify()
    await app.register(fastifySse, { serializer: String })
    app.get('/sse', { sse: 'only' }, async (request, reply) => {
      reply.sse.keepAlive()
      // Commits the response as SSE (writeHead; the head goes out with the first event): without it
      // fastify answers the handler's return with an empty 200.
      reply.sse.sendHeaders()
      const context = reply.sse
      contexts.add(context)
      context.onClose(() => contexts.delete(context))
    })
    await app.listen({ port: 0, host: '127.0.0.1' })
    const ignore = () => {}
    return {
      port: app.server.address().port,
      subscribers: () => contexts.size,
      publish (batch) {
        // send() writes synchronously (its first await comes after res.write()); not awaited, as above.
        for (const event of batch) for (const context of contexts) context.send(event).catch(ignore)
      }
    }
  },

  async ours () {
    const { Channel } = await import(OURS_ENTRY)
    const channel = new Channel()
    const server = http.createServer((req, res) => { channel.subscribe(res) })
    return {
      port: await listen(server),
      subscribers: () => channel.size,
      publish (batch) {
        for (const event of batch) channel.publish(event)
      }
    }
  }
}

/** Starts server `id` in this process: { port, subscribers(), publish(batch) }. */
export function startServer (id) {
  const factory = FACTORIES[id]
  if (factory === undefined) throw new Error(`unknown server ${id}`)
  return factory()
}
