// Registers every extension (lib/extension-registry.js): on Node, Bun and Deno always (package.json's
// "imports" maps `#extensions` here for the `node` condition), in browsers and workers when the
// application imports `whatwg-eventsource/extensions` (and with the `eventsource` drop-in, whose init
// members are extensions of ours). Their modules are imported here, and so load with the entry point that
// imports this file; the registry hands out each part when the core first asks for it.

import { registerExtensions, loadedExtension, extension, notLoaded } from '../extension-registry.js'
import { resolveExtensions } from './init-extensions.js'
import { decide } from './reconnect-policy.js'
import { MessageIterators, finishedIterator } from './message-iterator.js'
import { buildRequest, previousAttempt } from '../transport/request.js'
import { FetchAttempt } from '../transport/fetch-transport.js'

// Each part is the functions the core calls, named one by one: a browser build then keeps only those of
// each module (a module's whole namespace would keep every export).
registerExtensions({
  init: () => resolveExtensions,
  reconnect: () => decide,
  iterator: () => ({ MessageIterators, finishedIterator }),
  request: () => ({ buildRequest, previousAttempt }),
  fetch: () => FetchAttempt
})

export { registerExtensions, loadedExtension, extension, notLoaded }
