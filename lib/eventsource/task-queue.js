// The tasks of an EventSource, and when each may run. The standard dispatches every event from a task
// of its own, and a browser's event loop performs a microtask checkpoint after each; code written for
// browsers relies on it (`await once(source, 'message')` in a loop must see every event). A TaskQueue
// runs its source's tasks in order, each after a wait: a full microtask checkpoint before open, error and
// end, before a message of a type nobody listens for right now, and after an event that a listener left
// (`once`); otherwise one promise job. docs/event-loop.md says why each, and why not a checkpoint every time.
// Whether anyone listens is asked when a message's task runs, not when it was parsed: a listener may
// have been added by a continuation of the previous task (lib/platform/listeners-node.js counts them).
//
// Neither wait is a timer. The short one is one promise job (`promise.then(f)`). The long one is a full
// microtask checkpoint (HTML "perform a microtask checkpoint",
// https://html.spec.whatwg.org/multipage/webappapis.html#perform-a-microtask-checkpoint). On Node a promise job
// queues a process.nextTick callback: Node runs nextTick callbacks only once the microtask queue has been drained
// completely (processTicksAndRejections: ticks, then runMicrotasks() until empty, then the ticks queued
// meanwhile). A tick queued directly would not do: from a socket callback it runs before the microtasks, and
// from inside a tick straight after it; the promise job moves it behind the checkpoint. Without
// process.nextTick (browsers and workers), a chain of FALLBACK_DEPTH promise jobs stands in for the checkpoint.
//
// Sinon's fake timers fake process.nextTick and queueMicrotask by default: both are taken once, when this module
// is loaded, so fake timers installed later cannot stall dispatch; promise jobs cannot be faked at all.
//
// The queues waiting for either wait are kept in order, one list per wait (Waiting, below): promise jobs and
// nextTick callbacks run in the order they were queued, so the n-th to run takes the n-th queue, and no queue
// keeps a closure of its own for it (with its context, on every idle connection). What a wait runs is the
// queue's run() directly, so that a message's listener is two frames of this file away from the event loop.
//
// A task should not throw (a listener's exception is its EventTarget's to report); one that does is reported as an
// uncaught exception, and the queue goes on, as a browser's event loop goes on after a task that threw.
//
// Where an EventTarget cannot count its listeners (browsers, workers: lib/platform/listeners-web.js), any
// listener may be a `once` one: every message is dispatched, and every task waits for the full checkpoint.

// #listeners: lib/platform/listeners-node.js on Node, Bun and Deno; listeners-web.js elsewhere.
import { listenersOf, countsListeners } from '#listeners'
import { TASK_MESSAGE } from '../constants.js'

const nextTick = typeof globalThis.process?.nextTick === 'function' ? globalThis.process.nextTick : null
// Where an exception is reported from: a nextTick callback on Node, as Node's EventTarget reports a listener's;
// else a microtask, which a browser reports as it reports a listener's.
const reportFrom = nextTick ?? globalThis.queueMicrotask
const resolved = Promise.resolve()

// How many promise jobs the fallback waits: `await` on a native promise costs one job, on a
// thenable three, and an async function's return another; 16 covers a few nested awaits.
const FALLBACK_DEPTH = 16

// A queue entry: four slots, the kind (TASK_* in lib/constants.js) and up to three arguments; no object per event.
const TASK_SLOTS = 4

// The slots array of a queue whose tasks have all run, kept for the next queue that needs one: an idle source
// keeps no array, yet a stream that fills and empties its queue with every chunk does not grow a new one each
// time (a visible share of the CPU per event: benchmarks/e2e). One for the whole process, and only one that is
// not too large, so a burst of a million events does not pin its array for good.
let spareSlots = null
const MAX_SPARE_SLOTS = 64 * 1024

// What has run of the event loop since the last task ran (see the top of this file): the promise jobs
// queued by then (one job deep), or a full microtask checkpoint. Ordered: a checkpoint is more.
const ONE_JOB = 1
const CHECKPOINT = 2

/** TaskQueues waiting, oldest first. */
class Waiting {
  #queues = []
  #head = 0
  #tail = 0

  get empty () {
    return this.#head === this.#tail
  }

  push (queue) {
    this.#queues[this.#tail++] = queue
  }

