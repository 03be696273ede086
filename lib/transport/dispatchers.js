// undici dispatchers as the Dispatcher transport finds them: the global one, and what a dispatcher asks
// of an EventSource.
//
// - undici's global dispatcher, the one setGlobalDispatcher() installs (also for Node's own fetch, which
//   shares the global slot with the undici package). undici is loaded on first use only, and only the
//   part of it that installs the default Agent: users of the parser alone, or of the fetch transport,
//   never pay for it, and the first connection pays for an Agent, not for all of undici.
// - EventSource settings that an undici dispatcher carries, as undici's own EventSource reads them.
//   undici 7 and 8 let a Client, Pool or Agent take `eventSource: { maxEventSize }`
//   (`new Agent({ eventSource: { maxEventSize: 1 << 20 } })`) and expose it as the dispatcher's
//   `eventSourceOptions` getter, which undici's EventSource reads from its dispatcher (init.node.dispatcher,
//   else init.dispatcher, else the global dispatcher at construction). compose() keeps the getter; in
//   undici 8 ProxyAgent, EnvHttpProxyAgent, RetryAgent and MockAgent have it too (undici 7's ProxyAgent
//   and EnvHttpProxyAgent ignore the option, its RetryAgent and MockAgent have no getter).

import { constants } from 'node:buffer'
import { createRequire } from 'node:module'

const { MAX_STRING_LENGTH } = constants

// The slot every copy of undici in a process reads and writes: undici's own getGlobalDispatcher()
// returns it (undici 6 and 7: lib/global.js), and Node's bundled undici (its fetch) fills it where it
// is empty. undici 8 fills it with a wrapper that speaks the handler API of undici 7, which
// lib/transport/dispatcher-transport.js also speaks. Reading it directly is what getGlobalDispatcher() does, without
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
    // second undici (the package, and its start-up time) is loaded. Node 20's MessageEvent is its own:
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
// (it loads that file), and loads only the Agent: a fraction of what require('undici') costs a process's
// start (benchmarks/startup). undici has no `exports` map, so the path is public to require();
// should a later undici move the file, the whole package is loaded instead.
function installDefaultAgent () {
  // undici is CommonJS, and loaded only here.
  const require = createRequire(import.meta.url)
  try {
    require('undici/lib/global.js')
  } catch {
    try {
      require('undici')
    } catch {}
  }
}

// The limit on one event that a dispatcher asks for, or undefined when it asks for none.
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

export { globalDispatcher, dispatcherMaxEventSize }
