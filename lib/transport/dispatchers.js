// undici dispatchers as the Dispatcher transport finds them:
// - undici's global dispatcher, the one setGlobalDispatcher() installs (Node's own fetch shares the slot),
//   loading on first use only the part of undici that installs the default Agent
//   (docs/transports.md#the-two-transports);
// - the EventSource settings a dispatcher carries, as undici's own EventSource reads them: undici 7 and 8
//   let a Client, Pool or Agent take `eventSource: { maxEventSize }` and expose it as the dispatcher's
//   `eventSourceOptions` getter (compose() keeps it).

// (process.getBuiltinModule: lib/platform/bytes-node.js says why.)
const { constants } = process.getBuiltinModule('node:buffer')
const { createRequire } = process.getBuiltinModule('node:module')

const { MAX_STRING_LENGTH } = constants

// The slot every copy of undici in a process reads and writes (undici's lib/global.js), and Node's bundled
// undici fills where it is empty; undici 8 puts there a wrapper that speaks undici 7's handler API, as
// dispatcher-transport.js does. Reading it is what getGlobalDispatcher() does, without loading undici.
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
  // and a deep path with undici itself on Bun's node:net, which nothing tests: Bun gets its own fetch.
  if (process.versions.bun !== undefined) {
    hasUndici = false
    return null
  }
  let dispatcher = globalThis[kGlobalDispatcher]
  if (dispatcher === undefined && hasUndici === undefined) {
    // Node 22 and later: the global MessageEvent loads the undici inside Node, which installs its Agent in
    // the empty slot. Every EventSource builds a MessageEvent anyway: asked for first, it fills the slot,
    // and no second undici is loaded. Node 20's MessageEvent is its own: the package's Agent is installed.
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

// undici's lib/global.js installs `new Agent()` in the empty slot as it loads, as require('undici') does,
// and loads only the Agent. undici has no `exports` map, so the path is public to require(); should a
// later undici move the file, the whole package is loaded instead.
function installDefaultAgent () {
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
