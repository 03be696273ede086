'use strict'

// EventSource settings that an undici dispatcher carries, as undici's own EventSource reads them.
// undici 7 and 8 let a Client, Pool or Agent take `eventSource: { maxEventSize }`
// (`new Agent({ eventSource: { maxEventSize: 1 << 20 } })`) and expose it as the dispatcher's
// `eventSourceOptions` getter, which undici's EventSource reads from its dispatcher (init.node.dispatcher,
// else init.dispatcher, else the global dispatcher at construction). compose() keeps the getter; in
// undici 8 ProxyAgent, EnvHttpProxyAgent, RetryAgent and MockAgent have it too (undici 7's ProxyAgent
// and EnvHttpProxyAgent ignore the option, its RetryAgent and MockAgent have no getter).

const { constants: { MAX_STRING_LENGTH } } = require('node:buffer')

/**
 * The limit on one event that a dispatcher asks for, or undefined when it asks for none.
 * @param {unknown} dispatcher
 * @returns {number | undefined}
 */
function dispatcherMaxEventSize (dispatcher) {
  const value = dispatcher?.eventSourceOptions?.maxEventSize
  // The getter fills in buffer.kStringMaxLength when the dispatcher was given no maxEventSize: that
  // is undici's default, not a choice, and our own default (64 MiB) stays.
  if (typeof value !== 'number' || value === MAX_STRING_LENGTH) return undefined
  // undici: "Set to 0 to disable these limits".
  if (value === 0 || value === Infinity) return Infinity
  // A value undici would take as a limit. Anything else (negative, NaN) undici treats as no limit;
  // here it leaves our default in place rather than lifting the bound.
  if (value > 0 && Number.isFinite(value)) return Math.max(1, Math.floor(value))
  return undefined
}

module.exports = { dispatcherMaxEventSize }
