'use strict'

// Whether firing an event at an EventTarget could run anything, where that cannot be asked: a browser's
// or a worker's EventTarget has no way to list or count its listeners (Node's getEventListeners() and
// its listener map are Node's own). package.json's "imports" maps `#listeners` here for any runtime
// that does not match the `node` condition; lib/platform/listeners-node.js is the Node side, and says what the
// answer is for (lib/eventsource/eventsource.js, #runTasks).
//
// The answer is NaN: not known. lib/eventsource/eventsource.js takes a count that is not 0 as "someone may listen",
// so every message is dispatched (none is dropped for want of a listener), and a count that cannot be
// seen to stay the same (`!(after >= before)`) as "a listener may have gone away", so each message
// waits for a full microtask checkpoint before the next: the browser's own pace, one task per event,
// which code that awaits each event one at a time relies on.

// A count that is never known, whenever it is read.
const UNKNOWN = Object.freeze({ size: NaN })

/**
 * @param {EventTarget} target
 * @param {string} type
 * @returns {{ readonly size: number }} a size of NaN: not known
 */
function listenersOf (target, type) {
  return UNKNOWN
}

/** Node's (lib/platform/listeners-node.js): a browser's EventTarget has nothing of the kind to drop. */
function releaseHandlerMap (target) {}

module.exports = {
  listenersOf,
  releaseHandlerMap,
  usesListenerMap: false
}
