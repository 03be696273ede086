'use strict'

// A fresh process for test/fetch-transport.test.js: which transport an EventSource takes, and what it
// loads, where the test runner's own modules cannot interfere.
//
//   node test/children/fetch-transport.js <mode> <event stream URL> <expected log as JSON>
//
// mode:
//   dispatcher     no `fetch` in the init, undici as installed: the Dispatcher transport
//   init-fetch     `fetch: globalThis.fetch` in the init: the fetch transport, and undici never loaded
//   no-undici      require('undici') fails (a runtime without it): the fetch transport, with
//                  globalThis.fetch, without `fetch` in the init
//   foreign-undici require('undici') answers with a module of another runtime's making, whose global
//                  dispatcher has no dispatch() (as Bun's does): the same
//   document       a `document` global, as in a browser, and a user's fetch (Node's, recording the
//                  redirect mode of each call): redirects are left to the fetch from the first call
//
// The EventSource is closed once it has reported what the parent expects, or something else. The child
// prints one JSON line: the log, and the undici modules loaded (files under node_modules/undici/).

const Module = require('node:module')
const path = require('node:path')

const [mode, url, expectedJson] = process.argv.slice(2)

// Set before the library is loaded, which looks for it once.
if (mode === 'document') globalThis.document = {}

// Installed before the library is loaded: every require('undici') from then on goes through it.
if (mode === 'no-undici' || mode === 'foreign-undici') {
  const load = Module._load
  Module._load = function (request, parent, isMain) {
    if (request !== 'undici') return load.call(this, request, parent, isMain)
    if (mode === 'foreign-undici') return { getGlobalDispatcher: () => ({ name: 'not undici' }) }
    const err = new Error("Cannot find module 'undici'")
    err.code = 'MODULE_NOT_FOUND'
    throw err
  }
}

const { recordExpected } = require('../helpers/recorder')
const { EventSource } = require('../..')

async function main () {
  const init = { reconnectionTime: 10 }
  const redirects = []
  if (mode === 'init-fetch') init.fetch = globalThis.fetch
  if (mode === 'document') {
    init.fetch = (input, fetchInit) => {
      redirects.push(fetchInit.redirect)
      return globalThis.fetch(input, fetchInit)
    }
  }
  const es = new EventSource(url, init)
  const log = await recordExpected(es, JSON.parse(expectedJson))
  const marker = `${path.sep}node_modules${path.sep}undici${path.sep}`
  const undici = Object.keys(require.cache).filter((file) => file.includes(marker))
  process.stdout.write(`${JSON.stringify({ mode, log, undici, redirects })}\n`)
}

main().catch((err) => {
  process.stdout.write(`${JSON.stringify({ mode, error: String(err.stack) })}\n`)
  process.exitCode = 1
})
