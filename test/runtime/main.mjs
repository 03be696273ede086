// The runtime suite on Node, Bun and Deno: `<runtime> main.mjs '<config JSON>'`, run by
// test/runtime/run.mjs from a directory where the packed package is installed in node_modules, so that
// `whatwg-eventsource` resolves as it does for a user (Deno through its npm compatibility).

import * as pkg from 'whatwg-eventsource'
import { runSuite } from './suite.mjs'

// The drop-in entry points and the server's, each imported by the test that needs it.
const ENTRIES = {
  eventsource: () => import('whatwg-eventsource/eventsource'),
  parser: () => import('whatwg-eventsource/parser'),
  'parser/stream': () => import('whatwg-eventsource/parser/stream'),
  server: () => import('whatwg-eventsource/server')
}

const deno = globalThis.Deno
const args = deno?.args ?? process.argv.slice(2)
const config = JSON.parse(args[0])
const runtime = deno !== undefined
  ? `Deno ${deno.version.deno}`
  : globalThis.Bun !== undefined ? `Bun ${globalThis.Bun.version}` : `Node ${process.version}`
console.log(`# runtime: ${runtime}`)

// ---- the runtime's own servers, for the tests of whatwg-eventsource/server ----

const LOCAL = '127.0.0.1'

// A handler of WHATWG requests served by the runtime's server: Deno.serve, Bun.serve; on Node, node:http through
// the adapter below (Node has no server of Request and Response).
async function serve (handler) {
  if (deno !== undefined) {
    const controller = new AbortController()
    const listening = Promise.withResolvers()
    const server = deno.serve({ hostname: LOCAL, port: 0, signal: controller.signal, onListen: listening.resolve }, handler)
    const { port } = await listening.promise
    return {
      name: 'Deno.serve',
      origin: `http://${LOCAL}:${port}`,
      close: async () => {
        controller.abort()
        await server.finished
      }
    }
  }
  if (globalThis.Bun !== undefined) {
    const server = globalThis.Bun.serve({ hostname: LOCAL, port: 0, fetch: handler })
    return { name: 'Bun.serve', origin: `http://${LOCAL}:${server.port}`, close: async () => server.stop(true) }
  }
  return { name: 'node:http, through a Request/Response adapter', ...await serveNode(requestListener(handler)) }
}

// node:http's request and response as a WHATWG Request and Response, as @hono/node-server and the like do: the
// request's signal aborts when the client leaves, the body is written as the client reads it, and cancelled
// when it leaves.
function requestListener (handler) {
  return async (req, res) => {
    const left = new AbortController()
    res.once('close', () => left.abort())
    const headers = new Headers()
    for (const [name, value] of Object.entries(req.headers)) headers.set(name, [value].flat().join(', '))
    const request = new Request(new URL(req.url, `http://${req.headers.host}`), { method: req.method, headers, signal: left.signal })
    const response = await handler(request)
    res.writeHead(response.status, Object.fromEntries(response.headers))
    res.flushHeaders()
    if (response.body === null) return res.end()
    const reader = response.body.getReader()
    left.signal.addEventListener('abort', () => reader.cancel().catch(() => {}), { once: true })
    try {
      for (;;) {
        const { value, done } = await reader.read()
        if (done) break
        if (!res.write(value)) await new Promise((resolve) => { res.once('drain', resolve); res.once('close', resolve) })
      }
      res.end()
    } catch {
      res.destroy()
    }
  }
}

// A node:http server of the runtime (Node's, Bun's, Deno's) on a free port of 127.0.0.1.
async function serveNode (listener) {
  const http = await import('node:http')
  const server = http.createServer(listener)
  await new Promise((resolve) => server.listen(0, LOCAL, resolve))
  return {
    origin: `http://${LOCAL}:${server.address().port}`,
    close: () => new Promise((resolve) => {
      server.closeAllConnections?.()
      server.close(() => resolve())
    })
  }
}

const { failed } = await runSuite({
  ...config,
  pkg,
  loadPolyfill: () => import('whatwg-eventsource/polyfill'),
  loadEntry: (name) => ENTRIES[name](),
  serve,
  serveNode,
  browser: false,
  log: (line) => console.log(line)
})
// Sources a failed test left behind must not keep the process alive.
if (deno !== undefined) deno.exit(failed === 0 ? 0 : 1)
else process.exit(failed === 0 ? 0 : 1)
