'use strict'

// lib/eventsource/task-queue.js: a queue whose tasks have all run gives its array to the one spare of
// the process, which the next queue to need one takes, so that a stream that fills and empties its
// queue with every chunk does not grow a new array each time; and a burst too large to keep leaves no
// spare behind (memory).

const t = require('tap')
const { TaskQueue, spareSlots, MAX_SPARE_SLOTS } = require('../../lib/eventsource/task-queue')
const { TASK_MESSAGE } = require('../../lib/constants')

// A queue whose messages are listened for, and which records what it runs.
function listenedQueue () {
  const target = new EventTarget()
  target.addEventListener('message', () => {})
  const ran = []
  class Queue extends TaskQueue {
    get iterating () { return false }
    runTask (kind, type, data) { ran.push(data) }
  }
  return { queue: new Queue(target), ran }
}

// Queues `count` messages in one go, as the parser does with the events of one chunk, and waits until
// the microtasks have run out: every task has run (one promise job each), and the run after the last,
// which finds the queue empty. (setImmediate: after every microtask queued until then, and their own.)
async function burst (queue, ran, count) {
  ran.length = 0
  for (let i = 0; i < count; i++) queue.push(TASK_MESSAGE, 'message', `${i}`, '')
  await new Promise((resolve) => setImmediate(resolve))
}

t.test('the array of a queue that ran dry is the next queue\'s, of this source or another', async (t) => {
  const a = listenedQueue()
  const b = listenedQueue()
  await burst(a.queue, a.ran, 1000)
  const spare = spareSlots()
  // (The first task runs as it is queued: 999 wait in the array.)
  t.ok(Array.isArray(spare) && spare.length >= 999 * 4, 'the array of 1,000 tasks is the spare')
  await burst(b.queue, b.ran, 10)
  t.equal(b.ran.length, 10, 'every task of the next queue ran')
  t.equal(spareSlots(), spare, 'the same array, taken and given back')
  t.ok(spare.every((slot) => typeof slot === 'number' || slot === undefined), 'it holds task kinds only: no data of a past event')
})

t.test('a burst of more tasks than the bound leaves no spare behind', async (t) => {
  const a = listenedQueue()
  // (The first task runs as it is queued: the others fill one more than the bound's slots.)
  const count = MAX_SPARE_SLOTS / 4 + 2
  await burst(a.queue, a.ran, count)
  t.equal(a.ran.length, count)
  t.equal(spareSlots(), null, `${count} tasks: the array went with them`)
})
