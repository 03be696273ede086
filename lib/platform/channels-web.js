'use strict'

// diagnostics_channel where there is none (browsers, workers): package.json's "imports" maps
// `#channels` here for any runtime that does not match the `node` condition, and to
// lib/platform/channels-node.js, which says what is published, for Node, Bun and Deno. Nobody can subscribe here,
// so nothing is ever published.

const silent = Object.freeze({ hasSubscribers: false, publish () {} })

module.exports = {
  createChannel: silent,
  connectChannel: silent,
  openChannel: silent,
  messageChannel: silent,
  errorChannel: silent,
  closeChannel: silent,
  tracingAttempts: () => false,
  traceAttemptStart: (context, start) => start(),
  traceAttemptEnd: () => {}
}
