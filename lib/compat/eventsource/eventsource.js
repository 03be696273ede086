'use strict'

// `whatwg-eventsource/eventsource`: the `eventsource` package's EventSource (its API of versions 3 to 5),
// for code and tests written against it, which switch by changing the import. It is this package's
// EventSource (lib/eventsource/eventsource.js: the same state machine, fetch transport and parser), configured
// through the core's internal init member (kCoreConfig) with that package's choices where they differ
// from ours:
// - every attempt is one call of the `fetch` init member (globalThis.fetch without one, as read at
//   construction), with that package's arguments: the URL given, as a URL, and
//   `{ mode, redirect: 'follow', headers: { Accept, Last-Event-ID }, cache, signal }`, plus `credentials`
//   only where `window` exists; what it resolves with is read as that package reads it
//   (lib/compat/eventsource/fetch.js);
// - the fetch follows redirects itself, by its own rules (`redirect: 'follow'`), as any user's fetch does
//   on the main entry: a fetch wrapper's redirect policy, such as the MCP SDK's same-origin one, stays in
//   charge; a redirect it does not follow is a response like any other (a status other than 200: the
//   connection fails); one from https: to http: is not refused;
// - a reconnection goes to the URL given, never to the final URL of a redirect;
// - the wait before a reconnection does not keep the process alive (that package unrefs its timer), unless
//   the init's keepAliveWhileReconnecting (ours) is true;
// - the first fetch is called from the constructor (tests written for that package count the calls
//   right after `new EventSource()`), not from a promise job after it;
// - error events are that package's ErrorEvent, `code` the HTTP status and `message` its texts
//   (lib/compat/eventsource/error-event.js);
// - the URL is a string or a URL, resolved against document.baseURI; anything else, or an invalid URL,
//   throws that package's SyntaxError;
// - the init members are that package's: withCredentials, fetch and (version 5) maxBufferSize, the
//   limit on one event (100 MiB by default, as that package's), and one of ours, keepAliveWhileReconnecting;
//   other members are ignored, as it does.
// Where that package's versions differ, version 5 is followed, as it follows the standard (and so do we):
// `on*` handlers run in their place among the listeners, an event without `id:` keeps the last event ID,
// the Content-Type is compared by its essence, nothing is dispatched after close().
// What stays ours, and why, is listed in the README ("Switching from `eventsource`").

const { EventSource: CoreEventSource } = require('../../eventsource/eventsource')
const { kCoreConfig } = require('../../constants')
const { errorEventFactory } = require('./error-event')
const { packageFetch } = require('./fetch')
const { validateFetch, validateLimit } = require('../../validators')

// That package's default limit on what the parser buffers (version 5; earlier versions had none).
const DEFAULT_MAX_BUFFER_SIZE = 100 * 1024 * 1024

// The core configuration of a source with the default limit, shared by all of them.
let defaultCoreConfig = null

function coreConfig (maxBufferSize) {
  return {
    errorEvent: errorEventFactory(maxBufferSize),
    reconnectToFinalUrl: false,
    connectInConstructor: true
  }
}

/**
 * The URL as that package takes it: a URL, or a string resolved against the document's base URL when
 * there is a document; anything else, or a string that is not a URL, is a SyntaxError with its message.
 * (The standard converts any value to a string, as our main entry does.)
 * @param {unknown} url
 * @returns {string}
 */
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

class EventSource extends CoreEventSource {
  /**
   * @param {string | URL} url
   * @param {{ withCredentials?: boolean, fetch?: Function, maxBufferSize?: number,
   *   keepAliveWhileReconnecting?: boolean }} [eventSourceInitDict]
   */
  constructor (url, eventSourceInitDict = undefined) {
    const href = parseUrl(url)
    const fetch = eventSourceInitDict?.fetch ?? globalThis.fetch
    validateFetch(fetch, 'init.fetch')
    const maxBufferSize = eventSourceInitDict?.maxBufferSize
    if (maxBufferSize !== undefined) validateLimit(maxBufferSize, 'init.maxBufferSize', { min: 1, allowInfinity: true })
    super(href, {
      withCredentials: eventSourceInitDict?.withCredentials,
      fetch: packageFetch(fetch),
      maxEventSize: maxBufferSize ?? DEFAULT_MAX_BUFFER_SIZE,
      // That package's fetch follows redirects from https: to http: as fetch does; nothing refuses them.
      allowInsecureRedirect: true,
      // That package unrefs its reconnection timer (versions 4 and 5); our member lets a user choose.
      keepAliveWhileReconnecting: Boolean(eventSourceInitDict?.keepAliveWhileReconnecting),
      [kCoreConfig]: maxBufferSize === undefined
        ? (defaultCoreConfig ??= coreConfig(DEFAULT_MAX_BUFFER_SIZE))
        : coreConfig(maxBufferSize)
    })
  }
}

// How code finds out that an EventSource takes a `fetch` (that package's marker, from version 4.1): a
// constant, non-enumerable property of the constructor.
Object.defineProperty(EventSource, Symbol.for('eventsource.supports-fetch-override'), {
  value: true,
  writable: false,
  enumerable: false,
  configurable: false
})

module.exports = { EventSource }
