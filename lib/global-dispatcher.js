'use strict'

// undici's global dispatcher, the one setGlobalDispatcher() installs (also for Node's own fetch, which
// shares the global slot with the undici package). undici is loaded on first use only: users of the
// parser alone never pay for it.

let undici = null

function globalDispatcher () {
  undici ??= require('undici')
  return undici.getGlobalDispatcher()
}

module.exports = { globalDispatcher }
