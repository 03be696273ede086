'use strict'

// lib/eventsource/microtask-checkpoint.js: "after the next microtask checkpoint", without a timer: the wait
// between two tasks of an EventSource, on Node and (the fallback) in browsers.

const t = require('tap')
const path = require('node:path')
const { pathToFileURL } = require('node:url')

const MODULE = path.join(__dirname, '..', '..', 'lib', 'eventsource', 'microtask-checkpoint.js')

// A chain of `depth` promise jobs, each queued by the previous one; `log` gets 'chain' at its end.
function chain (depth, log) {
  let p = Promise.resolve()
  for (let i = 0; i < depth; i++) p = p.then(() => {})
  return p.then(() => log.push('chain'))
}

t.test('on Node: after every promise job, however deep the chain, and after queued nextTicks', async (t) => {
  const { afterMicrotaskCheckpoint } = require(MODULE)
  const log = []
  const done = new Promise((resolve) => {
    afterMicrotaskCheckpoint((arg) => { log.push(arg); resolve() }, 'callback')
  })
  chain(1000, log)
  process.nextTick(() => log.push('tick'))
  await done
  t.equal(log.at(-1), 'callback', 'the callback came last')
  t.same(log.slice().sort(), ['callback', 'chain', 'tick'])
})

t.test('on Node: callbacks run in the order they were asked for, one checkpoint each', async (t) => {
  const { afterMicrotaskCheckpoint } = require(MODULE)
  const log = []
  const done = new Promise((resolve) => {
    afterMicrotaskCheckpoint((arg) => {
      log.push(arg)
      // A chain started by the first callback ends before the second callback runs.
      chain(50, log)
    }, 'first')
    afterMicrotaskCheckpoint((arg) => log.push(arg), 'second')
    afterMicrotaskCheckpoint((arg) => { log.push(arg); resolve() }, 'third')
  })
  await done
  t.same(log, ['first', 'chain', 'second', 'third'])
})

t.test('without process.nextTick: after promise chains shorter than FALLBACK_DEPTH jobs, in order', async (t) => {
  // A fresh instance of the module (a URL of its own), evaluated while process.nextTick is gone: a module
  // that removes it, then this one, then one that puts it back, evaluated in that order in one go once all
  // three are loaded, so that nothing else runs meanwhile.
  const js = (code) => `data:text/javascript,${encodeURIComponent(code)}`
  globalThis.nodeNextTick = process.nextTick
  t.teardown(() => { delete globalThis.nodeNextTick })
  const fallback = await import(js([
    `import '${js('globalThis.process.nextTick = undefined')}'`,
    `export * from '${pathToFileURL(MODULE).href}?without-next-tick'`,
    `import '${js('globalThis.process.nextTick = globalThis.nodeNextTick')}'`
  ].join('\n')))
  t.equal(process.nextTick, globalThis.nodeNextTick, 'process.nextTick is back')
  t.not(fallback.afterMicrotaskCheckpoint, require(MODULE).afterMicrotaskCheckpoint, 'an instance of its own')
  const { afterMicrotaskCheckpoint, FALLBACK_DEPTH } = fallback
  // It is the fallback: a chain longer than FALLBACK_DEPTH jobs ends after the callback.
  const longer = []
  await new Promise((resolve) => {
    afterMicrotaskCheckpoint((arg) => { longer.push(arg); resolve() }, 'callback')
    chain(FALLBACK_DEPTH + 10, longer)
  })
  await chain(FALLBACK_DEPTH + 10, [])
  t.same(longer, ['callback', 'chain'], 'the callback before the end of a longer chain')
  t.ok(FALLBACK_DEPTH >= 8, `FALLBACK_DEPTH is ${FALLBACK_DEPTH}`)
  const log = []
  const done = new Promise((resolve) => {
    afterMicrotaskCheckpoint((arg) => log.push(arg), 'first')
    afterMicrotaskCheckpoint((arg) => { log.push(arg); resolve() }, 'second')
  })
  chain(FALLBACK_DEPTH - 2, log) // FALLBACK_DEPTH - 1 jobs, the last one the push
  await done
  t.same(log, ['chain', 'first', 'second'])
})
