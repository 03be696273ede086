'use strict'

// undici's global dispatcher, the one setGlobalDispatcher() installs (also for Node's own fetch, which
// shares the global slot with the undici package). undici is loaded on first use only: users of the
// parser alone, or of the fetch transport, never pay for it.

let undici = null

/**
 * The global dispatcher, when the runtime has a usable one: Node's, or Deno's through its Node
 * compatibility. null where `undici` cannot be loaded or is not undici (Bun answers `require('undici')`
 * with a module of its own, whose global dispatcher has no dispatch()).
 * @returns {import('undici').Dispatcher | null}
 */
function globalDispatcher () {
  if (undici === null) {
    try {
      undici = require('undici')
    } catch {
      undici = false
    }
  }
  const dispatcher = undici === false ? null : undici.getGlobalDispatcher?.()
  return typeof dispatcher?.dispatch === 'function' ? dispatcher : null
}

module.exports = { globalDispatcher }
