'use strict'

// undici's global dispatcher, the one setGlobalDispatcher() installs (also for Node's own fetch, which
// shares the global slot with the undici package). undici is loaded on first use only, and only the
// part of it that installs the default Agent: users of the parser alone, or of the fetch transport,
// never pay for it, and the first connection pays for an Agent, not for all of undici.

// The slot every copy of undici in a process reads and writes: undici's own getGlobalDispatcher()
// returns it (undici 6 and 7: lib/global.js), and Node's bundled undici (its fetch) fills it where it
// is empty. undici 8 fills it with a wrapper that speaks the handler API of undici 7, which
// lib/transport/undici-handler.js also speaks. Reading it directly is what getGlobalDispatcher() does, without
// loading undici to call it.
const kGlobalDispatcher = Symbol.for('undici.globalDispatcher.1')

// Whether this runtime has an undici to fill an empty slot: undefined until it is first needed; false
// where it has none, Bun included (then every attempt takes the runtime's fetch, even once that fetch
// has filled the slot with a dispatcher of its own: sources do not change transports between attempts).
let hasUndici

/**
 * The global dispatcher, when the runtime has a usable one: Node's, or Deno's through its Node
 * compatibility. null where undici cannot be loaded or is not undici (Bun).
 * @returns {import('undici').Dispatcher | null}
 */
function globalDispatcher () {
  if (hasUndici === false) return null
  // Bun answers require('undici') with a module of its own, whose global dispatcher has no dispatch(),
  // but a deep path with the npm package's file: undici itself on Bun's node:net, which no test here
  // covers. Bun gets the fetch transport, its own fetch.
  if (process.versions.bun !== undefined) {
    hasUndici = false
    return null
  }
  let dispatcher = globalThis[kGlobalDispatcher]
  if (dispatcher === undefined && hasUndici === undefined) {
    // Node 22 and later: the global MessageEvent is the undici inside Node, loaded at the first use of
    // the global, and loading it installs that undici's Agent in the empty slot. Every EventSource
    // builds a MessageEvent at its first message anyway: asked for first, it fills the slot, and no
    // second undici (the package, about 42 ms more) is loaded. Node 20's MessageEvent is its own:
    // there the slot stays empty and the package's Agent is installed.
    void globalThis.MessageEvent // eslint-disable-line no-void -- the getter's side effect is the point
    dispatcher = globalThis[kGlobalDispatcher]
    if (dispatcher === undefined) {
      installDefaultAgent()
      dispatcher = globalThis[kGlobalDispatcher]
    }
    hasUndici = dispatcher !== undefined
  }
  return typeof dispatcher?.dispatch === 'function' ? dispatcher : null
}

// undici's lib/global.js installs `new Agent()` in the empty slot as it loads, as require('undici') does
// (it loads that file), and loads only the Agent: on Node 20 about 42 ms where require('undici') takes
// about 135 ms (benchmarks/startup). undici has no `exports` map, so the path is public to require();
// should a later undici move the file, the whole package is loaded instead.
function installDefaultAgent () {
  try {
    require('undici/lib/global.js')
  } catch {
    try {
      require('undici')
    } catch {}
  }
}

module.exports = { globalDispatcher }
