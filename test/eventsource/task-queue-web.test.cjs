'use strict'

// lib/eventsource/task-queue.js where listeners cannot be counted (browsers and workers: lib/platform/listeners-web.js,
// `#listeners`' web side), as a browser build bundles it: every task in order, the first at once, each next one after a full
// microtask checkpoint, whatever the previous one queued; every message dispatched; clear() drops what has not
// run; a task that ran keeps nothing alive. test/eventsource/eventsource-event-loop.test.cjs runs the web build's
// EventSource on it, test/runtime/ in Chromium; the queue on Node's listener counts: test/eventsource/.

const t = require('tap')
const { importBrowserBuild } = require('../helpers/bundle.cjs')
const v8 = require('node:v8')
const vm = require('node:vm')
const { TASK_MESSAGE, TASK_ANNOUNCE, TASK_FAIL } = require('../../lib/constants')

v8.setFlagsFromString('--expose-gc')
const gc = vm.runInNewContext('gc')

const COPIES = {
  'the browser build': async (t) => (await importBrowserBuild(t,
    "export { TaskQueue } from './lib/eventsource/task-queue.js'")).exports
}

// A chain of `depth` promise jobs, each queued by the previous one; `log` gets `name` at its end.
function chain (depth, log, name) {
  let p = Promise.resolve()
  for (let i = 0; i < depth; i++) p = p.then(() => {})
  return p.then(() => log.push(name))
}

// A queue whose runTask logs the task and calls `onTask(kind, a, b, c)`.
function recordingQueue (TaskQueue, onTask = () => {}) {
  const log = []
  class Queue extends TaskQueue {
    runTask (kind, a, b, c, listened) {
      log.push(`task ${kind} ${a} ${listened}`)
      onTask.call(this, kind, a, b, c)
    }
  }
  return { queue: new Queue(), log }
}

// Resolves at the turn of the event loop after the checkpoints and ticks now due: every task the
// queues could run by then has run.
const afterTurn = () => new Promise((resolve) => setImmediate(resolve))

for (const [copy, load] of Object.entries(COPIES)) {
  t.test(`${copy}: the first task at once, each next one after every continuation of the last`, async (t) => {
    const { TaskQueue } = await load(t)
    let done
    const finished = new Promise((resolve) => { done = resolve })
    const { queue, log } = recordingQueue(TaskQueue, function (kind, a) {
      chain(1000, log, `chain ${a}`)
      process.nextTick(() => log.push(`tick ${a}`))
      if (a === 'c') done()
    })
    queue.push(TASK_ANNOUNCE, 'a')
    t.same(log, ['task 1 a false'], 'ran synchronously')
    queue.push(TASK_MESSAGE, 'b')
    queue.push(TASK_MESSAGE, 'c')
    t.same(log, ['task 1 a false'], 'the next ones wait')
    await finished
    await afterTurn()
    // Each task, then what it started (a tick and a chain, in either order), before the next task.
    const groups = []
    for (const entry of log) {
      if (entry.startsWith('task')) groups.push([entry])
      else groups.at(-1).push(entry)
    }
    t.same(groups.map(([task, ...rest]) => [task, ...rest.sort()]), [
      ['task 1 a false', 'chain a', 'tick a'],
      ['task 0 b true', 'chain b', 'tick b'],
      ['task 0 c true', 'chain c', 'tick c']
    ], 'in order; every message `listened`: nobody can count the listeners')
  })

  t.test(`${copy}: a task queued by a task, or from the same call stack, waits for the checkpoint`, async (t) => {
    const { TaskQueue } = await load(t)
    const { queue, log } = recordingQueue(TaskQueue, function (kind, a) {
      if (a === 'a') {
        this.push(TASK_MESSAGE, 'from a')
        chain(100, log, 'chain a')
      }
    })
    queue.push(TASK_MESSAGE, 'a')
    await afterTurn()
    t.same(log, ['task 0 a true', 'chain a', 'task 0 from a true'])
    // Drained: the next task runs at once again, once the last wait is over.
    queue.push(TASK_FAIL, 'later')
    t.same(log.at(-1), 'task 3 later false')
  })

  t.test(`${copy}: clear() from a task drops the rest; the queue works on after it`, async (t) => {
    const { TaskQueue } = await load(t)
    const { queue, log } = recordingQueue(TaskQueue, function (kind, a) {
      if (a === 'b') this.clear()
    })
    for (const name of ['a', 'b', 'c', 'd']) queue.push(TASK_MESSAGE, name)
    await afterTurn()
    await afterTurn()
    t.same(log, ['task 0 a true', 'task 0 b true'], 'c and d dropped')
    queue.push(TASK_MESSAGE, 'e')
    await afterTurn()
    t.same(log, ['task 0 a true', 'task 0 b true', 'task 0 e true'])
  })

  t.test(`${copy}: waitForCheckpoint() before the first task: nothing runs from the same call stack`, async (t) => {
    const { TaskQueue } = await load(t)
    const { queue, log } = recordingQueue(TaskQueue)
    queue.waitForCheckpoint()
    queue.push(TASK_FAIL, 'a')
    chain(100, log, 'chain')
    t.same(log, [])
    await afterTurn()
    t.same(log, ['chain', 'task 3 a false'])
  })

  t.test(`${copy}: two queues take turns, one task per checkpoint`, async (t) => {
    const { TaskQueue } = await load(t)
    const log = []
    const make = (name) => {
      class Queue extends TaskQueue {
        runTask (kind, a) { log.push(`${name} ${a}`) }
      }
      return new Queue()
    }
    const one = make('one')
    const two = make('two')
    for (const a of [1, 2, 3]) one.push(TASK_MESSAGE, a)
    for (const a of [1, 2, 3]) two.push(TASK_MESSAGE, a)
    await afterTurn()
    t.same(log, ['one 1', 'two 1', 'one 2', 'two 2', 'one 3', 'two 3'])
  })

  t.test(`${copy}: a task that ran keeps nothing alive while later ones wait`, async (t) => {
    const { TaskQueue } = await load(t)
    let weak
    let collected
    const { queue } = recordingQueue(TaskQueue, function (kind, a) {
      // Two tasks after the one that held the object, three still queued: the array is in use.
      if (a === 'd') {
        gc()
        collected = weak.deref() === undefined
      }
    })
    ;(() => {
      const data = { text: 'x'.repeat(1024) }
      weak = new WeakRef(data)
      queue.push(TASK_MESSAGE, 'a')
      queue.push(TASK_MESSAGE, 'b', data)
      for (const name of ['c', 'd', 'e', 'f']) queue.push(TASK_MESSAGE, name)
    })()
    await afterTurn()
    t.equal(collected, true, 'the data of task b was collected')
  })
}
