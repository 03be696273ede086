// The web side of ./listeners-node.js (`#listeners`). A browser's or a worker's EventTarget cannot list or
// count its listeners: every type may be listened for, and countsListeners tells the task queue
// (lib/eventsource/task-queue.js) that a listener may have gone without a count going down, so that every
// task waits for the full checkpoint. Nor does it have the extra handler map of Node 20 and 22.

// What listenersOf() answers for every type: someone may listen.
const UNKNOWN = Object.freeze({ size: 1 })

function listenersOf (target, type) {
  return UNKNOWN
}

function releaseHandlerMap (target) {}

const countsListeners = false

export { listenersOf, countsListeners, releaseHandlerMap }
