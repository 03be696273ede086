'use strict'

// The documented way to make a dependency use the drop-ins: npm `overrides` pointing `eventsource` and
// `eventsource-parser` at the two packages of packages/ (docs/drop-ins-in-dependencies.md). In a
// temporary directory the test
// 1. packs whatwg-eventsource and the two packages (`npm pack`), the tarballs standing in for the registry;
// 2. writes a project that depends on the MCP SDK, at the version installed here, with `overrides` for
//    eventsource and eventsource-parser (the tarballs), and for whatwg-eventsource, which the packages
//    depend on and which is not on the registry;
// 3. installs it with npm, preferring its cache (after `npm ci` the cache holds the tarballs, but not
//    the registry's metadata, which npm then fetches: once per cache);
// 4. runs test/children/overrides-mcp-client.mjs there, in a process of its own: it reports where the
//    SDK's client modules find the two packages and what they get, then runs an MCP client of each build
//    of the SDK (ESM, CommonJS) against the SDK's own server, here on 127.0.0.1: over SSE
//    (SSEClientTransport, on our EventSource) and over streamable HTTP (StreamableHTTPClientTransport,
//    reading its responses with our EventSourceParserStream).
// About 6 s, most of it npm; the times are printed as a comment.

const t = require('tap')
const { execFile } = require('node:child_process')
const { randomUUID } = require('node:crypto')
const { copyFileSync, existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } = require('node:fs')
const { createRequire } = require('node:module')
const os = require('node:os')
const path = require('node:path')
const { promisify } = require('node:util')
const { serve, runChild, childEnv } = require('../helpers/index.cjs')

const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js')
const { SSEServerTransport } = require('@modelcontextprotocol/sdk/server/sse.js')
const { StreamableHTTPServerTransport } = require('@modelcontextprotocol/sdk/server/streamableHttp.js')
const { z } = require('zod')

const ROOT = path.join(__dirname, '..', '..')
const OURS = require('../../package.json')
const SDK_ROOT = path.resolve(require.resolve('@modelcontextprotocol/sdk/client/index.js'), '../../../..')
const SDK = JSON.parse(readFileSync(path.join(SDK_ROOT, 'package.json'), 'utf8'))
// Each package of packages/ and the package it stands in for.
const PACKAGES = [
  { dir: 'packages/eventsource', replaces: 'eventsource' },
  { dir: 'packages/eventsource-parser', replaces: 'eventsource-parser' }
].map((p) => ({ ...p, json: JSON.parse(readFileSync(path.join(ROOT, p.dir, 'package.json'), 'utf8')) }))
// What the SDK's client modules import (and eventsource-parser's main entry point, which they do not),
// and the package that should answer.
const SDK_IMPORTS = [
  { from: 'client/sse.js', specifier: 'eventsource', package: '@whatwg-eventsource/eventsource' },
  { from: 'client/streamableHttp.js', specifier: 'eventsource-parser/stream', package: '@whatwg-eventsource/eventsource-parser' },
  { from: 'client/streamableHttp.js', specifier: 'eventsource-parser', package: '@whatwg-eventsource/eventsource-parser' }
]

// Bounds: generous, npm on a loaded machine is slow; reached only when something hangs.
const PACK_MS = 30_000
const INSTALL_MS = 90_000
const CLIENT_MS = 30_000

const execFileAsync = promisify(execFile)

/**
 * Runs `npm ...args` in `cwd` with the test's environment less the test runner's hooks and coverage
 * (which would load into npm's own process), through env(1) as runChild does, as tap's process
 * tracking puts NODE_OPTIONS back into what is spawned. Killed at `ms`, or at teardown.
 * @returns {Promise<{ stdout: string, stderr: string, ms: number }>}
 */
async function npm (t, args, cwd, ms) {
  const stop = new AbortController()
  t.teardown(() => stop.abort())
  const [command, commandArgs] = process.platform === 'win32'
    ? ['npm.cmd', args]
    : ['env', ['-u', 'NODE_OPTIONS', 'npm', ...args]]
  const started = performance.now()
  try {
    const { stdout, stderr } = await execFileAsync(command, commandArgs, {
      cwd,
      env: childEnv({ isolate: true, coverage: false }),
      signal: AbortSignal.any([stop.signal, AbortSignal.timeout(ms)]),
      maxBuffer: 64 * 1024 * 1024,
      shell: process.platform === 'win32'
    })
    return { stdout, stderr, ms: Math.round(performance.now() - started) }
  } catch (err) {
    throw new Error(`npm ${args.join(' ')} failed (${err.code ?? err.signal ?? err.name})\n${err.stderr ?? ''}`, { cause: err })
  }
}

