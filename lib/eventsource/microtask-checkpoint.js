// afterMicrotaskCheckpoint(callback, arg): calls back once the microtask queue is empty, what a
// browser's event loop does after every task (HTML "perform a microtask checkpoint",
// https://html.spec.whatwg.org/multipage/webappapis.html#perform-a-microtask-checkpoint): every
// promise continuation that ran code started, however long its chain, has run. It is the wait between
// two tasks of an EventSource (lib/eventsource/task-queue.js: after every task where listeners cannot be
// counted, after some on Node), and is not a timer.
//
// On Node a promise job queues a process.nextTick callback: Node runs nextTick callbacks only once the
// microtask queue has been drained completely (processTicksAndRejections: ticks, then runMicrotasks()
// until empty, then the ticks queued meanwhile). A tick queued directly would not do: from a socket
// callback it runs before the microtasks, and from inside a tick straight after it, with no checkpoint
// in between; the promise job is what moves it behind the checkpoint.
//
// Test suites fake timers (Jest, @sinonjs/fake-timers), and Sinon's defaults fake process.nextTick and
// queueMicrotask as well, so nextTick is taken once, when this module is loaded: fake timers installed
// after that cannot stall event dispatch; promise jobs cannot be faked at all. Without
// process.nextTick (browsers and workers), a chain of promise jobs stands in for the checkpoint: the
// callback then runs after continuation chains shorter than FALLBACK_DEPTH jobs.
//
// The callbacks wait in a first-in first-out queue (two slots each: callback, argument), so that no
// closure is made per call. Promise jobs and nextTick callbacks run in the order they were queued, so
// the n-th to run takes the n-th entry.

const nextTick = typeof globalThis.process?.nextTick === 'function' ? globalThis.process.nextTick : null
const resolved = Promise.resolve()

// How many promise jobs the fallback waits: `await` on a native promise costs one job, on a
// thenable three, and an async function's return another; 16 covers a few nested awaits.
const FALLBACK_DEPTH = 16

/** Callbacks with their argument, called one at a time, oldest first. */
class CallbackQueue {
  #slots = []
  #head = 0
  #tail = 0

  get empty () {
    return this.#head === this.#tail
  }

  push (callback, arg) {
    this.#slots[this.#tail] = callback
    this.#slots[this.#tail + 1] = arg
    this.#tail += 2
  }

  // Takes the oldest entry and calls it. The array is reused from the front once empty (resetting
  // its length instead costs a runtime call per event).
  runOldest () {
    const slots = this.#slots
    const head = this.#head
    const callback = slots[head]
    const arg = slots[head + 1]
    slots[head] = slots[head + 1] = undefined
    if (head + 2 === this.#tail) this.#head = this.#tail = 0
    else this.#head = head + 2
    callback(arg)
  }
}

// One checkpoint hop is under way at a time, and each runs one callback: two callbacks never run back
// to back without a checkpoint between them, whichever EventSources they belong to.
const afterCheckpoint = new CallbackQueue()
let hopping = false

function hop () {
  if (nextTick !== null) resolved.then(queueTick)
  else fallbackHop(FALLBACK_DEPTH)
}

function queueTick () {
  nextTick(runAfterCheckpoint)
}

function fallbackHop (depth) {
  if (depth === 0) runAfterCheckpoint()
  else resolved.then(() => fallbackHop(depth - 1))
}

function runAfterCheckpoint () {
  try {
    afterCheckpoint.runOldest()
  } finally {
    // The callback may have asked for another checkpoint: that one comes after this one's callers.
    if (afterCheckpoint.empty) hopping = false
    else hop()
  }
}

/**
 * Calls `callback(arg)` after a microtask checkpoint that follows this call and the callback asked
 * for before it.
 * @template T
 * @param {(arg: T) => void} callback
 * @param {T} arg
 */
function afterMicrotaskCheckpoint (callback, arg) {
  afterCheckpoint.push(callback, arg)
  if (!hopping) {
    hopping = true
    hop()
  }
}

export {
  afterMicrotaskCheckpoint,
  CallbackQueue,
  // Only the fallback uses it, and only a runtime without process.nextTick takes the fallback, which no
  // public path on Node reaches: test/eventsource/microtask-checkpoint.test.cjs loads the module without nextTick
  // and needs the depth to build a chain just short of it.
  FALLBACK_DEPTH
}
