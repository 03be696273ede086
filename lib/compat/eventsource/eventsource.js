// `whatwg-eventsource/eventsource`: the `eventsource` package's EventSource (its API of versions 3 to 5),
// for code written against it, which switches by changing the import: this package's EventSource with every
// extension, and that package's departures from the standard (./departures.js). The entry point gives the
// class it extends: Node's (lib/entries/eventsource.js) or a browser's (eventsource.browser.js).

import { fromCallerOf } from '../../errors/error-class.js'
import { parseUrl, coreInit } from './departures.js'

/**
 * That package's EventSource, on `CoreEventSource`.
 * @param {typeof EventTarget} CoreEventSource an EventSource class with the extensions
 */
function defineEventSourcePackage (CoreEventSource) {
  class EventSource extends CoreEventSource {
    /**
     * @param {string | URL} url
     * @param {{ withCredentials?: boolean, fetch?: Function, maxBufferSize?: number,
     *   keepAliveWhileReconnecting?: boolean }} [eventSourceInitDict]
     */
    constructor (url, eventSourceInitDict = undefined) {
      let href, init
      try {
        href = parseUrl(url)
        init = coreInit(eventSourceInitDict)
      } catch (err) {
        throw fromCallerOf(err, new.target)
      }
      super(href, init)
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
  return EventSource
}

export { defineEventSourcePackage }
