'use strict'

// Every entry point bundles for a page and for a worker, with esbuild and with Rollup, as a front-end build
// makes it from the package as a user installs it (test/helpers/bundle.cjs); no bundle holds a Node
// built-in, undici or a Node-only module of the package, and each runs where only web APIs exist (a vm
// context with a browser's globals and nothing of Node's), against servers on 127.0.0.1. What the web
// build does differently from Node's (docs/browser.md) is checked here on the bundle itself: short error
// messages, redirects left to the fetch, credentials in the URL not used.

const t = require('tap')
const fs = require('node:fs')
const path = require('node:path')
const { pathToFileURL } = require('node:url')
const { serve, sse, bounded, packedInstall, bundle, runBundled, NODE_ONLY, BUNDLERS, TARGETS } = require('../helpers/index.cjs')

const root = path.join(__dirname, '..', '..')
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'))

// One statement per entry point, and what running its bundle checks.
const ENTRIES = [
  { name: 'whatwg-eventsource', source: "export * from 'whatwg-eventsource'", run: runMain },
  { name: 'whatwg-eventsource/extensions', source: "export * from 'whatwg-eventsource/extensions'", run: runWithExtensions },
  { name: 'whatwg-eventsource/polyfill', source: "import 'whatwg-eventsource/polyfill'", run: runPolyfill },
  { name: 'whatwg-eventsource/eventsource', source: "export * from 'whatwg-eventsource/eventsource'", run: runEventsourcePackage },
  { name: 'whatwg-eventsource/parser', source: "export * from 'whatwg-eventsource/parser'", run: runParser },
  { name: 'whatwg-eventsource/parser/stream', source: "export * from 'whatwg-eventsource/parser/stream'", run: runParserStream }
]

// Resolves with the first event of `type` a target dispatches, within the tests' bound.
function next (target, type) {
  return bounded(new Promise((resolve) => target.addEventListener(type, resolve, { once: true })), `a ${type} event`)
}

async function readAll (stream) {
  const out = []
  for await (const chunk of stream) out.push(chunk)
  return out
}

const dir = packedInstall(t)
let servers

t.before(async () => {
  const other = await serve(t, (req, res) => {
    // The reconnection of the source that was redirected here ends at once.
    sse(res, 'id: 2\ndata: elsewhere\n\n')
  })
  const main = await serve(t, (req, res) => {
    const url = new URL(req.url, 'http://x')
    if (url.pathname === '/events') return sse(res, 'id: 1\ndata: hello\n\n', { end: false })
    if (url.pathname === '/missing') return res.writeHead(404, { 'content-type': 'text/plain' }).end('no')
    if (url.pathname === '/away') return res.writeHead(302, { location: other.url('/there') }).end()
    if (url.pathname === '/auth') return res.writeHead(401, { 'www-authenticate': 'Basic realm="x"' }).end()
    if (url.pathname === '/loop') return res.writeHead(302, { location: '/loop' }).end()
    res.writeHead(500).end()
  })
  servers = { main, other }
})

