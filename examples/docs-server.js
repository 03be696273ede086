'use strict'

// The server the examples of docs/ run against: `node examples/docs-server.js` prints the two origins
// to give them (SSE_ORIGIN, plain HTTP/1.1; SSE_TLS_ORIGIN, HTTPS with HTTP/2 and HTTP/1.1), and the
// certificate to save as ca.pem beside an example that reads one. test/docs/docs-examples.test.cjs starts it
// the same way and runs every example of README.md and docs/ against it. Loopback only, port 0.
//
// Routes, the same on both origins:
//   GET  /events              three events (hello; a `price` event; done), then stays open
//   GET  /flaky               two numbered events per connection, each ended by the server; resumes
//                             after Last-Event-ID; the fifth event is `done`; `retry: 50`
//   POST /chat                an LLM-style answer to {"prompt"} in OpenAI's chunks, `data: [DONE]`,
//                             then the end of the response; 401 without an Authorization header; 400
//                             with an OpenAI-style JSON error (`{"error":{"message"}}`) without a prompt.
//                             ?then=cut: the connection is reset after two chunks; ?then=stall: one chunk,
//                             then silence; ?then=no-blank-line: no [DONE], and the last chunk's event ends
//                             without its blank line
//   POST /resume, GET /resume MCP-style: the POST answers two events and is cut; a GET with
//                             Last-Event-ID gets the rest: the result, then `done`
//   POST /subscribe           a subscription to {"query"} that may be asked for again: two `next`
//                             events per connection, each ended by the server; resumes after
//                             Last-Event-ID; `complete` after the fourth; `retry: 50`
//   GET  /log?offset=n        two lines of a log from offset n per connection, the next offset as
//                             each event's ID; `done` at offset 4
//   GET  /part/1, /part/2     part 1 names part 2 in a `stream-next-url` header and ends; part 2 is `done`
//   GET  /status/<code>       that status (401 with WWW-Authenticate; ?retry-after=s adds Retry-After)

const http = require('node:http')
const http2 = require('node:http2')
const fs = require('node:fs')
const path = require('node:path')
const { once } = require('node:events')

const { EventStreamWriter, encodeEvents } = require('../lib/entries/server.js')

const TLS_DIR = path.join(__dirname, '..', 'test', 'fixtures', 'tls')

// Every event stream is written by an EventStreamWriter (docs/server.md): it sends the head at once, encodes
// each event (a value's newline cannot start a field of its own) and ends the response on close().
const eventStream = (res, options) => new EventStreamWriter(res, options)

function readBody (req) {
  return new Promise((resolve, reject) => {
    const chunks = []
    req.on('data', (chunk) => chunks.push(chunk))
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    req.on('error', reject)
  })
}

