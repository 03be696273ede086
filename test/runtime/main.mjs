// The runtime suite on Node, Bun and Deno: `<runtime> main.mjs '<config JSON>'`, run by
// test/runtime/run.mjs from a directory where the packed package is installed in node_modules, so that
// `whatwg-eventsource` resolves as it does for a user (Deno through its npm compatibility).

import * as pkg from 'whatwg-eventsource'
import { runSuite } from './suite.mjs'

// The drop-in entry points, each imported by the test that needs it.
const ENTRIES = {
  eventsource: () => import('whatwg-eventsource/eventsource'),
  parser: () => import('whatwg-eventsource/parser'),
  'parser/stream': () => import('whatwg-eventsource/parser/stream')
}

const deno = globalThis.Deno
const args = deno?.args ?? process.argv.slice(2)
const config = JSON.parse(args[0])
const runtime = deno !== undefined
  ? `Deno ${deno.version.deno}`
  : globalThis.Bun !== undefined ? `Bun ${globalThis.Bun.version}` : `Node ${process.version}`
console.log(`# runtime: ${runtime}`)

const { failed } = await runSuite({
  ...config,
  pkg,
  loadPolyfill: () => import('whatwg-eventsource/polyfill'),
  loadEntry: (name) => ENTRIES[name](),
  browser: false,
  log: (line) => console.log(line)
})
// Sources a failed test left behind must not keep the process alive.
if (deno !== undefined) deno.exit(failed === 0 ? 0 : 1)
else process.exit(failed === 0 ? 0 : 1)