async function runMain (t, exports, context) {
  const { EventSource, EventSourceParser, EventSourceParserStream, EventSourceErrorEvent } = exports
  t.same(Object.keys(exports).sort(), ['EventSource', 'EventSourceErrorEvent', 'EventSourceParser', 'EventSourceParserStream'])

  const events = []
  const parser = new EventSourceParser({ onEvent: (type, data, id) => events.push([type, data, id]) })
  parser.write(new TextEncoder().encode('id: 7\nevent: up\ndata: a\ndata: é\n\n'))
  t.same(events, [['up', 'a\né', '7']], 'EventSourceParser')
  const stream = new ReadableStream({ start (c) { c.enqueue('data: s\n\n'); c.close() } }).pipeThrough(new EventSourceParserStream())
  t.same((await readAll(stream)).map((event) => event.data), ['s'], 'EventSourceParserStream')

  const { main } = servers
  const source = new EventSource(main.url('/events'))
  const message = await next(source, 'message')
  t.ok(message instanceof MessageEvent, 'a MessageEvent')
  t.same([message.data, message.lastEventId, message.origin, source.readyState], ['hello', '1', main.origin, EventSource.OPEN])
  source.close()

  // The extensions are not in this build: an init that uses one throws, naming the member and where it is;
  // so does `for await`. The standard's withCredentials is taken.
  const thrown = (fn) => { try { fn() } catch (err) { return err } }
  for (const [init, member] of [[{ headers: { authorization: 'Bearer t' } }, 'init.headers'], [{ withCredentials: true, reconnectionTime: 1 }, 'init.reconnectionTime'],
    [{ dispatcher: {} }, 'init.dispatcher']]) {
    const err = thrown(() => new EventSource(main.url('/events'), init))
    t.same([err?.code, err?.name, err?.message],
      ['ERR_EVENTSOURCE_EXTENSION_NOT_LOADED', 'TypeError', `${member} is an extension of whatwg-eventsource, not part of this build: the EventSource of 'whatwg-eventsource/extensions' has it`],
      `${member}: refused, not ignored`)
  }
  const sent = main.requests.length
  const standard = new EventSource(main.url('/events'), { withCredentials: true, headers: undefined })
  t.equal(standard.withCredentials, true, 'withCredentials')
  const iterating = thrown(() => standard[Symbol.asyncIterator]())
  t.same([iterating?.code, iterating?.name], ['ERR_EVENTSOURCE_EXTENSION_NOT_LOADED', 'TypeError'], 'for await: refused')
  t.match(iterating?.message, /^for await .*'whatwg-eventsource\/extensions'/)
  t.equal((await next(standard, 'message')).data, 'hello', 'the standard EventSource runs')
  standard.close()
  t.same(main.requests.slice(sent).map((req) => req.url), ['/events'], 'one request: nothing was sent for the refused inits')

  // The web build's error messages: the code in words and its values; the code and the rest as on Node.
  const failing = new EventSource(main.url('/missing'))
  const error = await next(failing, 'error')
  t.ok(error instanceof EventSourceErrorEvent)
  t.same([error.code, error.message, error.status, failing.readyState], ['ERR_EVENTSOURCE_BAD_STATUS', 'bad status: 404, Not Found', 404, EventSource.CLOSED])

  // A redirect loop is the fetch's network error, and reconnects (Node's transports fail the connection).
  const looping = new EventSource(main.url('/loop'))
  const loop = await next(looping, 'error')
  t.same([loop.code, loop.willReconnect, looping.readyState], ['ERR_EVENTSOURCE_NETWORK', true, EventSource.CONNECTING], 'a redirect loop')
  looping.close()

  // No Origin header of ours, even where there is a document at another origin (a browser sends its own).
  context.location = { href: 'http://page.example/app/' }
  const fromPage = new EventSource(main.url('/events'))
  await next(fromPage, 'message')
  fromPage.close()
  delete context.location
  t.equal(main.requests.at(-1).headers.origin, undefined, 'no Origin header')

  // Credentials in the URL are not used: a browser's fetch refuses them, and a 401 is the response.
  const before = main.requests.length
  const withCredentials = new EventSource(main.url('/auth').replace('http://', 'http://user:pw@'))
  const denied = await next(withCredentials, 'error')
  t.same([denied.code, denied.status, main.requests.slice(before).map((req) => req.headers.authorization ?? null)],
    ['ERR_EVENTSOURCE_BAD_STATUS', 401, [null]], 'one request, no Authorization from the URL')
}

// The EventSource of whatwg-eventsource/extensions: every member of the init, and `for await`.
async function runWithExtensions (t, exports) {
  const { EventSource } = exports
  t.same(Object.keys(exports), ['EventSource'])
  const { main, other } = servers

  // dispatcher and http2 are Node's: validated as there, then ignored.
  const nodeOptions = new EventSource(main.url('/events'), { http2: true, dispatcher: { dispatch () { throw new Error('not here') } } })
  t.equal((await next(nodeOptions, 'message')).data, 'hello', 'dispatcher and http2 ignored')
  nodeOptions.close()
  let invalid
  try {
    // eslint-disable-next-line no-new -- it throws
    new EventSource(main.url('/events'), { http2: 'yes' })
  } catch (err) {
    invalid = err
  }
  // (A TypeError of the bundle's realm, the vm context's.)
  t.same([invalid?.code, invalid?.name, String(invalid)],
    ['ERR_INVALID_ARG_TYPE', 'TypeError', 'TypeError [ERR_INVALID_ARG_TYPE]: invalid arg type: init.http2, of type boolean or object, yes'],
    'a bad http2 throws what it throws on Node, with the short message')

  // Redirects are the fetch's: it follows them (and drops Authorization at the other origin itself); the
  // reconnection goes straight to the final URL, without the credentials, which are the first origin's.
  const redirected = new EventSource(main.url('/away'), { headers: { authorization: 'Bearer t', 'x-kept': 'k' }, reconnectionTime: 1 })
  t.equal((await next(redirected, 'message')).origin, other.origin)
  await next(redirected, 'message')
  redirected.close()
  t.same(other.requests.map((req) => [req.url, req.headers.authorization ?? null, req.headers['x-kept']]),
    [['/there', null, 'k'], ['/there', null, 'k']], 'the other origin never saw the credentials')
  other.requests.length = 0

  // for await, and headers sent.
  const before = main.requests.length
  const iterated = new EventSource(main.url('/events'), { headers: { 'x-token': 't' } })
  for await (const event of iterated) { // eslint-disable-line no-unreachable-loop -- leaving the loop is what is tested
    t.equal(event.data, 'hello', 'for await')
    break
  }
  t.equal(iterated.readyState, EventSource.CLOSED, 'leaving the loop closed the source')
  t.same(main.requests.slice(before).map((req) => req.headers['x-token']), ['t'], 'the header went with the request')
}

