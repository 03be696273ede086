// The EventSourceInit dictionary: WebIDL conversion of the standard member (withCredentials), and the
// resolved init every source reads, each extension at its default. The extensions (every other member,
// at the top level of the dictionary: docs/extensions.md says why) are resolved by init-extensions.js,
// which the entry point that builds the EventSource hands to createInitResolver(): Node's always, a
// browser's in `whatwg-eventsource/extensions` (lib/entries/). Without it, a dictionary that gives any of
// them is refused with ERR_EVENTSOURCE_EXTENSION_NOT_LOADED, never ignored.

import { codes } from '../errors/extensions.js'
import { errorEventFor } from './error-event.js'

// Where an entry point departs from the standard, and how: one object of this shape, read as init.departures
// and nowhere else. The main entry departs in nothing (NO_DEPARTURES); the `eventsource` package's entry gives
// its choices (lib/compat/eventsource/departures.js) through the init member kDepartures, the one seam, which no
// entry point exports, so a user's dictionary cannot carry it.
const kDepartures = Symbol('whatwg-eventsource.departures')

/**
 * @typedef {object} Departures
 * @property {(error: Error, reconnectDelay: number | undefined) => Event} errorEvent the `error` event
 *   for `error`, and the delay before the next attempt (undefined: none follows)
 * @property {boolean} reconnectToFinalUrl reconnections go to the final URL of a redirect (Chromium's
 *   choice), not to the URL given
 * @property {boolean} connectInConstructor the first request is started by the constructor, not once it
 *   has returned
 */

/** @type {Readonly<Departures>} */
const NO_DEPARTURES = Object.freeze({
  // The main entry's error events: ours (lib/eventsource/error-event.js).
  errorEvent: errorEventFor,
  reconnectToFinalUrl: true,
  connectInConstructor: false
})

// connectTimeout's default (docs/extensions.md says why there is a limit): 30 s leaves room for a cold start, a
// slow proxy or a server that computes before it answers; a silent one is then a network error that reconnects.
const DEFAULT_CONNECT_TIMEOUT = 30_000

const { ERR_EVENTSOURCE_EXTENSION_NOT_LOADED } = codes

function isObject (value) {
  return value !== null && (typeof value === 'object' || typeof value === 'function')
}

// Every member init-extensions.js reads (test/eventsource/extensions.test.cjs checks the list against it): one given
// to a build without the extensions is refused.
const EXTENSION_MEMBERS = [
  'reconnect', 'closeOnEnd', 'allowInsecureRedirect', 'keepAliveWhileReconnecting', 'node', 'dispatcher', 'fetch',
  'http2', 'reconnectionTime', 'maxEventSize', 'method', 'headers', 'body', 'request', 'idempotent', 'lastEventId',
  'idleTimeout', 'connectTimeout', 'signal', 'credentialHeaders', 'highWaterMark', 'highWaterMarkBytes', 'errorBody',
  'incompleteEvent', 'onBatch'
]

// How a build resolves the constructor's dictionary. resolveExtensions: init-extensions.js's, in a build with
// the extensions (without it, a dictionary that gives one is refused); share: the resolved init a source keeps
// (lib/eventsource/shared-init.js, on Node; without it each source keeps its own).
function createInitResolver ({ resolveExtensions = null, share = null } = {}) {
  // Every EventSource constructed without a dictionary shares one resolved default: nothing writes to it
  // (but init.reconnect.policy, made once from options that do not change).
  let defaultInit = null

  // fromStream: the dictionary given to EventSource.fromReadableStream(), where the extensions refuse the members
  // that say how to request a stream (init-extensions.js). (Without them, withCredentials is read but means nothing.)
  function resolveDictionary (dict, fromStream) {
    const init = standardInit(Boolean(dict.withCredentials))
    if (resolveExtensions !== null) return resolveExtensions(dict, init, fromStream)
    refuseExtensions(dict)
    return init
  }

  return function resolveInit (dict, fromStream = false) {
    // WebIDL: undefined and null are an empty dictionary; other non-objects are a TypeError.
    if (dict === undefined || dict === null) return (defaultInit ??= resolveDictionary({}, false))
    if (!isObject(dict)) {
      throw new TypeError("Failed to construct 'EventSource': The provided value is not of type 'EventSourceInit'.")
    }
    // Every member is read and checked each time, as WebIDL converts a dictionary; only the result is shared.
    const init = resolveDictionary(dict, fromStream)
    return share === null ? init : share(init)
  }
}

/** Throws for the first extension a dictionary gives, in a build without them: an option is never ignored. */
function refuseExtensions (dict) {
  for (const name of EXTENSION_MEMBERS) {
    if (dict[name] !== undefined) throw new ERR_EVENTSOURCE_EXTENSION_NOT_LOADED(`init.${name}`)
  }
}

// The resolved init of a dictionary with no extension in it: what the standard's steps read.
// init-extensions.js adds the members only the extensions read, and fills in the rest.
function standardInit (withCredentials) {
  return {
    withCredentials,
    // init.reconnect resolved (init-extensions.js); null: the standard's reconnection (lib/eventsource/reconnect.js).
    reconnect: null,
    maxEventSize: undefined,
    method: 'GET',
    // The request of each attempt as code: init.request, or what headers and body functions stand for.
    request: null,
    lastEventId: '',
    connectTimeout: DEFAULT_CONNECT_TIMEOUT,
    signal: null,
    closeOnEnd: false,
    keepAliveWhileReconnecting: true,
    // What becomes of an event the stream ended without its blank line: 'discard', as the standard says, or
    // 'dispatch' (an extension, with closeOnEnd or on a stream source).
    incompleteEvent: 'discard',
    // Extension: called with the messages of each chunk, in one task after theirs; null: none.
    onBatch: null,
    // What of the body of a response the source does not take is read for its error, and its reader
    // (init-extensions.js), or null: nothing, the attempt ends at once, as the standard's does.
    errorBody: null,
    // An entry point's departures from the standard (see NO_DEPARTURES).
    departures: NO_DEPARTURES
  }
}

export { createInitResolver, refuseExtensions, kDepartures, NO_DEPARTURES, EXTENSION_MEMBERS }
