'use strict'

// The MCP SDK's streamable-HTTP transports with whatwg-eventsource/parser/stream in place of
// eventsource-parser/stream, as a user switches by changing one import: the SDK's client
// (StreamableHTTPClientTransport, which reads every SSE response through `EventSourceParserStream`) and
// its server (StreamableHTTPServerTransport, with an event store so that streams can be resumed) on a
// node:http server on 127.0.0.1, port 0. Connect, list the tools, call a tool, and call one whose
// response stream the server cuts (the socket destroyed) after its first progress notification: the
// client resumes it with a GET carrying Last-Event-ID, and every notification and the result arrive
// exactly once.
//
// The alias: Module._resolveFilename answers `eventsource-parser/stream`, required by the SDK's CommonJS
// build, with our entry point. The test checks that it did, that the SDK's own copy never loaded, and
// that the SDK constructed our EventSourceParserStream for every response it read.

const t = require('tap')
const path = require('node:path')
const Module = require('node:module')
const { randomUUID } = require('node:crypto')
const { serve, bounded, deferred } = require('../../helpers/index.cjs')
const { countParserStreams } = require('../../helpers/parser-stream-count.cjs')

const OURS = require.resolve('../../../lib/entries/parser-stream.js')
const SDK = path.join(path.dirname(require.resolve('@modelcontextprotocol/sdk/client/index.js')), '..', '..', '..')

// The alias, for modules of the SDK only, installed before the SDK loads.
const resolveFilename = Module._resolveFilename
const aliased = []
Module._resolveFilename = function (request, parent, ...rest) {
  if (request === 'eventsource-parser/stream' && parent?.filename?.startsWith(SDK + path.sep)) {
    aliased.push(path.relative(SDK, parent.filename))
    return OURS
  }
  return resolveFilename.call(this, request, parent, ...rest)
}
t.teardown(() => { Module._resolveFilename = resolveFilename })

// Every EventSourceParserStream of ours the SDK pipes through, counted.
const parserStreams = countParserStreams(require(OURS).EventSourceParserStream)
t.teardown(parserStreams.restore)

const { Client } = require('@modelcontextprotocol/sdk/client/index.js')
const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js')
const { Server } = require('@modelcontextprotocol/sdk/server/index.js')
const { StreamableHTTPServerTransport } = require('@modelcontextprotocol/sdk/server/streamableHttp.js')
const { ListToolsRequestSchema, CallToolRequestSchema } = require('@modelcontextprotocol/sdk/types.js')

// An event store that keeps events in the order they were stored (the SDK's example store orders them
// by an ID with a random part, which can replay two events of one millisecond out of order).
class OrderedEventStore {
  events = []
  async storeEvent (streamId, message) {
    const eventId = `${streamId}:${this.events.length}`
    this.events.push({ eventId, streamId, message })
    return eventId
  }

  async replayEventsAfter (lastEventId, { send }) {
    const at = this.events.findIndex((e) => e.eventId === lastEventId)
    if (at === -1) return ''
    const { streamId } = this.events[at]
    for (const e of this.events.slice(at + 1)) {
      if (e.streamId === streamId) await send(e.eventId, e.message)
    }
    return streamId
  }
}

const TOOLS = [
  { name: 'echo', description: 'Answers with its text', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } },
  { name: 'count', description: 'Counts to four, with a progress notification for each step', inputSchema: { type: 'object' } }
]