async function runPolyfill (t, exports, context) {
  t.same(Object.keys(exports), [], 'nothing exported')
  const { EventSource } = context
  t.equal(typeof EventSource, 'function', 'globalThis.EventSource, where there was none')
  t.same(Object.getOwnPropertyDescriptor(context, 'EventSource').enumerable, false)
  const source = new EventSource(servers.main.url('/events'))
  t.equal((await next(source, 'message')).data, 'hello')
  source.close()
}

async function runEventsourcePackage (t, { EventSource, ErrorEvent }) {
  t.equal(typeof ErrorEvent, 'function')
  const source = new EventSource(servers.main.url('/events'))
  const message = await next(source, 'message')
  t.same([message.data, message.lastEventId], ['hello', '1'])
  source.close()
}

async function runParser (t, { createParser, ParseError }) {
  t.equal(typeof ParseError, 'function')
  const events = []
  const parser = createParser({ onEvent: (event) => events.push(event.data) })
  parser.feed('data: a\n\ndata: ')
  parser.feed('b\n\n')
  t.same(events, ['a', 'b'])
}

async function runParserStream (t, { EventSourceParserStream }) {
  const stream = new ReadableStream({ start (c) { c.enqueue('data: a\n\nda'); c.enqueue('ta: b\n\n'); c.close() } })
  t.same((await readAll(stream.pipeThrough(new EventSourceParserStream()))).map((event) => event.data), ['a', 'b'])
}

for (const entry of ENTRIES) {
  for (const bundler of BUNDLERS) {
    for (const target of TARGETS) {
      t.test(`${entry.name}: ${bundler}, for a ${target === 'browser' ? 'page' : 'worker'}`, async (t) => {
        let bundled
        try {
          bundled = await bundle(bundler, target, entry.source, dir)
        } catch (err) {
          t.fail(`it bundles: ${err.errors?.[0]?.text ?? err.message}`)
          return
        }
        t.same(bundled.external, [], 'nothing left for the runtime to import')
        t.same(bundled.modules.filter((file) => NODE_ONLY.test(file) || file.startsWith('node:')), [], 'no Node-only module, no undici')
        t.notMatch(bundled.code, /\brequire\(\s*["'](?:node:|undici)|\bfrom\s*["'](?:node:|undici)|\bimport\(\s*["'](?:node:|undici)/,
          'no import or require of a Node built-in or undici in the code')
        let run
        try {
          run = runBundled(bundled.code)
        } catch (err) {
          t.fail(`it runs: ${err.message}`)
          return
        }
        await entry.run(t, run.exports, run.context)
      })
    }
  }
}

t.test('importing a parser never pulls in the EventSource', async (t) => {
  const cases = [
    { source: "export { EventSourceParser } from 'whatwg-eventsource'" },
    { source: "export { EventSourceParserStream } from 'whatwg-eventsource'" },
    { source: "export * from 'whatwg-eventsource/parser'" },
    { source: "export * from 'whatwg-eventsource/parser/stream'" }
  ]
  for (const { source } of cases) {
    for (const bundler of BUNDLERS) {
      let modules
      try {
        ({ modules } = await bundle(bundler, 'browser', source, dir))
      } catch (err) {
        t.fail(`${source}, ${bundler}: it bundles: ${err.errors?.[0]?.text ?? err.message}`)
        continue
      }
      t.ok(modules.some((file) => /^lib\/(?:compat\/eventsource-)?parser\//.test(file)), `${source}, ${bundler}: the parser`)
      t.same(modules.filter((file) => /^lib\/(?:eventsource|transport)\//.test(file)), [], `${source}, ${bundler}: no EventSource, no transport`)
    }
  }
})

// A module that a browser build loads takes names from the web side of an import of package.json's
// "imports": the web side must have each (lib/platform/bytes-web.js has fewer functions than its Node side).
// A bundler stops at a name that is missing; this names the module and the import. The modules are those
// of lib/ but the Node sides of the imports and the Node-only ones.
t.test('every name a module of a browser build takes from an import is on its web side', async (t) => {
  let checked = 0
  const nodeSides = Object.values(pkg.imports).map((sides) => path.posix.normalize(sides.node))
  const sources = fs.readdirSync(path.join(root, 'lib'), { recursive: true }).filter((file) => file.endsWith('.js'))
    .filter((file) => !NODE_ONLY.test(`lib/${file}`) && !nodeSides.includes(`lib/${file}`))
  t.ok(sources.length >= 30, `${sources.length} modules`)
  for (const file of sources) {
    const text = fs.readFileSync(path.join(root, 'lib', file), 'utf8')
    for (const [, names, spec] of text.matchAll(/^import \{([^}]+)\} from '(#[a-z-]+)'/gm)) {
      if (pkg.imports[spec].default === undefined) continue
      const web = await import(pathToFileURL(path.join(root, pkg.imports[spec].default)).href)
      for (const name of names.split(',').map((part) => part.trim().split(/\s+as\s+/)[0]).filter(Boolean)) {
        checked++
        t.ok(Object.hasOwn(web, name), `lib/${file}: ${spec} ${name}`)
      }
    }
  }
  t.ok(checked >= 15, `${checked} names`)
})
