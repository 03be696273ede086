'use strict'

// lib/eventsource/microtask-checkpoint.js: "after the next microtask checkpoint", without a timer: the wait
// between two tasks of an EventSource, on Node and (the fallback) in browsers.

const t = require('tap')
const path = require('node:path')

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
  const nextTick = process.nextTick
  delete require.cache[MODULE]
  process.nextTick = undefined
  let fallback
  try {
    fallback = require(MODULE)
  } finally {
    process.nextTick = nextTick
    delete require.cache[MODULE]
  }
  const { afterMicrotaskCheckpoint, FALLBACK_DEPTH } = fallback
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
