// The runtime suite in Chromium, in a page or in a dedicated worker: test/runtime/run.mjs bundles this
// file with esbuild, with the `browser` condition for the page and the `worker` condition for the worker,
// and serves it from the loopback server. The configuration comes in the query string (`config`); lines
// go to the console in a page, and to the page in a worker (test/runtime/run.mjs relays both).

/* global location, postMessage */

// The suite uses every extension of the init: in a browser build, the EventSource of
// whatwg-eventsource/extensions has them (test/runtime/browser-standard.mjs runs the standard's tests on the
// main entry's, which has none).
import * as main from 'whatwg-eventsource'
import { EventSource } from 'whatwg-eventsource/extensions'
import { runSuite } from './suite.mjs'

// The drop-in entry points and the server's, each imported by the test that needs it (bundled into this file: esbuild
// inlines a dynamic import without code splitting). An entry that does not bundle for this target is
// replaced by test/runtime/run.mjs with a module whose `unavailable` says why, and its test is skipped.
const ENTRIES = {
  eventsource: () => import('whatwg-eventsource/eventsource'),
  parser: () => import('whatwg-eventsource/parser'),
  'parser/stream': () => import('whatwg-eventsource/parser/stream'),
  server: () => import('whatwg-eventsource/server')
}

const inWorker = typeof document === 'undefined'
const config = JSON.parse(new URL(location.href).searchParams.get('config'))
const log = inWorker ? (line) => postMessage({ line }) : (line) => console.log(line)
log(`# runtime: ${navigator.userAgent}${inWorker ? ' (dedicated worker)' : ''}`)

const pkg = { ...main, EventSource }

runSuite({
  ...config,
  pkg,
  loadPolyfill: () => import('whatwg-eventsource/polyfill'),
  loadEntry: (name) => ENTRIES[name](),
  browser: true,
  log
}).then((result) => {
  if (inWorker) postMessage({ result })
  else globalThis.suiteResult = result
}, (err) => {
  log(`not ok - the suite itself: ${err?.stack ?? err}`)
  const result = { passed: 0, failed: 1 }
  if (inWorker) postMessage({ result })
  else globalThis.suiteResult = result
})
