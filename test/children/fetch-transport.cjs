'use strict'

// A fresh process for test/transport/fetch-transport.test.cjs: which transport an EventSource takes, and what it
// loads, where the test runner's own modules cannot interfere.
//
//   node test/children/fetch-transport.cjs <mode> <event stream URL> <expected log as JSON>
//
// mode:
//   dispatcher     no `fetch` in the init, undici as installed: the Dispatcher transport
//   init-fetch     `fetch: globalThis.fetch` in the init: the fetch transport, and undici never loaded
//   node-fetch     Node's own fetch() runs first and fills undici's global slot with the Agent of the
//                  undici inside Node: the Dispatcher transport on it, and the undici package never loaded
//   no-undici      require('undici') and its files fail (a runtime without it): the fetch transport,
//                  with globalThis.fetch, without `fetch` in the init
//   foreign-undici require('undici') answers with a module of another runtime's making, whose global
//                  dispatcher has no dispatch(), and undici's files are not there: the same
//   bun            process.versions.bun is set (Bun answers require('undici') with its own module but a
//                  deep path with the npm package's file): the same, without loading either
//   document       a `document` global, as in a browser, and no undici, as there: the runtime's fetch,
//                  which is left to follow redirects from the first call
//
// Which transport carried the attempts is told by which of the package's own functions ran: lib/ is ES
// modules, loaded whole by the entry's static imports (and not in require.cache), so the fetch transport's
// file is there either way; its FetchAttempt is constructed only for an attempt it carries. The calls are
// counted by V8's precise coverage, taken through the inspector in this process. In `document` mode, where
// the fetch transport is the one expected, globalThis.fetch is wrapped to record the redirect mode of each
// call. (Anywhere else a wrapped globalThis.fetch would itself send the default transport through it:
// lib/transport/transport-node.js.)
//
// The EventSource is closed once it has reported what the parent expects, or something else. The child
// prints one JSON line: the log, the calls of globalThis.fetch in `document` mode (the redirect mode of
// each), the undici modules loaded (files under node_modules/undici/, as paths from there; undici is
// CommonJS, required when first used), the calls of the package's own functions (per file of lib/, by
// function name, the modules' bodies left out), by the end and as the first message event was dispatched,
// and whether the undici inside Node was.

const Module = require('node:module')
const path = require('node:path')
const fs = require('node:fs')
const { Session } = require('node:inspector')
const { pathToFileURL } = require('node:url')

const [mode, url, expectedJson] = process.argv.slice(2)

// Set before the library is loaded, which looks for it once.
if (mode === 'document') globalThis.document = {}

const runtimeFetch = globalThis.fetch
const redirects = []
if (mode === 'document') {
  globalThis.fetch = function recordingFetch (input, init) {
    redirects.push(init?.redirect)
    return runtimeFetch(input, init)
  }
}

// Installed before the library is loaded: every require('undici') from then on goes through it.
if (mode === 'no-undici' || mode === 'foreign-undici' || mode === 'document') {
  const load = Module._load
  Module._load = function (request, parent, isMain) {
    if (request !== 'undici' && !request.startsWith('undici/')) return load.call(this, request, parent, isMain)
    if (mode === 'foreign-undici' && request === 'undici') return { getGlobalDispatcher: () => ({ name: 'not undici' }) }
    const err = new Error("Cannot find module 'undici'")
    err.code = 'MODULE_NOT_FOUND'
    throw err
  }
}

if (mode === 'bun') Object.defineProperty(process.versions, 'bun', { value: '1.3.0', enumerable: true })

// Counting starts before the library is loaded. The same mode as NODE_V8_COVERAGE's (c8, when the tests
// measure coverage): taking the counts resets them, so each take is also written where V8 would write it.
const session = new Session()
session.connect()
session.post('Profiler.enable')
session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: true })
let takes = 0

/**
 * The calls of the package's own functions since the last take: lib/ file -> function name -> calls. (The
 * in-process session answers at once: post() has called back when it returns.)
 */
function libCalls () {
  let coverage
  session.post('Profiler.takePreciseCoverage', (err, taken) => {
    if (err) throw err
    coverage = taken.result
  })
  if (process.env.NODE_V8_COVERAGE) {
    const file = path.join(process.env.NODE_V8_COVERAGE, `coverage-${process.pid}-${Date.now()}-${takes++}.json`)
    fs.writeFileSync(file, JSON.stringify({ result: coverage }))
  }
  const libUrl = pathToFileURL(path.join(__dirname, '..', '..', 'lib')).href + '/'
  const calls = {}
  for (const { url, functions } of coverage) {
    if (!url.startsWith(libUrl)) continue
    const counts = calls[url.slice(libUrl.length)] = {}
    // A function's first range is all of it, with its calls; the module's body starts at 0.
    for (const { functionName, ranges: [{ startOffset, count }] } of functions) {
      if (startOffset === 0 || count === 0) continue
      const name = functionName || '(anonymous)'
      counts[name] = (counts[name] ?? 0) + count
    }
  }
  return calls
}

const { recordExpected } = require('../helpers/recorder.cjs')
const { EventSource } = require('../..')

async function main () {
  if (mode === 'node-fetch') await (await runtimeFetch('data:,')).text()
  const init = { reconnectionTime: 10 }
  if (mode === 'init-fetch') init.fetch = globalThis.fetch
  const es = new EventSource(url, init)
  let libAtFirstMessage = null
  es.addEventListener('message', () => { libAtFirstMessage = libCalls() }, { once: true })
  const log = await recordExpected(es, JSON.parse(expectedJson))
  const marker = `${path.sep}node_modules${path.sep}undici${path.sep}`
  const undici = Object.keys(require.cache).filter((file) => file.includes(marker))
    .map((file) => file.slice(file.lastIndexOf(marker) + marker.length).split(path.sep).join('/'))
  // What else a first connection ran: the package's own functions (the counts at the first message and
  // those since), and whether the undici inside Node was loaded (Node 22 and later: the global
  // MessageEvent is that undici's).
  const lib = structuredClone(libAtFirstMessage ?? {})
  for (const [file, counts] of Object.entries(libCalls())) {
    lib[file] ??= {}
    for (const [name, count] of Object.entries(counts)) lib[file][name] = (lib[file][name] ?? 0) + count
  }
  const nodeUndici = process.moduleLoadList.includes('NativeModule internal/deps/undici/undici')
  process.stdout.write(`${JSON.stringify({ mode, log, undici, redirects, lib, libAtFirstMessage, nodeUndici })}\n`)
}

main().catch((err) => {
  process.stdout.write(`${JSON.stringify({ mode, error: String(err.stack) })}\n`)
  process.exitCode = 1
})
