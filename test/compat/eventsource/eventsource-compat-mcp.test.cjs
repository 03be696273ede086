'use strict'

// The proof of `whatwg-eventsource/eventsource` as a drop-in: the MCP SDK's client over its
// SSEClientTransport, against the SDK's own SSEServerTransport on node:http (127.0.0.1, port 0), with our
// entry point in place of `eventsource` for the SDK (a module alias on its CommonJS build). The SDK puts
// everything in the `fetch` it gives EventSource: the Authorization header (from requestInit.headers or
// an authProvider), its same-origin redirect policy, the user's fetch; and it starts its OAuth flow on
// `event.code === 401`. Every case runs again on the SDK's own `eventsource` (version 3), which shows that
// each checks what the SDK does with that package.

const t = require('tap')
const Module = require('node:module')
const path = require('node:path')
const dropIn = require('whatwg-eventsource/eventsource')
const { serve } = require('../../helpers/index.cjs')

const { Client } = require('@modelcontextprotocol/sdk/client/index.js')
const { UnauthorizedError } = require('@modelcontextprotocol/sdk/client/auth.js')
const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js')
const { SSEServerTransport } = require('@modelcontextprotocol/sdk/server/sse.js')
const { z } = require('zod')

// The alias: while the SDK's SSE client module loads, its require('eventsource') resolves to our entry.
const SSE_CLIENT = require.resolve('@modelcontextprotocol/sdk/client/sse.js')
const SDK_ROOT = path.resolve(SSE_CLIENT, '../../../..')
const DROP_IN = require.resolve('whatwg-eventsource/eventsource')
const aliasedFrom = []
let aliasOn = false
const resolveFilename = Module._resolveFilename
Module._resolveFilename = function (request, parent, ...rest) {
  if (aliasOn && request === 'eventsource' && parent?.filename?.startsWith(SDK_ROOT + path.sep)) {
    aliasedFrom.push(parent.filename)
    return DROP_IN
  }
  return resolveFilename.call(this, request, parent, ...rest)
}

// The SSE client module, loaded once with the alias and once without, each a module of its own.
function loadSseClient (alias) {
  delete require.cache[SSE_CLIENT]
  aliasOn = alias
  try {
    return require(SSE_CLIENT)
  } finally {
    aliasOn = false
    delete require.cache[SSE_CLIENT]
  }
}
const withDropIn = loadSseClient(true)
const withOriginal = loadSseClient(false)
// The SDK's own eventsource, as its module resolves it without the alias.
const original = Module.createRequire(SSE_CLIENT)('eventsource')

const VARIANTS = [
  ['whatwg-eventsource/eventsource', withDropIn, dropIn.EventSource],
  ['the SDK\'s eventsource 3', withOriginal, original.EventSource]
]

function each (name, fn) {
  for (const [label, sdk, EventSource] of VARIANTS) t.test(`${name} (${label})`, (t) => fn(t, sdk, EventSource))
}

t.test('the alias: the SDK\'s SSE client took our entry point, and only with the alias', async (t) => {
  t.same(aliasedFrom, [SSE_CLIENT])
  t.not(original.EventSource, dropIn.EventSource)
  t.match(require('eventsource/package.json').version, /^4\./, 'the top-level eventsource is not the SDK\'s')
})

/**
 * An MCP server on node:http: GET /sse opens a session (SSEServerTransport, with a tool `add`), POST
 * /messages?sessionId= feeds it. With `token`, every request without `Authorization: Bearer <token>` gets
 * a 401 that points at the server's protected resource metadata, and the server is its own OAuth
 * authorization server (metadata, /authorize, /token issuing `token`). `routes` answer other paths first.
 */
