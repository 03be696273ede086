'use strict'

// The tasks of an EventSource, and when each may run. The standard dispatches every event from a task
// of its own, and a browser's event loop performs a microtask checkpoint after each: promise
// continuations a listener starts run before the next event, even when one network chunk held many.
// Code written for browsers relies on it (`await once(source, 'message')` in a loop must see every
// event). A TaskQueue runs its source's tasks in order, the first at once when no wait is under way,
// each next one after a wait:
// - a full microtask checkpoint, however deep the continuations go, before open, error and end, before
//   a message of a type nobody listens for right now, and after an event that a listener left (`once`).
//   That is what code that waits with promises needs: an `await once(source, type)` loop has no
//   listener until its continuation comes round again, through any number of awaits, races and helper
//   functions. A message still without a listener after the checkpoint is not even created;
// - otherwise, a message for listeners that stay: one promise job, so the continuations a listener
//   started directly have run. A full checkpoint costs about 0.5 us per event on Node, which would halve
//   the throughput of small events, and a listener that stays receives the next message whether or not
//   its continuations have finished.
// Whether anyone listens is asked when a message's task runs, not when it was parsed: a listener may
// have been added by a continuation of the previous task. The listener count is the platform's
// (lib/platform/listeners-node.js, lib/platform/listeners-web.js).
//
// Neither wait is a timer. The short one is one promise job (`promise.then(f)`, about 60 ns). The long
// one is afterMicrotaskCheckpoint(callback, arg), below: once the microtask queue is empty, what a
// browser's event loop does after every task (HTML "perform a microtask checkpoint",
// https://html.spec.whatwg.org/multipage/webappapis.html#perform-a-microtask-checkpoint): every
// promise continuation that ran code started, however long its chain, has run. On Node a promise job
// queues a process.nextTick callback: Node runs nextTick callbacks only once the microtask queue has
// been drained completely (processTicksAndRejections: ticks, then runMicrotasks() until empty, then
// the ticks queued meanwhile). A tick queued directly would not do: from a socket callback it runs
// before the microtasks, and from inside a tick straight after it, with no checkpoint in between; the
// promise job is what moves it behind the checkpoint. About 0.5 us.
//
// Test suites fake timers (Jest, @sinonjs/fake-timers), and Sinon's defaults fake process.nextTick and
// queueMicrotask as well, so nextTick is taken once, when this module is loaded: fake timers installed
// after that cannot stall event dispatch; promise jobs cannot be faked at all. Without
// process.nextTick (no runtime here lacks it yet; browsers will), a chain of promise jobs stands in for
// the checkpoint: the callback then runs after continuation chains shorter than FALLBACK_DEPTH jobs.
//
// The checkpoint's callbacks wait in a first-in first-out queue (two slots each: callback, argument),
// so that no closure is made per call. Promise jobs and nextTick callbacks run in the order they were
// queued, so the n-th to run takes the n-th entry.

// lib/platform/listeners-node.js on Node, Bun and Deno; lib/platform/listeners-web.js (a count not known) elsewhere.
const { listenersOf } = require('#listeners')

const nextTick = typeof globalThis.process?.nextTick === 'function' ? globalThis.process.nextTick : null
const resolved = Promise.resolve()

// How many promise jobs the fallback waits: `await` on a native promise costs one job, on a
// thenable three, and an async function's return another; 16 covers a few nested awaits.
const FALLBACK_DEPTH = 16

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

// The kinds of task an EventSource queues. Each entry of the queue is four slots, the kind and up to
// three arguments, so that no object is allocated per event.
const TASK_MESSAGE = 0 // type, data, lastEventId: "dispatch the event"
const TASK_ANNOUNCE = 1 // "announce the connection"
const TASK_REESTABLISH = 2 // error: "reestablish the connection"
const TASK_FAIL = 3 // error: "fail the connection"
const TASK_END = 4 // extension (closeOnEnd): the stream ended, close without reconnecting
const TASK_SLOTS = 4

// The slots array of a queue whose tasks have all run, kept for the next queue that needs one: a queue
// holds no array between bursts of events (an idle source keeps none), yet a stream that fills and
// empties its queue with every chunk (a thousand small events in each 64 KiB) does not grow a new array
// each time, which cost 9% of the CPU per event. One for the whole process, and only one that is not
// too large: a burst of a million events does not pin its array for good.
let spareSlots = null
const MAX_SPARE_SLOTS = 64 * 1024

// What has run of the event loop since the last task ran (see the top of this file): the promise jobs
// queued by then (one job deep), or a full microtask checkpoint. Ordered: a checkpoint is more.
const ONE_JOB = 1
const CHECKPOINT = 2

const runQueueAfterCheckpoint = (queue) => queue.run(CHECKPOINT)

// The short waits of every queue, in one first-in first-out queue like the checkpoint's: the n-th
// promise job queued by #wait(ONE_JOB) runs the n-th queue waiting, so that no queue keeps a closure of
// its own for it (with its context, about 100 bytes on every idle connection).
const afterOneJob = new CallbackQueue()
const runQueueAfterOneJob = (queue) => queue.run(ONE_JOB)
const runAfterOneJob = () => afterOneJob.runOldest()

/**
 * The task queue of a source. It is the base class of the source's side of it (the source's internals,
 * in lib/eventsource/eventsource.js: one object per source rather than two), which defines
 *   iterating   whether a `for await` takes the source's messages (it listens for all)
 *   runTask(kind, a, b, c, listened)   runs a task. `listened`, for a message: whether a listener or an
 *               iteration takes it (else it is dispatched to nobody)
 */
