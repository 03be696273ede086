// The `eventsource` package's departures from the standard, as whatwg-eventsource/eventsource copies them
// (docs/migrating-from-eventsource.md): everything that entry does otherwise than our main entry is decided
// here. The entry (./eventsource.js) is our EventSource with the init this module makes: members of ours
// where one says it (fetch, maxEventSize, allowInsecureRedirect, keepAliveWhileReconnecting, errorBody),
// and for the rest the core's one seam, a Departures object (lib/eventsource/init.js) under kDepartures:
// - every attempt is one call of the init's `fetch`, called and read as that package does (packageFetch,
//   ./fetch.js), which follows redirects itself; one from https: to http: is not refused;
// - a reconnection goes to the URL given, never to the final URL of a redirect (reconnectToFinalUrl);
// - the wait before a reconnection does not keep the process alive, unless keepAliveWhileReconnecting;
// - the first fetch is called from the constructor (connectInConstructor: tests written for that package
//   count the calls right after `new EventSource()`), not from a promise job after it;
// - error events are that package's ErrorEvent (errorEvent, ./error-event.js);
// - the URL is a string or a URL, else that package's SyntaxError (parseUrl);
// - the init members are that package's (withCredentials, fetch, maxBufferSize) and
//   keepAliveWhileReconnecting; other members are ignored, as it does.
// Where that package's versions differ, version 5 is followed, as it follows the standard.

import { kDepartures } from '../../eventsource/init.js'
import { errorEventFactory } from './error-event.js'
import { packageFetch } from './fetch.js'
import { validateLimit } from '../../validators/values.js'
import { validateFetch } from '../../validators/options.js'

// That package's default limit on what the parser buffers (version 5; earlier versions had none).
const DEFAULT_MAX_BUFFER_SIZE = 100 * 1024 * 1024

// The core's Departures for a source with this limit on an event (the error event's message names it).
function departures (maxBufferSize) {
  return Object.freeze({
    errorEvent: errorEventFactory(maxBufferSize),
    reconnectToFinalUrl: false,
    connectInConstructor: true
  })
}

// The Departures of every source with the default limit, shared.
let defaultDepartures = null

// The URL as that package takes it: a URL, or a string resolved against the document's base URL when
// there is a document; anything else, or a string that is not a URL, is a SyntaxError with its message.
// (The standard converts any value to a string, as our main entry does.)
function parseUrl (url) {
  try {
    if (url instanceof URL) return url.href
    if (typeof url === 'string') return new URL(url, documentBaseUrl()).href
  } catch {}
  throw new DOMException('An invalid or illegal string was specified', 'SyntaxError')
}

function documentBaseUrl () {
  const baseURI = globalThis.document?.baseURI
  return typeof baseURI === 'string' ? baseURI : undefined
}

// The core's init for that package's init dictionary (its members: ./eventsource.js's constructor).
function coreInit (dict) {
  const fetch = dict?.fetch ?? globalThis.fetch
  validateFetch(fetch, 'init.fetch')
  const maxBufferSize = dict?.maxBufferSize
  if (maxBufferSize !== undefined) validateLimit(maxBufferSize, 'init.maxBufferSize', { min: 1, allowInfinity: true })
  return {
    withCredentials: dict?.withCredentials,
    fetch: packageFetch(fetch),
    maxEventSize: maxBufferSize ?? DEFAULT_MAX_BUFFER_SIZE,
    allowInsecureRedirect: true,
    keepAliveWhileReconnecting: Boolean(dict?.keepAliveWhileReconnecting),
    // That package fails the connection as the response head comes, without reading its body.
    errorBody: false,
    [kDepartures]: maxBufferSize === undefined
      ? (defaultDepartures ??= departures(DEFAULT_MAX_BUFFER_SIZE))
      : departures(maxBufferSize)
  }
}

export { parseUrl, coreInit }