// An MCP server of the SDK's, with one tool.
function mcpServer () {
  const server = new McpServer({ name: 'overrides-server', version: '1.0.0' })
  server.registerTool('add', { description: 'Adds two numbers', inputSchema: { a: z.number(), b: z.number() } },
    async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }))
  return server
}

/**
 * The SDK's servers on one node:http server: GET /sse opens an SSE session (SSEServerTransport),
 * POST /messages?sessionId= feeds it; /mcp is streamable HTTP (StreamableHTTPServerTransport), a
 * transport per session, made by the initialize request.
 */
async function mcpServers (t) {
  const sseSessions = new Map()
  const streamableSessions = new Map()
  const srv = await serve(t, async (req, res, index) => {
    const { pathname, searchParams } = new URL(req.url, 'http://localhost')
    if (req.method === 'GET' && pathname === '/sse') {
      const transport = new SSEServerTransport('/messages', res)
      sseSessions.set(transport.sessionId, transport)
      await mcpServer().connect(transport)
    } else if (req.method === 'POST' && pathname === '/messages') {
      // The fixture reads the body; the transport takes it parsed.
      await srv.request(index)
      await sseSessions.get(searchParams.get('sessionId')).handlePostMessage(req, res, JSON.parse(req.body))
    } else if (pathname === '/mcp') {
      const body = req.method === 'POST' ? JSON.parse((await srv.request(index)).body) : undefined
      let transport = streamableSessions.get(req.headers['mcp-session-id'])
      if (transport === undefined) {
        transport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (id) => streamableSessions.set(id, transport)
        })
        await mcpServer().connect(transport)
      }
      await transport.handleRequest(req, res, body)
    } else {
      res.writeHead(404).end()
    }
  })
  return srv
}

t.test('the packages: in step with whatwg-eventsource, with the subpaths of the packages they replace', async (t) => {
  for (const { dir, replaces, json } of PACKAGES) {
    t.equal(json.version, OURS.version, `${json.name}: the version of whatwg-eventsource`)
    t.same(json.dependencies, { 'whatwg-eventsource': `^${OURS.version}` }, `${json.name}: depends on whatwg-eventsource only`)
    // The original, as the SDK installed here has it.
    const original = createRequire(path.join(SDK_ROOT, 'package.json'))(`${replaces}/package.json`)
    t.same(Object.keys(json.exports).sort(), Object.keys(original.exports).sort(), `${json.name}: the subpaths of ${replaces} ${original.version}`)
    for (const [subpath, target] of Object.entries(json.exports)) {
      const files = typeof target === 'string' ? [target] : [...new Set(Object.values(target))]
      for (const file of files) t.ok(existsSync(path.join(ROOT, dir, file)), `${json.name}: ${subpath} -> ${file}`)
    }
  }
})

