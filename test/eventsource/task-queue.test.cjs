'use strict'

// lib/eventsource/task-queue.js, its waits and its robustness: "after the next microtask checkpoint", without a
// timer, on Node and (the fallback) in browsers; and a task that throws, which is reported while the queue goes
// on. (The spare array: task-queue-spare.test.cjs; the queue where listeners cannot be counted:
// task-queue-web.test.cjs; the queue under an EventSource: eventsource-event-loop.test.cjs.)

const t = require('tap')
const path = require('node:path')
const { pathToFileURL } = require('node:url')
const { runChild } = require('../helpers/index.cjs')
const { TASK_ANNOUNCE } = require('../../lib/constants')

const MODULE = path.join(__dirname, '..', '..', 'lib', 'eventsource', 'task-queue.js')

// A chain of `depth` promise jobs, each queued by the previous one; `log` gets 'chain' at its end.
function chain (depth, log) {
  let p = Promise.resolve()
  for (let i = 0; i < depth; i++) p = p.then(() => {})
  return p.then(() => log.push('chain'))
}

// A queue of `TaskQueue` that waits for a checkpoint before its first task, then runs `task(name)` for the
// announce task it is given (a task that is not a message: a full checkpoint before it on every platform).
function afterCheckpoint (TaskQueue, name, task) {
  class Queue extends TaskQueue {
    runTask (kind, a) { task(a) }
  }
  const queue = new Queue(new EventTarget())
  queue.waitForCheckpoint()
  queue.push(TASK_ANNOUNCE, name)
  return queue
}

t.test('on Node: after every promise job, however deep the chain, and after queued nextTicks', async (t) => {
  const { TaskQueue } = require(MODULE)
  const log = []
  const done = new Promise((resolve) => {
    afterCheckpoint(TaskQueue, 'task', (name) => { log.push(name); resolve() })
  })
  chain(1000, log)
  process.nextTick(() => log.push('tick'))
  await done
  t.equal(log.at(-1), 'task', 'the task came last')
  t.same(log.slice().sort(), ['chain', 'task', 'tick'])
})

t.test('on Node: queues run in the order they waited, one checkpoint each', async (t) => {
  const { TaskQueue } = require(MODULE)
  const log = []
  const done = new Promise((resolve) => {
    afterCheckpoint(TaskQueue, 'first', (name) => {
      log.push(name)
      // A chain started by the first task ends before the second queue's task runs.
      chain(50, log)
    })
    afterCheckpoint(TaskQueue, 'second', (name) => log.push(name))
    afterCheckpoint(TaskQueue, 'third', (name) => { log.push(name); resolve() })
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
  t.not(fallback.TaskQueue, require(MODULE).TaskQueue, 'an instance of its own')
  const { TaskQueue, FALLBACK_DEPTH } = fallback
  // It is the fallback: a chain longer than FALLBACK_DEPTH jobs ends after the task.
  const longer = []
  await new Promise((resolve) => {
    afterCheckpoint(TaskQueue, 'task', (name) => { longer.push(name); resolve() })
    chain(FALLBACK_DEPTH + 10, longer)
  })
  await chain(FALLBACK_DEPTH + 10, [])
  t.same(longer, ['task', 'chain'], 'the task before the end of a longer chain')
  t.ok(FALLBACK_DEPTH >= 8, `FALLBACK_DEPTH is ${FALLBACK_DEPTH}`)
  const log = []
  const done = new Promise((resolve) => {
    afterCheckpoint(TaskQueue, 'first', (name) => log.push(name))
    afterCheckpoint(TaskQueue, 'second', (name) => { log.push(name); resolve() })
  })
  chain(FALLBACK_DEPTH - 2, log) // FALLBACK_DEPTH - 1 jobs, the last one the push
  await done
  t.same(log, ['chain', 'first', 'second'])
})

// In a child, whose uncaught exceptions are its own: a task that throws, run at once, after one promise job and
// after a checkpoint, with and without process.nextTick. Each is reported as an uncaught exception (from a tick,
// or a microtask), and every task after it runs. Before the queue caught them, the first left it stuck: nothing
// after it ran.
const THROWING_TASKS = `
const { TASK_MESSAGE, TASK_ANNOUNCE } = require(${JSON.stringify(require.resolve('../../lib/constants'))})
const withoutNextTick = process.argv.includes('--without-next-tick')
const nodeNextTick = process.nextTick
if (withoutNextTick) process.nextTick = undefined
const { TaskQueue } = require(${JSON.stringify(MODULE)})
process.nextTick = nodeNextTick
const ran = []
const reported = []
process.on('uncaughtException', (error) => reported.push(error.message))
const target = new EventTarget()
target.addEventListener('message', () => {})
class Queue extends TaskQueue {
  get iterating () { return false }
  runTask (kind, a) {
    ran.push(a)
    if (a.startsWith('throws')) throw new Error(a)
  }
}
const queue = new Queue(target)
queue.push(TASK_MESSAGE, 'throws at once')
queue.push(TASK_MESSAGE, 'throws after a job')
queue.push(TASK_ANNOUNCE, 'throws after a checkpoint')
queue.push(TASK_MESSAGE, 'last')
setTimeout(() => {
  queue.push(TASK_MESSAGE, 'later')
  setTimeout(() => console.log(JSON.stringify({ ran, reported })))
})
`

for (const nextTick of ['with', 'without']) {
  t.test(`a task that throws is reported, and the queue goes on (${nextTick} process.nextTick)`, async (t) => {
    const args = ['-e', THROWING_TASKS]
    if (nextTick === 'without') args.push('--', '--without-next-tick')
    const child = runChild(t, args, { isolate: true })
    const { code, stderr, report } = await child.exited()
    t.equal(code, 0, stderr)
    const { ran, reported } = report
    t.same(ran, ['throws at once', 'throws after a job', 'throws after a checkpoint', 'last', 'later'],
      'every task ran, in order')
    t.same(reported, ['throws at once', 'throws after a job', 'throws after a checkpoint'], 'each error reported once')
  })
}
