// The encoders of the encoding benchmark (./encode.bench.mjs): what each server turns one event into
// before it is written, reached the way its package lets a user reach it. Each setup resolves with
// `encode(event)`, which returns (or resolves with, for hono) what the library would write: a string
// or bytes. The same serializer options as the servers of ./servers.mjs (`serializer: String`).
//
//   bare         what the bare servers write: their template literal (./servers.mjs bareText) as a Buffer
//   better-sse   its exported EventBuffer: push(data, 'message', id), read(), clear(), as a Session
//                does for every push
//   fastify-sse  the transform of reply.sse.stream() (its documented formatting path: the formatting
//                function itself is not exported), called as the stream calls it; the reply comes from
//                fastify.inject() on a route of the plugin
//   hono         SSEStreamingApi#writeSSE (exported from hono/streaming) onto a WritableStream that
//                keeps the last chunk: its formatting and TextEncoder, as streamSSE runs them
//   ours         formatEvent (a string), encodeEvent (bytes), encodeEvents on 20 events (bytes, per
//                event), from whatwg-eventsource/server

import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { bareText } from './servers.mjs'

const OURS_ENTRY = fileURLToPath(new URL('../../lib/entries/server.js', import.meta.url))

// How many events ours' batch encoder takes per call.
export const BATCH = 20

export const ENCODERS = {
  bare: {
    label: 'bare: template literal, Buffer.from()',
    setup: async () => (event) => Buffer.from(bareText(event))
  },
  'better-sse': {
    label: 'better-sse: EventBuffer push(), read(), clear()',
    async setup () {
      const { createEventBuffer } = await import('better-sse')
      const buffer = createEventBuffer({ serializer: String })
      return (event) => {
        buffer.push(event.data, 'message', event.id)
        const text = buffer.read()
        buffer.clear()
        return text
      }
    }
  },
  'fastify-sse': {
    label: '@fastify/sse: the reply.sse.stream() transform',
    async setup () {
      const { default: Fastify } = await import('fastify')
      const { default: fastifySse } = await import('@fastify/sse')
      const app = Fastify()
      await app.register(fastifySse, { serializer: String })
      let transform = null
      app.get('/sse', { sse: 'manual' }, async (request, reply) => {
        transform = reply.sse.stream()
        return 'ok'
      })
      await app.inject({ method: 'GET', url: '/sse' })
      await app.close()
      // The transform's own function, as its stream calls it for every chunk written.
      const format = transform._transform
      let out = null
      const done = (err, text) => {
        if (err) throw err
        out = text
      }
      return (event) => {
        format.call(transform, event, 'utf8', done)
        return out
      }
    }
  },
  hono: {
    label: 'hono: SSEStreamingApi#writeSSE',
    async setup () {
      const { SSEStreamingApi } = await import('hono/streaming')
      let last = null
      const api = new SSEStreamingApi(new WritableStream({ write (chunk) { last = chunk } }), new ReadableStream())
      return async (event) => {
        await api.writeSSE(event)
        return last
      }
    }
  },
  'ours-format': {
    label: 'ours: formatEvent (a string)',
    ours: true,
    async setup () {
      const { formatEvent } = await import(OURS_ENTRY)
      return (event) => formatEvent(event)
    }
  },
  'ours-encode': {
    label: 'ours: encodeEvent (bytes)',
    ours: true,
    async setup () {
      const { encodeEvent } = await import(OURS_ENTRY)
      return (event) => encodeEvent(event)
    }
  },
  'ours-batch': {
    label: `ours: encodeEvents, ${BATCH} per call (bytes)`,
    ours: true,
    batch: BATCH,
    async setup () {
      const { encodeEvents } = await import(OURS_ENTRY)
      return (events) => encodeEvents(events)
    }
  }
}

/** The encoders this checkout has: ours only once lib/entries/server.js exists. */
export function availableEncoders () {
  const present = existsSync(OURS_ENTRY)
  return Object.keys(ENCODERS).filter((id) => present || !ENCODERS[id].ours)
}