t.test('npm overrides put the packages under the MCP SDK; its client works over SSE and streamable HTTP', async (t) => {
  const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'whatwg-eventsource-overrides-')))
  t.teardown(() => rmSync(dir, { recursive: true, force: true, maxRetries: 3 }))

  // 1. The tarballs.
  const pack = await npm(t, ['pack', '.', `./${PACKAGES[0].dir}`, `./${PACKAGES[1].dir}`,
    '--pack-destination', dir, '--json', '--ignore-scripts'], ROOT, PACK_MS)
  const packed = JSON.parse(pack.stdout)
  t.same(packed.map((p) => p.name), ['whatwg-eventsource', ...PACKAGES.map((p) => p.json.name)], 'three tarballs')
  t.notOk(packed[0].files.some((file) => file.path.startsWith('packages/')), 'whatwg-eventsource\'s tarball holds nothing of packages/')
  for (const [i, { json }] of PACKAGES.entries()) {
    const inTarball = new Set(packed[i + 1].files.map((file) => file.path))
    const targets = Object.values(json.exports).flatMap((target) => typeof target === 'string' ? [target] : Object.values(target))
    t.same(targets.filter((file) => !inTarball.has(file.slice(2))), [], `${json.name}: every file its exports name is packed`)
  }
  const tarball = Object.fromEntries(packed.map((p) => [p.name, path.join(dir, p.filename)]))

  // 2. The project. Absolute paths: npm reads a relative file: spec of an override from the folder of
  // the package whose dependency it replaces, in some cases (with a lockfile).
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({
    name: 'overrides-consumer',
    private: true,
    dependencies: { '@modelcontextprotocol/sdk': SDK.version },
    overrides: {
      eventsource: `file:${tarball['@whatwg-eventsource/eventsource']}`,
      'eventsource-parser': `file:${tarball['@whatwg-eventsource/eventsource-parser']}`,
      'whatwg-eventsource': `file:${tarball['whatwg-eventsource']}`
    }
  }, null, 2))

  // 3. The install.
  const install = await npm(t, ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts'], dir, INSTALL_MS)
  const lock = JSON.parse(readFileSync(path.join(dir, 'package-lock.json'), 'utf8'))
  const installed = (name) => Object.entries(lock.packages)
    .filter(([key]) => key.endsWith(`node_modules/${name}`))
    .map(([, entry]) => ({ name: entry.name ?? name, version: entry.version, resolved: path.basename((entry.resolved ?? '').replace(/^file:/, '')) }))
  for (const { replaces, json } of PACKAGES) {
    t.same(installed(replaces), [{ name: json.name, version: json.version, resolved: path.basename(tarball[json.name]) }],
      `one ${replaces} in the tree, and it is ${json.name}`)
  }
  t.equal(installed('whatwg-eventsource').length, 1, 'one whatwg-eventsource, shared by the two')

  // 4. The client, against the SDK's servers.
  const srv = await mcpServers(t)
  copyFileSync(path.join(__dirname, '..', 'children', 'overrides-mcp-client.mjs'), path.join(dir, 'client.mjs'))
  copyFileSync(path.join(__dirname, '..', 'helpers', 'parser-stream-count.cjs'), path.join(dir, 'parser-stream-count.cjs'))
  const started = performance.now()
  const run = runChild(t, ['client.mjs', srv.origin], { cwd: dir, isolate: true, coverage: false })
  const { code, stderr, reports } = await run.exited(CLIENT_MS, 'the MCP client to finish')
  const clientMs = Math.round(performance.now() - started)
  t.equal(code, 0, `the client exited with 0${stderr === '' ? '' : `; stderr:\n${stderr}`}`)
  t.same(reports.at(-1), { done: true }, 'the client ran to its end')

  for (const { from, specifier, package: name } of SDK_IMPORTS) {
    const report = reports.find((r) => r.resolved === specifier)
    const original = createRequire(path.join(SDK_ROOT, 'dist', 'cjs', from))(specifier)
    t.match(report, {
      from,
      file: new RegExp(`(^|[\\\\/])node_modules[\\\\/]${specifier.split('/')[0]}[\\\\/]`),
      packageName: name,
      sameUnderRequire: true,
      sameUnderImport: true
    }, `the SDK's ${from} finds ${specifier} in ${name}, which gives whatwg-eventsource's objects`)
    t.same(report?.names, Object.keys(original).sort(), `the names of ${specifier} as the SDK has it without overrides`)
  }

  const sessions = reports.filter((r) => r.transport !== undefined)
  const result = { tools: ['add'], content: [{ type: 'text', text: '5' }] }
  t.same(sessions, [
    { build: 'esm', transport: 'sse', ...result, eventSourceIsOurs: true },
    { build: 'esm', transport: 'streamable-http', ...result, parserStreams: sessions[1]?.parserStreams },
    { build: 'cjs', transport: 'sse', ...result, eventSourceIsOurs: true },
    { build: 'cjs', transport: 'streamable-http', ...result, parserStreams: sessions[3]?.parserStreams }
  ], 'each build of the SDK listed the tools and called one, over SSE and over streamable HTTP')
  for (const session of sessions.filter((s) => s.transport === 'streamable-http')) {
    // initialize, tools/list and tools/call are answered with event streams (and the GET of the
    // standalone stream, if it has been made by then).
    t.ok(session.parserStreams >= 3, `the ${session.build} streamable-HTTP client read its responses with our EventSourceParserStream (${session.parserStreams})`)
  }
  t.comment(`npm pack ${pack.ms} ms, npm install ${install.ms} ms, client ${clientMs} ms (Node ${process.version})`)
})
