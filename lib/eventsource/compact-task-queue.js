// The task queue of an EventSource where an EventTarget cannot say how many listeners it has: browsers
// and workers (package.json's "imports" map `#task-queue` here for every runtime but Node, Bun and Deno,
// which get task-queue.js). Its interface is task-queue.js's, so lib/eventsource/eventsource.js runs
// on either, and so is its first promise: every event is dispatched from a task of its own, with a
// microtask checkpoint after each, as the standard's event loop does (task-queue.js says why code
// relies on it).
//
// task-queue.js shortens the wait to one promise job before a message whose listeners all stayed, and
// drops a message nobody listens for; both need a count of the listeners. Without one, any listener
// may have gone away (a `once` one) and anyone may listen, so every message is dispatched and every
// task waits for the full checkpoint: what task-queue.js would do here. This queue does only that, in a
// third of the bytes of a browser bundle.

import { afterMicrotaskCheckpoint } from './microtask-checkpoint.js'

// Each entry of the queue is four slots, the kind (lib/constants.js, TASK_*) and up to three
// arguments.
const TASK_SLOTS = 4

const runQueue = (queue) => queue.run()

/**
 * The task queue of a source, the base class of the source's internals (see task-queue.js), which
 * define runTask(kind, a, b, c, listened). `listened` is always true here: nobody can tell.
 */
class TaskQueue {
  // Tasks waiting to run, from #head on; the slots of those that ran are emptied, so that they keep no
  // event's strings, and the array starts again from the front once all have run.
  #slots = []
  #head = 0
  // A wait after the last task is under way.
  #waiting = false

  /** Queues a task (see TASK_*); it runs at once when no wait is under way. */
  push (kind, a, b, c) {
    this.#slots.push(kind, a, b, c)
    if (!this.#waiting) this.run()
  }

  /** Drops the tasks not yet run (the source closed). */
  clear () {
    this.#slots = []
    this.#head = 0
  }

  /** Runs the oldest task, if any, and waits for a checkpoint before the next. */
  run () {
    const slots = this.#slots
    const head = this.#head
    if (head === slots.length) {
      this.#waiting = false
      return
    }
    const kind = slots[head]
    const a = slots[head + 1]
    const b = slots[head + 2]
    const c = slots[head + 3]
    if (head + TASK_SLOTS === slots.length) {
      slots.length = 0
      this.#head = 0
    } else {
      slots[head + 1] = slots[head + 2] = slots[head + 3] = undefined
      this.#head = head + TASK_SLOTS
    }
    // Before the task runs: whatever it queues, even from the same call stack, waits for the checkpoint.
    this.waitForCheckpoint()
    this.runTask(kind, a, b, c, true)
  }

  /** Waits for a checkpoint before the next task runs (task-queue.js says when the source asks). */
  waitForCheckpoint () {
    this.#waiting = true
    afterMicrotaskCheckpoint(runQueue, this)
  }
}

export {
  TaskQueue
}
