// The web side of lib/platform/listeners-node.js (package.json's "imports" map `#listeners` here for any
// runtime that does not match the `node` condition). A browser's or a worker's EventTarget cannot list
// or count its listeners (Node's getEventListeners() and its listener map are Node's own), so nothing
// here counts them: the task queue of these runtimes (lib/eventsource/compact-task-queue.js) does not
// ask. What is left is the EventTarget's extra map of Node 20 and 22, which a browser does not have.

/** Node's (lib/platform/listeners-node.js): a browser's EventTarget has nothing of the kind to drop. */
function releaseHandlerMap (target) {}

export {
  releaseHandlerMap
}