class TaskQueue {
  #target
  // Tasks waiting to run, TASK_SLOTS slots each, from #head to #tail; null when there are none (an idle
  // source keeps no array).
  #slots = null
  #head = 0
  #tail = 0
  // A wait after the last task is under way.
  #waiting = false
  // A listener went away while an event was dispatched (a `once` listener: the mark of an `await
  // once(source, type)` loop), or the last task was not a message: the next task waits for a full
  // checkpoint.
  #checkpointDue = false
  // The listeners of the last message's type (listenersOf()): while they are more than 0 they are
  // still the target's, so a stream of one type looks them up once, not once per event.
  #listenedType = null
  #listeners = null

  /**
   * @param {EventTarget} target the source, whose listeners are counted
   */
  constructor (target) {
    this.#target = target
  }

  /** Queues a task (see TASK_*); it runs at once when no wait is under way. */
  push (kind, a, b, c) {
    let slots = this.#slots
    if (slots === null) {
      slots = this.#slots = spareSlots ?? []
      spareSlots = null
    }
    const tail = this.#tail
    slots[tail] = kind
    slots[tail + 1] = a
    slots[tail + 2] = b
    slots[tail + 3] = c
    this.#tail = tail + TASK_SLOTS
    if (!this.#waiting) this.run(CHECKPOINT)
  }

  /** Drops the tasks not yet run (the source closed). */
  clear () {
    this.#slots = null
    this.#head = this.#tail = 0
  }

  /**
   * Runs the tasks that may run now; `passed` says what has run of the event loop since the last one
   * (ONE_JOB or CHECKPOINT).
   * @param {number} passed
   */
  run (passed) {
    this.#waiting = false
    if (passed === CHECKPOINT) this.#checkpointDue = false
    // A task may close the source, which clears the queue: #slots is read again at each round.
    let slots
    while ((slots = this.#slots) !== null) {
      const head = this.#head
      const tail = this.#tail
      if (head === tail) {
        // Every task has run (and left nothing in the array but task kinds): the array goes to the
        // spare, for the next burst of events of this source or another.
        this.#slots = null
        if (slots.length <= MAX_SPARE_SLOTS) spareSlots = slots
        return
      }
      const kind = slots[head]
      const a = slots[head + 1]
      // How many listen for a message's type now; a `for await` iteration takes every type.
      const list = kind !== TASK_MESSAGE ? null : this.#listenersOf(a)
      const listeners = list === null ? 0 : list.size
      const listened = listeners !== 0 || (kind === TASK_MESSAGE && this.iterating)
      if (passed === ONE_JOB && (!listened || this.#checkpointDue)) {
        this.#wait(CHECKPOINT)
        return
      }
      const b = slots[head + 2]
      const c = slots[head + 3]
      slots[head + 1] = slots[head + 2] = slots[head + 3] = undefined
      // Reuse the array from the front once every task has run.
      if (head + TASK_SLOTS === tail) this.#head = this.#tail = 0
      else this.#head = head + TASK_SLOTS
      if (kind !== TASK_MESSAGE) {
        this.runTask(kind, a, b, c, false)
        // After open, error and end (once a connection, so the cost does not matter): a full checkpoint.
        this.#checkpointDue = true
      } else if (!listened) {
        // Nobody listens, even after a checkpoint: the message is dispatched to nobody, which runs
        // nothing, so there is nothing to wait for.
        this.runTask(kind, a, b, c, false)
        continue
      } else {
        this.runTask(kind, a, b, c, true)
        // Written `!(now >= before)` rather than `now < before`: a count that is not known (NaN, where an
        // EventTarget cannot count its listeners: lib/platform/listeners-web.js) may have gone down.
        if (listeners !== 0 && !(list.size >= listeners)) this.#checkpointDue = true
      }
      // Whatever comes next, even in this same call stack, waits at least one job.
      this.#wait(ONE_JOB)
      return
    }
  }

  #listenersOf (type) {
    let list = this.#listeners
    if (type !== this.#listenedType || !(list.size > 0)) {
      list = this.#listeners = listenersOf(this.#target, type)
      this.#listenedType = type
    }
    return list
  }

  #wait (level) {
    this.#waiting = true
    if (level === ONE_JOB) {
      afterOneJob.push(runQueueAfterOneJob, this)
      resolved.then(runAfterOneJob)
    } else {
      afterMicrotaskCheckpoint(runQueueAfterCheckpoint, this)
    }
  }

  /**
   * Waits for a checkpoint before the first task runs: nothing is dispatched before then (the
   * `eventsource` package's entry starts its request from the constructor, whose reports, such as a
   * scheme it cannot fetch, must wait until the constructor has returned).
   */
  waitForCheckpoint () {
    this.#wait(CHECKPOINT)
  }
}

module.exports = {
  TaskQueue,
  TASK_MESSAGE,
  TASK_ANNOUNCE,
  TASK_REESTABLISH,
  TASK_FAIL,
  TASK_END,
  afterMicrotaskCheckpoint,
  // Only the fallback uses it, and only a runtime without process.nextTick takes the fallback, which no
  // public path on Node reaches: test/task-queue-checkpoint.test.js loads the module without nextTick
  // and needs the depth to build a chain just short of it.
  FALLBACK_DEPTH,
  // The spare slots array and its bound, which nothing outside can see: test/task-queue-spare.test.js.
  spareSlots: () => spareSlots,
  MAX_SPARE_SLOTS
}
