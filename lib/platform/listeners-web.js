// The web side of lib/platform/listeners-node.js (package.json's "imports" map `#listeners` here for any
// runtime that does not match the `node` condition). A browser's or a worker's EventTarget cannot list
// or count its listeners (Node's getEventListeners() and its listener map are Node's own): every type
// may be listened for, and countsListeners tells the task queue (lib/eventsource/task-queue.js) that a
// listener may have gone without a count going down, so that every task waits for the full checkpoint.
// Nor does a browser's EventTarget have the extra map of Node 20 and 22.

// What listenersOf() answers for every type: someone may listen.
const UNKNOWN = Object.freeze({ size: 1 })

/** Node's (lib/platform/listeners-node.js): here, anyone may listen. */
function listenersOf (target, type) {
  return UNKNOWN
}

/** Node's (lib/platform/listeners-node.js): a browser's EventTarget has nothing of the kind to drop. */
function releaseHandlerMap (target) {}

const countsListeners = false

export { listenersOf, countsListeners, releaseHandlerMap }