t.test('the MCP SDK over streamable HTTP, reading its SSE responses with our EventSourceParserStream', async (t) => {
  const eventStore = new OrderedEventStore()
  // The test's hands on the `count` call: the socket of its POST, the client's first progress, the
  // server's sight of the resuming GET.
  const countSocket = deferred()
  const firstProgressSeen = deferred()
  const resumed = deferred()
  const getRequests = []

  const mcpServer = new Server({ name: 'test-server', version: '1.0.0' }, { capabilities: { tools: {} } })
  mcpServer.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: TOOLS }))
  mcpServer.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    if (request.params.name === 'echo') return { content: [{ type: 'text', text: `echo: ${request.params.arguments.text}` }] }
    const progressToken = request.params._meta?.progressToken
    const progress = (n) => extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress: n, total: 4 } })
    await progress(1)
    // The client has read the first notification: cut the connection under the response.
    await bounded(firstProgressSeen.promise, 'the client to see progress 1')
    ;(await countSocket.promise).destroy()
    // Sent while no connection carries the stream: stored, to be replayed.
    await progress(2)
    await bounded(resumed.promise, 'the client to resume the stream')
    // Sent on the resumed stream.
    await progress(3)
    await progress(4)
    return { content: [{ type: 'text', text: 'counted to 4' }] }
  })
  const serverTransport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), eventStore, retryInterval: 10 })
  await mcpServer.connect(serverTransport)
  t.teardown(() => mcpServer.close())

  const srv = await serve(t, async (req, res, index) => {
    if (req.method === 'POST') {
      const body = JSON.parse((await srv.request(index)).body)
      if (body.method === 'tools/call' && body.params.name === 'count') countSocket.resolve(req.socket)
      await serverTransport.handleRequest(req, res, body)
      return
    }
    if (req.method === 'GET') getRequests.push(req.headers)
    if (req.headers['last-event-id'] !== undefined) resumed.resolve(req.headers['last-event-id'])
    await serverTransport.handleRequest(req, res)
  })

  const client = new Client({ name: 'test-client', version: '1.0.0' })
  const clientErrors = []
  const transport = new StreamableHTTPClientTransport(new URL(srv.url('/mcp')), {
    reconnectionOptions: { initialReconnectionDelay: 10, maxReconnectionDelay: 100, reconnectionDelayGrowFactor: 1.5, maxRetries: 5 }
  })
  await bounded(client.connect(transport), 'the client to connect')
  client.onerror = (err) => clientErrors.push(err.message)
  t.teardown(() => client.close())

  t.test('tools/list and tools/call', async (t) => {
    const { tools } = await bounded(client.listTools(), 'tools/list')
    t.same(tools.map((tool) => tool.name), ['echo', 'count'])
    const result = await bounded(client.callTool({ name: 'echo', arguments: { text: 'héllo 😀' } }), 'tools/call echo')
    t.same(result.content, [{ type: 'text', text: 'echo: héllo 😀' }])
  })

  t.test('a response stream cut by the server is resumed with Last-Event-ID', async (t) => {
    const progress = []
    const result = await bounded(client.callTool({ name: 'count', arguments: {} }, undefined, {
      onprogress (p) {
        progress.push(p.progress)
        if (p.progress === 1) firstProgressSeen.resolve()
      },
      resetTimeoutOnProgress: true
    }), 'tools/call count')
    t.same(result.content, [{ type: 'text', text: 'counted to 4' }])
    t.same(progress, [1, 2, 3, 4], 'every notification once, in order')
    // The ID the client resumed from is that of the last event it read: progress 1.
    const first = eventStore.events.find((e) => e.message.method === 'notifications/progress' && e.message.params.progress === 1)
    t.equal(await resumed.promise, first.eventId, 'Last-Event-ID names the event of progress 1')
    t.ok(getRequests.some((h) => h['last-event-id'] === first.eventId), 'sent on a GET')
    t.ok(clientErrors.some((m) => /SSE stream disconnected/.test(m)), 'the client saw the stream cut')
  })

  t.test('the SDK read its streams through our EventSourceParserStream', async (t) => {
    t.same(aliased, ['dist/cjs/client/streamableHttp.js'], 'the SDK required eventsource-parser/stream once, and got ours')
    t.notOk(Object.keys(require.cache).some((file) => file.includes(`${path.sep}node_modules${path.sep}eventsource-parser${path.sep}`)), 'no eventsource-parser loaded (from node_modules; ours is lib/compat/eventsource-parser/)')
    // initialize, tools/list, tools/call twice (POST responses read as SSE), the resuming GET, and the
    // GET of the standalone stream.
    t.ok(parserStreams.made() >= 5, `${parserStreams.made()} streams made`)
  })
})
