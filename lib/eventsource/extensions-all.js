'use strict'

// Registers every extension (lib/extension-registry.js), each loaded when first used: on Node, Bun and
// Deno always (package.json's "imports" maps `#extensions` here for the `node` condition), in browsers and
// workers when the application imports `whatwg-eventsource/extensions` (and with the `eventsource`
// drop-in, whose init members are extensions of ours). Loaded lazily on Node: a source with no
// extension in its init never fails, never iterates, and each file is a few tenths of a millisecond of a
// fresh process's start (benchmarks/startup).

const { registerExtensions, loadedExtension, extension, notLoaded } = require('../extension-registry')

// Each part is the functions the core calls, named one by one: a browser build then keeps only those of
// each module (a module's whole namespace would keep every export).
registerExtensions({
  init: () => require('./init-extensions').resolveExtensions,
  reconnect: () => require('./reconnect-policy').decide,
  iterator: () => ({ MessageIterators: require('./message-iterator').MessageIterators, finishedIterator: require('./message-iterator').finishedIterator }),
  request: () => ({ buildRequest: require('../transport/request').buildRequest, previousAttempt: require('../transport/request').previousAttempt }),
  fetch: () => require('../transport/fetch-transport').FetchAttempt
})

module.exports = { registerExtensions, loadedExtension, extension, notLoaded }
