'use strict'

// A fresh process for test/transport/fetch-transport.test.js: which transport an EventSource takes, and what it
// loads, where the test runner's own modules cannot interfere.
//
//   node test/children/fetch-transport.js <mode> <event stream URL> <expected log as JSON>
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
// Which transport carried the attempts is told by the package's own modules loaded: the fetch transport's
// file is loaded by the first source that takes it. In `document` mode, where the fetch transport is the
// one expected, globalThis.fetch is wrapped to record the redirect mode of each call. (Anywhere else a
// wrapped globalThis.fetch would itself send the default transport through it: lib/transport/transport-node.js.)
//
// The EventSource is closed once it has reported what the parent expects, or something else. The child
// prints one JSON line: the log, the calls of globalThis.fetch in `document` mode (the redirect mode of
// each), the undici modules loaded (files under node_modules/undici/, as paths from there), the package's
// own modules loaded (lib/), by the end and as the first message event was dispatched, and whether the
// undici inside Node was.

const Module = require('node:module')
const path = require('node:path')

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

const { recordExpected } = require('../helpers/recorder')
const { EventSource } = require('../..')

async function main () {
  if (mode === 'node-fetch') await (await runtimeFetch('data:,')).text()
  const init = { reconnectionTime: 10 }
  if (mode === 'init-fetch') init.fetch = globalThis.fetch
  const es = new EventSource(url, init)
  let libAtFirstMessage = null
  es.addEventListener('message', () => { libAtFirstMessage = libFiles() }, { once: true })
  const log = await recordExpected(es, JSON.parse(expectedJson))
  const marker = `${path.sep}node_modules${path.sep}undici${path.sep}`
  const undici = Object.keys(require.cache).filter((file) => file.includes(marker))
    .map((file) => file.slice(file.lastIndexOf(marker) + marker.length).split(path.sep).join('/'))
  // What else a first connection loaded (cold start, benchmarks/startup): the package's own files, and
  // whether the undici inside Node was (Node 22 and later: the global MessageEvent is that undici's).
  const lib = libFiles()
  const nodeUndici = process.moduleLoadList.includes('NativeModule internal/deps/undici/undici')
  process.stdout.write(`${JSON.stringify({ mode, log, undici, redirects, lib, libAtFirstMessage, nodeUndici })}\n`)
}

// The package's own files loaded so far, as paths from lib/.
function libFiles () {
  const libDir = path.join(__dirname, '..', '..', 'lib') + path.sep
  return Object.keys(require.cache).filter((file) => file.startsWith(libDir))
    .map((file) => file.slice(libDir.length).split(path.sep).join('/'))
}

main().catch((err) => {
  process.stdout.write(`${JSON.stringify({ mode, error: String(err.stack) })}\n`)
  process.exitCode = 1
})