async function mcpServer (t, { token, routes = {} } = {}) {
  const sessions = new Map()
  const srv = await serve(t, async (req, res, index) => {
    const { pathname, searchParams } = new URL(req.url, 'http://localhost')
    const route = routes[pathname] ?? oauthRoutes[pathname]
    if (route !== undefined) return route(req, res, index)
    if (token !== undefined && req.headers.authorization !== `Bearer ${token}`) {
      res.writeHead(401, {
        'www-authenticate': `Bearer resource_metadata="${srv.url('/.well-known/oauth-protected-resource')}"`
      }).end()
      return
    }
    if (req.method === 'GET' && pathname === '/sse') {
      const server = new McpServer({ name: 'test-server', version: '1.0.0' })
      server.registerTool('add', { description: 'Adds two numbers', inputSchema: { a: z.number(), b: z.number() } },
        async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }))
      const transport = new SSEServerTransport('/messages', res)
      sessions.set(transport.sessionId, transport)
      await server.connect(transport)
    } else if (req.method === 'POST' && pathname === '/messages') {
      // The fixture reads the body; the transport takes it parsed.
      await srv.request(index)
      await sessions.get(searchParams.get('sessionId')).handlePostMessage(req, res, JSON.parse(req.body))
    } else {
      res.writeHead(404).end()
    }
  })
  const json = (res, value) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(value))
  const oauthRoutes = token === undefined
    ? {}
    : {
        '/.well-known/oauth-protected-resource': (req, res) => json(res, {
          resource: srv.url('/sse'), authorization_servers: [srv.origin]
        }),
        '/.well-known/oauth-authorization-server': (req, res) => json(res, {
          issuer: srv.origin,
          authorization_endpoint: srv.url('/authorize'),
          token_endpoint: srv.url('/token'),
          response_types_supported: ['code'],
          grant_types_supported: ['authorization_code'],
          code_challenge_methods_supported: ['S256']
        }),
        // The user consents at once: back to the client with a code.
        '/authorize': (req, res) => {
          const redirect = new URL(new URL(req.url, srv.origin).searchParams.get('redirect_uri'))
          redirect.searchParams.set('code', 'the-code')
          res.writeHead(302, { location: redirect.href }).end()
        },
        '/token': async (req, res, index) => {
          await srv.request(index)
          json(res, { access_token: token, token_type: 'Bearer' })
        }
      }
  return srv
}

// A connected client, closed at teardown.
async function connect (t, transport) {
  const client = new Client({ name: 'test-client', version: '1.0.0' })
  t.teardown(() => client.close())
  await client.connect(transport)
  return client
}

// Lists the tools and calls `add`.
async function useTools (t, client) {
  const { tools } = await client.listTools()
  t.same(tools.map((tool) => tool.name), ['add'])
  const result = await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } })
  t.same(result.content, [{ type: 'text', text: '5' }])
}

// An OAuth client provider that keeps everything in memory and records the redirect it is asked for.
function memoryProvider (tokens) {
  const provider = {
    redirects: [],
    saved: { tokens, codeVerifier: undefined },
    get redirectUrl () { return 'http://127.0.0.1/callback' },
    get clientMetadata () {
      return { client_name: 'test-client', redirect_uris: ['http://127.0.0.1/callback'], grant_types: ['authorization_code'], response_types: ['code'] }
    },
    clientInformation: () => ({ client_id: 'test-client-id' }),
    tokens: () => provider.saved.tokens,
    saveTokens: (value) => { provider.saved.tokens = value },
    redirectToAuthorization: (url) => { provider.redirects.push(url) },
    saveCodeVerifier: (value) => { provider.saved.codeVerifier = value },
    codeVerifier: () => provider.saved.codeVerifier
  }
  return provider
}

each('connect, list the tools, call a tool', async (t, { SSEClientTransport }, EventSource) => {
  const srv = await mcpServer(t)
  const transport = new SSEClientTransport(new URL(srv.url('/sse')))
  const client = await connect(t, transport)
  t.ok(transport._eventSource instanceof EventSource, 'the SDK made its EventSource with this implementation')
  await useTools(t, client)
  t.equal(srv.requests[0].headers.accept, 'text/event-stream')
})

each('a token from requestInit.headers', async (t, { SSEClientTransport }) => {
  const srv = await mcpServer(t, { token: 'static-token' })
  const transport = new SSEClientTransport(new URL(srv.url('/sse')), {
    requestInit: { headers: { Authorization: 'Bearer static-token' } }
  })
  await useTools(t, await connect(t, transport))
  const stream = srv.requests.find((req) => req.method === 'GET' && req.url === '/sse')
  t.equal(stream.headers.authorization, 'Bearer static-token', 'on the event stream request')
  t.notOk(srv.requests.some((req) => req.url.startsWith('/.well-known/')), 'no OAuth flow')
})

