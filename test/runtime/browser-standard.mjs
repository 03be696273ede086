// The runtime suite's tests of the standard EventSource in Chromium, in a page bundled without
// whatwg-eventsource/extensions (test/runtime/run.mjs bundles it with the `browser` condition): what a
// browser build holds by default (docs/browser.md), and the error an extension gets there.

/* global location */

import * as pkg from 'whatwg-eventsource'
import { runSuite } from './suite.mjs'

const config = JSON.parse(new URL(location.href).searchParams.get('config'))
const log = (line) => console.log(line)
log(`# runtime: ${navigator.userAgent} (standard build, no extensions)`)

runSuite({
  ...config,
  pkg,
  loadPolyfill: () => Promise.reject(new Error('not in this build')),
  loadEntry: () => Promise.reject(new Error('not in this build')),
  browser: true,
  standardBuild: true,
  log
}).then((result) => {
  globalThis.suiteResult = result
}, (err) => {
  log(`not ok - the suite itself: ${err?.stack ?? err}`)
  globalThis.suiteResult = { passed: 0, failed: 1 }
})