  // Takes the oldest. The array is reused from the front once empty (resetting its length instead costs a
  // runtime call per event).
  shift () {
    const queues = this.#queues
    const head = this.#head
    const queue = queues[head]
    queues[head] = undefined
    if (head + 1 === this.#tail) this.#head = this.#tail = 0
    else this.#head = head + 1
    return queue
  }
}

// The short waits of every queue: the n-th promise job queued by #wait(ONE_JOB) runs the n-th queue waiting.
const afterOneJob = new Waiting()

function runAfterOneJob () {
  afterOneJob.shift().run(ONE_JOB)
}

// The long waits. One checkpoint hop is under way at a time, and each runs one queue: two queues never run
// back to back without a checkpoint between them.
const afterCheckpoint = new Waiting()
let hopping = false

function hop () {
  if (nextTick !== null) resolved.then(queueTick)
  else fallbackHop(FALLBACK_DEPTH)
}

function queueTick () {
  nextTick(runAfterCheckpoint)
}

// The last of `depth` promise jobs, each queued by the one before, runs the queue.
function fallbackHop (depth) {
  if (depth === 1) resolved.then(runAfterCheckpoint)
  else resolved.then(() => fallbackHop(depth - 1))
}

function runAfterCheckpoint () {
  try {
    afterCheckpoint.shift().run(CHECKPOINT)
  } finally {
    // The queue may have asked for another checkpoint: that one comes after this one's callers.
    if (afterCheckpoint.empty) hopping = false
    else hop()
  }
}

function reportException (error) {
  reportFrom(() => { throw error })
}

/**
 * The task queue of a source, and the base class of the source's internals (lib/eventsource/eventsource.js: one
 * object per source rather than two), which define
 *   iterating   whether a `for await` takes the source's messages (it listens for all)
 *   readsFromPromiseJobs   whether the source's chunks come from promise jobs (EventSource.fromReadableStream())
 *   runTask(kind, a, b, c, listened)   runs a task; `listened`, for a message: whether a listener or an iteration
 *               takes it (else it is dispatched to nobody)
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
  // A listener went away while an event was dispatched (a `once` listener: the mark of an `await once(source, type)`
  // loop), or the last task was not a message: the next task waits for a full checkpoint.
  #checkpointDue = false
  // The listeners of the last message's type (listenersOf()): while they are more than 0 they are
  // still the target's, so a stream of one type looks them up once, not once per event.
  #listenedType = null
  #listeners = null

  /** @param {EventTarget} target the source, whose listeners are counted */
  constructor (target) {
    this.#target = target
  }

  /** Queues a task (see TASK_*); it runs at once when no wait is under way. */
  push (kind, a, b, c) {
    // A message that nobody listens for, with no wait under way: run() would run it at once, dispatched to
    // nobody, and go on. It runs here, without a slot: a stream whose messages only init.onBatch takes, or nobody,
    // costs no queue per message. (Where listeners cannot be counted, every message is taken as listened.)
    if (kind === TASK_MESSAGE && !this.#waiting && !this.iterating && this.#listenersOf(a).size === 0) {
      try {
        this.runTask(kind, a, b, c, false)
      } catch (error) {
        reportException(error)
      }
      return
    }
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

  /** Runs the tasks that may run now; `passed`: what has run of the event loop since the last (ONE_JOB, CHECKPOINT). */
  run (passed) {
    if (passed === CHECKPOINT) this.#checkpointDue = false
    // While a task runs, a task it queues waits its turn, as one queued from the same call stack does: push()
    // does not run it from inside this one.
    this.#waiting = true
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
        break
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
      if (head + TASK_SLOTS === tail) this.#head = this.#tail = 0
      else this.#head = head + TASK_SLOTS
      try {
        this.runTask(kind, a, b, c, listened)
      } catch (error) {
        reportException(error)
      }
      if (kind !== TASK_MESSAGE) {
        // After open, error and end (once a connection, so the cost does not matter): a full checkpoint.
        this.#checkpointDue = true
      } else if (!listened) {
        // Nobody listens, even after a checkpoint: the message was dispatched to nobody, which runs
        // nothing, so there is nothing to wait for.
        continue
      } else if (listeners !== 0 && list.size < listeners) {
        this.#checkpointDue = true
      }
      // Whatever comes next, even in this same call stack, waits at least one job; where listeners cannot be
      // counted, the full checkpoint.
      this.#wait(countsListeners ? ONE_JOB : CHECKPOINT)
      return
    }
    if (passed === ONE_JOB && this.readsFromPromiseJobs) {
      // Nothing left to run, one job after a task, on a source whose chunks come from promise jobs (a stream's
      // reads) rather than from callbacks that are tasks of their own (a socket's): the queue goes idle only once
      // a full checkpoint has passed, so that a chunk read meanwhile does not run its task before the
      // continuations of the last task's listeners. (Only there: on a socket's source the extra hop moved when
      // close() from a listener aborts a fetch, and Node's undici under nock 15 asserts on that.)
      this.#wait(CHECKPOINT)
      return
    }
    this.#waiting = false
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
      afterOneJob.push(this)
      resolved.then(runAfterOneJob)
    } else {
      afterCheckpoint.push(this)
      if (!hopping) {
        hopping = true
        hop()
      }
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

// The spare slots array and its bound, which nothing outside can see: test/eventsource/task-queue-spare.test.cjs.
const spareSlotsOf = () => spareSlots

export {
  TaskQueue,
  spareSlotsOf as spareSlots,
  MAX_SPARE_SLOTS,
  // For test/eventsource/task-queue.test.cjs, which loads the module without nextTick (no public path on Node
  // takes the fallback) and builds a chain just short of the depth.
  FALLBACK_DEPTH
}