each('a token from an authProvider', async (t, { SSEClientTransport }) => {
  const srv = await mcpServer(t, { token: 'provider-token' })
  const provider = memoryProvider({ access_token: 'provider-token', token_type: 'Bearer' })
  const transport = new SSEClientTransport(new URL(srv.url('/sse')), { authProvider: provider })
  await useTools(t, await connect(t, transport))
  t.equal(srv.requests[0].headers.authorization, 'Bearer provider-token')
  t.same(provider.redirects, [])
})

each('a 401 starts the OAuth flow, and the token it ends with connects', async (t, { SSEClientTransport }) => {
  const srv = await mcpServer(t, { token: 'issued-token' })
  const provider = memoryProvider(undefined)
  const first = new SSEClientTransport(new URL(srv.url('/sse')), { authProvider: provider })
  const client = new Client({ name: 'test-client', version: '1.0.0' })
  t.teardown(() => client.close())
  const err = await client.connect(first).then(() => null, (err) => err)
  t.ok(err instanceof UnauthorizedError, 'the 401 (event.code) sent the SDK into its OAuth flow')
  t.equal(provider.redirects.length, 1, 'redirectToAuthorization was called')
  const authorization = provider.redirects[0]
  t.equal(`${authorization.origin}${authorization.pathname}`, srv.url('/authorize'))
  t.equal(authorization.searchParams.get('client_id'), 'test-client-id')
  t.equal(authorization.searchParams.get('code_challenge_method'), 'S256')
  t.ok(srv.requests.some((req) => req.url === '/.well-known/oauth-protected-resource'), 'from the 401\'s resource_metadata')

  // The user agent follows the authorization URL; the client exchanges the code it comes back with.
  const consent = await fetch(authorization, { redirect: 'manual' })
  const code = new URL(consent.headers.get('location')).searchParams.get('code')
  await first.finishAuth(code)
  const tokenRequest = srv.requests.find((req) => req.url === '/token')
  const form = new URLSearchParams(tokenRequest.body.toString())
  t.same([form.get('code'), form.get('code_verifier')], ['the-code', provider.saved.codeVerifier])
  t.equal(provider.saved.tokens.access_token, 'issued-token')

  const second = new SSEClientTransport(new URL(srv.url('/sse')), { authProvider: provider })
  await useTools(t, await connect(t, second))
  const streams = srv.requests.filter((req) => req.method === 'GET' && req.url === '/sse')
  t.same(streams.map((req) => req.headers.authorization), [undefined, 'Bearer issued-token'])
})

each('a cross-origin redirect is refused (the SDK\'s same-origin redirectPolicy)', async (t, { SSEClientTransport, SseError }) => {
  const elsewhere = await mcpServer(t)
  const srv = await mcpServer(t, {
    routes: { '/sse': (req, res) => res.writeHead(302, { location: elsewhere.url('/sse') }).end() }
  })
  const transport = new SSEClientTransport(new URL(srv.url('/sse')))
  const client = new Client({ name: 'test-client', version: '1.0.0' })
  t.teardown(() => client.close())
  const err = await client.connect(transport).then(() => null, (err) => err)
  t.ok(err instanceof SseError, 'connect() fails with an SseError')
  t.equal(err?.code, 302, 'the error event\'s code: the status')
  t.match(err?.message, `Redirect to ${elsewhere.url('/sse')} not followed`)
  t.equal(elsewhere.requests.length, 0, 'nothing was sent to the other origin')
})

each('a same-origin redirect is followed by the SDK\'s fetch', async (t, { SSEClientTransport }) => {
  const srv = await mcpServer(t, {
    routes: { '/old': (req, res) => res.writeHead(307, { location: '/sse' }).end() }
  })
  const transport = new SSEClientTransport(new URL(srv.url('/old')))
  await useTools(t, await connect(t, transport))
  t.same(srv.requests.slice(0, 2).map((req) => req.url), ['/old', '/sse'])
})

each('a custom fetch is used', async (t, { SSEClientTransport }) => {
  const srv = await mcpServer(t)
  const seen = []
  const customFetch = (url, init) => {
    seen.push(`${init?.method ?? 'GET'} ${new URL(url).pathname}`)
    return fetch(url, init)
  }
  const transport = new SSEClientTransport(new URL(srv.url('/sse')), { fetch: customFetch })
  await useTools(t, await connect(t, transport))
  t.equal(seen[0], 'GET /sse', 'the event stream request')
  t.ok(seen.filter((call) => call === 'POST /messages').length >= 3, 'the messages')
})
