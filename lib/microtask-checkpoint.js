'use strict'

// "Run this once the microtask queue is empty": what a browser's event loop does between two tasks
// (HTML "perform a microtask checkpoint", https://html.spec.whatwg.org/multipage/webappapis.html#perform-a-microtask-checkpoint).
// An EventSource dispatches each event from its own task, so promise continuations that a listener
// starts run before the next event, however long their chain is.
//
// How, on Node: a promise job queues a process.nextTick callback. Node runs nextTick callbacks only
// once the microtask queue has been drained completely (processTicksAndRejections: ticks, then
// runMicrotasks() until empty, then the ticks queued meanwhile), so the callback runs after every
// continuation the listener started, including continuations of continuations. A tick queued
// directly would not do: from a socket callback it runs before the microtasks, and from inside a
// tick it runs straight after, with no checkpoint in between. The promise job is what moves it
// behind the checkpoint.
//
// Neither is a timer. Test suites fake timers (Jest, @sinonjs/fake-timers), and Sinon's defaults
// fake process.nextick and queueMicrotask as well, so nextTick is taken once, when this module is
// loaded: fake timers installed after that cannot stall event dispatch.
//
// Without process.nextTick (no runtime here lacks it yet; browsers will), a chain of promise jobs
// stands in: the callback then runs after continuation chains shorter than FALLBACK_DEPTH jobs.

const nextTick = typeof globalThis.process?.nextTick === 'function' ? globalThis.process.nextTick : null
const resolved = Promise.resolve()

// How many promise jobs the fallback waits: `await` on a native promise costs one job, on a
// thenable three, and an async function's return another; 16 covers a few nested awaits.
const FALLBACK_DEPTH = 16

// The callbacks waiting, two slots each (callback, argument), oldest first from `head`. One hop (a
// promise job, then a tick) is under way at a time, and each runs one callback: two callbacks never
// run back to back without a checkpoint between them, whichever EventSources they belong to, and no
// closure is made per call (this runs once per event).
const waiting = []
let head = 0
let hopping = false

function hop () {
  if (nextTick !== null) resolved.then(queueTick)
  else fallbackHop(FALLBACK_DEPTH)
}

function queueTick () {
  nextTick(runOldest)
}

function fallbackHop (depth) {
  if (depth === 0) runOldest()
  else resolved.then(() => fallbackHop(depth - 1))
}

function runOldest () {
  const callback = waiting[head]
  const arg = waiting[head + 1]
  waiting[head] = waiting[head + 1] = undefined
  head += 2
  if (head === waiting.length) {
    // Every entry has had its turn: start from the front again.
    waiting.length = 0
    head = 0
    hopping = false
  } else {
    hop()
  }
  callback(arg)
}

/**
 * Calls `callback(arg)` after a microtask checkpoint that follows this call and the callback asked
 * for before it.
 * @template T
 * @param {(arg: T) => void} callback
 * @param {T} arg
 */
function afterMicrotaskCheckpoint (callback, arg) {
  waiting.push(callback, arg)
  if (!hopping) {
    hopping = true
    hop()
  }
}

module.exports = { afterMicrotaskCheckpoint, FALLBACK_DEPTH }
