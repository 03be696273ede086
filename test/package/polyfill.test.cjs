'use strict'

// whatwg-eventsource/polyfill, in fresh processes (a global is process-wide): it defines
// globalThis.EventSource, and nothing else, only when there is none; CommonJS and ESM alike.

const t = require('tap')
const path = require('node:path')
const { runChild } = require('../helpers/index.cjs')

const root = path.join(__dirname, '..', '..')

// Runs `code` in a new Node process at the package root (without the test runner's loader hooks)
// and returns what it printed as JSON.
async function run (t, code, { esm = false } = {}) {
  const args = esm ? ['--input-type=module', '-e', code] : ['-e', code]
  const { code: status, report, stderr } = await runChild(t, args, { cwd: root, isolate: true }).exited(20_000)
  t.equal(status, 0, stderr)
  return report
}

const REPORT = `
  const added = Object.getOwnPropertyNames(globalThis).filter((name) => !before.includes(name))
  const descriptor = Object.getOwnPropertyDescriptor(globalThis, 'EventSource')
  console.log(JSON.stringify({
    added,
    ours: globalThis.EventSource === lib.EventSource,
    writable: descriptor.writable,
    enumerable: descriptor.enumerable,
    configurable: descriptor.configurable
  }))`

t.test('require() defines globalThis.EventSource when it is absent, and nothing else', async (t) => {
  const result = await run(t, `
    const before = Object.getOwnPropertyNames(globalThis)
    require('whatwg-eventsource/polyfill')
    const lib = require('whatwg-eventsource')
    ${REPORT}`)
  t.same(result, { added: ['EventSource'], ours: true, writable: true, enumerable: false, configurable: true })
})

t.test('import defines it too', async (t) => {
  const result = await run(t, `
    const before = Object.getOwnPropertyNames(globalThis)
    await import('whatwg-eventsource/polyfill')
    const lib = await import('whatwg-eventsource')
    ${REPORT}`, { esm: true })
  t.same(result, { added: ['EventSource'], ours: true, writable: true, enumerable: false, configurable: true })
})

t.test('an EventSource already there is left alone', async (t) => {
  for (const esm of [false, true]) {
    const load = esm ? "await import('whatwg-eventsource/polyfill')" : "require('whatwg-eventsource/polyfill')"
    const result = await run(t, `
      class Existing {}
      globalThis.EventSource = Existing
      ${load}
      console.log(JSON.stringify({ kept: globalThis.EventSource === Existing }))`, { esm })
    t.same(result, { kept: true }, esm ? 'import' : 'require')
  }
})