const routes = {
  '/events' (req, res) {
    eventStream(res).send([
      { id: '1', data: 'hello' },
      { id: '2', event: 'price', data: '{"symbol":"ACME","price":42}' },
      { id: '3', data: 'done' }
    ])
  },

  '/flaky' (req, res) {
    const writer = eventStream(res)
    const after = Number(writer.lastEventId || 0)
    if (after >= 4) return writer.send({ id: '5', data: 'done' })
    writer.send([
      { id: `${after + 1}`, data: `tick ${after + 1}`, retry: 50 },
      { id: `${after + 2}`, data: `tick ${after + 2}` }
    ])
    writer.close()
  },

  async '/chat' (req, res) {
    if (!req.headers.authorization) {
      res.writeHead(401, { 'www-authenticate': 'Bearer realm="docs"' })
      return res.end()
    }
    const { prompt } = JSON.parse(await readBody(req))
    if (typeof prompt !== 'string') {
      res.writeHead(400, { 'content-type': 'application/json' })
      return res.end(JSON.stringify({ error: { message: "'prompt' is required", type: 'invalid_request_error' } }))
    }
    const then = new URL(req.url, 'http://localhost').searchParams.get('then')
    const chunks = `You said: ${prompt}`.split(/(?= )/).map((token) => ({ data: JSON.stringify({ choices: [{ delta: { content: token } }] }) }))
    if (then === 'no-blank-line') {
      // A stream no writer sends: its last event without the blank line that ends it.
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
      return res.end(encodeEvents(chunks).subarray(0, -1))
    }
    const writer = eventStream(res)
    if (then === 'cut') {
      writer.send(chunks.slice(0, 2))
      // After the writer's write (at the end of this tick): the connection reset.
      return setImmediate(() => res.destroy())
    }
    if (then === 'stall') return writer.send(chunks[0])
    writer.send([...chunks, { data: '[DONE]' }])
    writer.close()
  },

  async '/resume' (req, res) {
    const writer = eventStream(res)
    if (req.method === 'POST') {
      await readBody(req)
      writer.send([{ id: '1', data: 'working', retry: 50 }, { id: '2', data: 'still working' }])
      return writer.close()
    }
    if (writer.lastEventId !== '2') {
      writer.send({ data: 'error: resume after event 2' })
      return writer.close()
    }
    writer.send([{ id: '3', data: '{"result":42}' }, { id: '4', data: 'done' }])
  },

  async '/subscribe' (req, res) {
    const { query } = JSON.parse(await readBody(req))
    const writer = eventStream(res)
    const after = Number(writer.lastEventId || 0)
    if (after >= 4) return writer.send({ event: 'complete', data: 'done' })
    for (const id of [after + 1, after + 2]) {
      writer.send({ id: `${id}`, event: 'next', data: JSON.stringify({ data: { tick: id, query } }), retry: 50 })
    }
    writer.close()
  },

  '/log' (req, res, url) {
    const offset = Number(url.searchParams.get('offset') ?? 0)
    const writer = eventStream(res)
    if (offset >= 4) return writer.send({ id: `${offset}`, data: 'done' })
    writer.send([
      { id: `${offset + 1}`, data: `line ${offset}`, retry: 50 },
      { id: `${offset + 2}`, data: `line ${offset + 1}` }
    ])
    writer.close()
  },

  '/part/1' (req, res) {
    const writer = eventStream(res, { headers: { 'stream-next-url': '/part/2' } })
    writer.send({ data: 'part 1', retry: 50 })
    writer.close()
  },

  '/part/2' (req, res) {
    eventStream(res).send({ data: 'done' })
  }
}

function handle (req, res) {
  const url = new URL(req.url, 'http://localhost')
  const status = /^\/status\/(\d{3})$/.exec(url.pathname)
  if (status) {
    const headers = { 'content-type': 'text/plain' }
    if (status[1] === '401') headers['www-authenticate'] = 'Bearer realm="docs"'
    if (url.searchParams.has('retry-after')) headers['retry-after'] = url.searchParams.get('retry-after')
    res.writeHead(Number(status[1]), headers)
    return res.end(`status ${status[1]}\n`)
  }
  const route = routes[url.pathname]
  if (!route) {
    res.writeHead(404, { 'content-type': 'text/plain' })
    return res.end('not found\n')
  }
  Promise.resolve(route(req, res, url)).catch((error) => res.destroy(error))
}

async function listen (server) {
  const sockets = new Set()
  const track = (socket) => {
    sockets.add(socket)
    socket.once('close', () => sockets.delete(socket))
  }
  server.on('connection', track)
  server.on('secureConnection', track)
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return {
    port: server.address().port,
    close () {
      for (const socket of sockets) socket.destroy()
      return new Promise((resolve) => server.close(() => resolve()))
    }
  }
}

/**
 * Starts both servers.
 * @returns {Promise<{ origin: string, tlsOrigin: string, caFile: string, close(): Promise<void> }>}
 */
async function startDocsServer () {
  const plain = await listen(http.createServer(handle))
  const tls = {
    key: fs.readFileSync(path.join(TLS_DIR, 'key.pem')),
    cert: fs.readFileSync(path.join(TLS_DIR, 'cert.pem'))
  }
  const secureServer = http2.createSecureServer({ ...tls, allowHTTP1: true }, handle)
  // A client that goes away mid-stream, or refuses the certificate, is not the server's problem.
  secureServer.on('session', (session) => session.on('error', () => {}))
  secureServer.on('tlsClientError', () => {})
  const secure = await listen(secureServer)
  return {
    origin: `http://127.0.0.1:${plain.port}`,
    tlsOrigin: `https://127.0.0.1:${secure.port}`,
    caFile: path.join(TLS_DIR, 'cert.pem'),
    async close () {
      await Promise.all([plain.close(), secure.close()])
    }
  }
}

module.exports = { startDocsServer }

if (require.main === module) {
  startDocsServer().then(({ origin, tlsOrigin, caFile }) => {
    console.log(`export SSE_ORIGIN=${origin}`)
    console.log(`export SSE_TLS_ORIGIN=${tlsOrigin}`)
    console.log(`# for the examples that read ca.pem: cp ${path.relative(process.cwd(), caFile)} ca.pem`)
  })
}
