// lib/eventsource/shared-init-node.js where a browser build loads this module: each source keeps its own
// resolved dictionary (a page opens a few sources, not thousands).

/**
 * @template {object} T
 * @param {T} init
 * @returns {T}
 */
function sharedInit (init) {
  return init
}

export { sharedInit }
