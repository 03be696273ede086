// Node's side of lib/eventsource/init.js (lib/entries/node-eventsource.js hands it to createInitResolver()):
// a source whose dictionary resolves to the same values as the last one resolved shares that one.
// Programs open their sources with the same options, often the same object; a resolved dictionary is an
// object of its own, which every idle source would keep. (A browser opens a few sources, not thousands:
// the browsers' builds share nothing, and keep this code out of their bundles.)

let lastInit = null

// The resolved dictionary a source keeps: `init`, or the last one if it holds the same values.
function sharedInit (init) {
  if (lastInit !== null && sameInit(init, lastInit)) return lastInit
  lastInit = init
  return init
}

// Whether two resolved dictionaries hold the same values (identical objects and functions, equal
// primitives and equal header records). What cannot be compared cheaply (a body, retryOnStatus, a
// request function) is never the same.
function sameInit (a, b) {
  return a.withCredentials === b.withCredentials && a.closeOnEnd === b.closeOnEnd &&
    a.allowInsecureRedirect === b.allowInsecureRedirect &&
    a.keepAliveWhileReconnecting === b.keepAliveWhileReconnecting &&
    a.maxEventSize === b.maxEventSize && a.method === b.method && a.lastEventId === b.lastEventId &&
    a.idleTimeout === b.idleTimeout && a.connectTimeout === b.connectTimeout && a.signal === b.signal &&
    a.idempotent === b.idempotent &&
    a.highWaterMark === b.highWaterMark && a.highWaterMarkBytes === b.highWaterMarkBytes &&
    a.departures === b.departures && a.incompleteEvent === b.incompleteEvent && a.onBatch === b.onBatch &&
    a.body === null && b.body === null && a.request === null && b.request === null &&
    sameTransport(a.transport, b.transport) && sameReconnect(a.reconnect, b.reconnect) &&
    sameRecord(a.headers, b.headers) && sameList(a.credentialHeaders, b.credentialHeaders) &&
    (a.errorBody === b.errorBody || (a.errorBody !== null && b.errorBody !== null &&
      a.errorBody.maxBytes === b.errorBody.maxBytes && a.errorBody.timeout === b.errorBody.timeout))
}

function sameTransport (a, b) {
  return a.dispatcher === b.dispatcher && a.fetch === b.fetch &&
    (a.http2 === b.http2 || (a.http2 !== null && b.http2 !== null && a.http2.key === b.http2.key &&
      a.http2.connect === b.http2.connect && a.http2.priorKnowledge === b.http2.priorKnowledge &&
      a.http2.pingInterval === b.http2.pingInterval && a.http2.pingTimeout === b.http2.pingTimeout))
}

// (A policy made from the options, after a failure, makes the shared one differ from a new one: no harm.
// null: the standard's reconnection, where no extension resolved the member.)
function sameReconnect (a, b) {
  if (a === null || b === null) return a === b
  return a.delay === b.delay && a.factor === b.factor && a.maxDelay === b.maxDelay && a.jitter === b.jitter &&
    a.maxRetries === b.maxRetries && a.statuses === null && b.statuses === null && a.policy === b.policy &&
    a.floor === b.floor
}

function sameRecord (a, b) {
  if (a === b) return true
  if (a === null || b === null || typeof a === 'function' || typeof b === 'function') return false
  const names = Object.keys(a)
  if (names.length !== Object.keys(b).length) return false
  for (const name of names) if (a[name] !== b[name]) return false
  return true
}

function sameList (a, b) {
  if (a === b) return true
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

export { sharedInit }
