'use strict'

// `node examples/mcp-resume.js`: a tool call over MCP's streamable HTTP transport, resumed after cuts.
// The stream starts as the response to a POST carrying a JSON-RPC request. After a cut the client
// resumes with a GET to the same endpoint carrying Last-Event-ID: sending the POST again would call
// the tool again. The server primes each stream with an event that has an ID and no data, and may
// close a stream on purpose at any time after it (SEP-1699); here it also drops connections mid-event.
// test/docs/example-resume.test.cjs runs it with 200 cuts and checks that nothing is lost or repeated.

const http = require('node:http')
const { EventSource } = require('..')
const { EventStreamWriter } = require('../lib/entries/server.js')
const { Cutter, listenLocally } = require('./cutting-server')

/**
 * Calls a tool and follows its progress until the result comes, however often the stream is cut.
 * @param {string} endpoint the MCP endpoint
 * @param {string} sessionId
 * @param {object} call the JSON-RPC request
 * @param {(progress: object) => void} onProgress
 * @returns {Promise<object>} the JSON-RPC response
 */
function callTool (endpoint, sessionId, call, onProgress) {
  return new Promise((resolve, reject) => {
    const source = new EventSource(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': sessionId },
      body: JSON.stringify(call),
      // The first attempt is the POST; every later one resumes the stream with a GET, which carries
      // Last-Event-ID (the priming event's ID at least) and none of the POST's body or Content-Type.
      // Saying how each attempt goes is what lets the source reconnect: a POST alone is sent once.
      request: ({ attempt }) => attempt === 1
        ? undefined
        : { method: 'GET', headers: { accept: 'text/event-stream', 'mcp-session-id': sessionId } },
      // A server that keeps answering with nothing is given up on after ten tries in a row.
      reconnect: { maxRetries: 10 }
    })
    source.onmessage = (event) => {
      // The priming event carries an ID and no data.
      if (event.data === '') return
      const message = JSON.parse(event.data)
      if (message.id === call.id) {
        source.close()
        resolve(message)
      } else if (message.method === 'notifications/progress') {
        onProgress(message.params)
      }
    }
    source.onerror = (event) => {
      if (source.readyState === EventSource.CLOSED) reject(new Error(`The stream failed: ${event.message}`, { cause: event.cause }))
    }
  })
}

/**
 * A local MCP-style endpoint with one tool, `count`, that reports `steps` progress notifications and
 * then its result, on streams it cuts `cuts` times.
 * @param {{ steps: number, cuts: number, seed?: number, retry?: number }} options
 */
async function startMcpServer ({ steps, cuts, seed, retry = 250 }) {
  const cutter = new Cutter({ cuts, seed })
  const requests = { post: 0, get: 0, resumedWithoutId: 0 }
  // The events of the one call's stream; each ID is the stream's and the event's position.
  let events = null
  const server = http.createServer((req, res) => {
    if (req.method === 'POST') {
      requests.post++
      let body = ''
      req.setEncoding('utf8').on('data', (chunk) => { body += chunk }).on('end', () => {
        const call = JSON.parse(body)
        events = [{ id: `call-${call.id}/0`, retry, data: '' }]
        for (let step = 1; step <= steps; step++) {
          const progress = { jsonrpc: '2.0', method: 'notifications/progress', params: { progress: step, total: steps } }
          events.push({ id: `call-${call.id}/${step}`, data: JSON.stringify(progress) })
        }
        const result = { jsonrpc: '2.0', id: call.id, result: { content: [{ type: 'text', text: `counted to ${steps}` }] } }
        events.push({ id: `call-${call.id}/${steps + 1}`, data: JSON.stringify(result) })
        cutter.send(res, new EventStreamWriter(res), events, { whole: 1 })
      })
      return
    }
    // GET: a resumption, from the event after Last-Event-ID.
    requests.get++
    const id = req.headers['last-event-id']
    const position = id === undefined || events === null ? -1 : Number(id.slice(id.indexOf('/') + 1))
    if (!(position >= 0)) {
      requests.resumedWithoutId++
      res.writeHead(405).end()
      return
    }
    cutter.send(res, new EventStreamWriter(res), events.slice(position + 1))
  })
  const { origin, close } = await listenLocally(server)
  return { endpoint: `${origin}/mcp`, requests, cutter, close }
}

/**
 * Runs the call against a local server.
 * @param {{ steps?: number, cuts?: number, seed?: number, retry?: number, log?: (line: string) => void }} [options]
 */
async function run ({ steps = 20, cuts = 5, seed = 1, retry = 250, log = () => {} } = {}) {
  const server = await startMcpServer({ steps, cuts, seed, retry })
  try {
    const progress = []
    const response = await callTool(server.endpoint, 'session-1', { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'count' } },
      (params) => {
        progress.push(params.progress)
        log(`progress ${params.progress} of ${params.total}`)
      })
    log(`result: ${response.result.content[0].text}`)
    return { progress, response, requests: server.requests, cutsLeft: server.cutter.left }
  } finally {
    await server.close()
  }
}

module.exports = { callTool, startMcpServer, run }

if (require.main === module) {
  run({ log: console.log }).then(({ requests }) => {
    console.log(`${requests.post} POST, ${requests.get} GETs that resumed the stream`)
  })
}
