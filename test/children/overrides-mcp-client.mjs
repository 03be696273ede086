// The MCP client of test/compat/eventsource-overrides.test.cjs. The test copies this file into a temporary
// project where npm installed the MCP SDK with `overrides` pointing `eventsource` and
// `eventsource-parser` at the packages of packages/, and runs it there: every import below resolves
// as it does in a user's project with those overrides, and nothing here aliases a module.
//
//   node overrides-mcp-client.mjs <origin of the test's MCP server>
//
// The server answers GET /sse and POST /messages (the SDK's SSEServerTransport) and /mcp (its
// StreamableHTTPServerTransport), each session with one tool, `add`. Prints one JSON line per finding:
// where the SDK's client modules find eventsource and eventsource-parser, whether what they get is
// whatwg-eventsource's, and for each build of the SDK (ESM, CommonJS) and each transport, what a
// client saw: the tools listed, the result of `add`, and what it read the event stream with.

import { createRequire } from 'node:module'
import path from 'node:path'

const require = createRequire(import.meta.url)
const origin = process.argv[2]
const print = (report) => process.stdout.write(`${JSON.stringify(report)}\n`)

// Every EventSourceParserStream of ours that is piped through, counted: what either build of the SDK
// constructs through the package in place of eventsource-parser is counted, if that package is ours
// (./parser-stream-count.cjs, copied here from test/helpers/).
const parserStreams = require('./parser-stream-count.cjs').countParserStreams(
  require('whatwg-eventsource/parser/stream').EventSourceParserStream)

// Where the SDK's client modules find the two packages: from the modules that import them.
const SDK_IMPORTS = [
  ['client/sse.js', 'eventsource', 'whatwg-eventsource/eventsource'],
  ['client/streamableHttp.js', 'eventsource-parser/stream', 'whatwg-eventsource/parser/stream'],
  ['client/streamableHttp.js', 'eventsource-parser', 'whatwg-eventsource/parser']
]
for (const [from, specifier, entry] of SDK_IMPORTS) {
  const sdkRequire = createRequire(require.resolve(`@modelcontextprotocol/sdk/${from}`))
  const file = sdkRequire.resolve(specifier)
  const packageName = sdkRequire(`${specifier.split('/')[0]}/package.json`).name
  // The same objects under require and import as whatwg-eventsource's entry point. import() resolves
  // from this file, at the project's root: the same package as from the SDK when `file` is the same.
  const cjs = sdkRequire(specifier)
  const esm = require.resolve(specifier) === file ? await import(specifier) : {}
  const ours = require(entry)
  const names = Object.keys(ours).filter((name) => name !== '__esModule' && name !== 'default').sort()
  // A stand-in re-exports whatwg-eventsource's entry: a namespace of its own, holding the same objects.
  const same = (module) => Object.keys(module).filter((name) => name !== '__esModule' && name !== 'default').sort()
    .join() === names.join() && names.every((name) => module[name] === ours[name])
  print({
    resolved: specifier,
    from,
    file: path.relative(process.cwd(), file),
    packageName,
    names,
    sameUnderRequire: same(cjs),
    sameUnderImport: same(esm)
  })
}

const { EventSource } = require('whatwg-eventsource/eventsource')

// A client on `transport`: initialize, list the tools, call `add`, close. `look(transport)`, once
// connected, adds what it returns to the report.
async function session (Client, transport, look = () => ({})) {
  const client = new Client({ name: 'overrides-client', version: '1.0.0' })
  await client.connect(transport)
  try {
    const seen = look(transport)
    const { tools } = await client.listTools()
    const result = await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } })
    return { tools: tools.map((tool) => tool.name), content: result.content, ...seen }
  } finally {
    await client.close()
  }
}

const BUILDS = {
  esm: (name) => import(`@modelcontextprotocol/sdk/${name}`),
  cjs: async (name) => require(`@modelcontextprotocol/sdk/${name}`)
}
for (const [build, load] of Object.entries(BUILDS)) {
  const { Client } = await load('client/index.js')
  const { SSEClientTransport } = await load('client/sse.js')
  const { StreamableHTTPClientTransport } = await load('client/streamableHttp.js')

  // The SDK keeps the EventSource it made on the transport.
  const sse = await session(Client, new SSEClientTransport(new URL('/sse', origin)),
    (transport) => ({ eventSourceIsOurs: transport._eventSource instanceof EventSource }))
  print({ build, transport: 'sse', ...sse })

  const before = parserStreams.made()
  const streamable = await session(Client, new StreamableHTTPClientTransport(new URL('/mcp', origin)))
  print({ build, transport: 'streamable-http', ...streamable, parserStreams: parserStreams.made() - before })
}
print({ done: true })
