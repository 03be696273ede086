'use strict'

// The EventSource interface and its processing model.
// https://html.spec.whatwg.org/multipage/server-sent-events.html#the-eventsource-interface
// https://html.spec.whatwg.org/multipage/server-sent-events.html#sse-processing-model
//
// This file owns the readyState machine and event dispatch. One HTTP attempt is a Connection
// (lib/connection.js); the bytes go to an EventSourceParser (lib/parser.js), whose callbacks land here.

const { Buffer } = require('node:buffer')
const { EventSourceParser } = require('./parser')
const { Connection } = require('./connection')
const { CONNECTING, OPEN, CLOSED } = require('./constants')
const { defineEventHandler } = require('./event-handler')
const { resolveInit } = require('./eventsource-init')

// The default reconnection time: "a user-agent-defined value, probably in the region of a few
// seconds". Chromium, Firefox and Node's built-in all use 3 s.
const DEFAULT_RECONNECTION_TIME = 3000
// setTimeout takes at most 2^31 - 1 ms and runs larger delays after 1 ms: clamp instead, so a huge
// `retry:` never turns into a reconnection loop.
const MAX_TIMER_DELAY = 2 ** 31 - 1

let undici = null
// The global dispatcher, looked up at each attempt so that setGlobalDispatcher() applies. undici is
// loaded on first use only: parser-only users never pay for it.
function globalDispatcher () {
  undici ??= require('undici')
  return undici.getGlobalDispatcher()
}

// Set in the class's static block, where the private name is in scope.
let hasEventSourceBrand

function brandCheck (object) {
  if (object === null || typeof object !== 'object' || !hasEventSourceBrand(object)) {
    throw new TypeError('Illegal invocation: the receiver is not an EventSource')
  }
}

class EventSource extends EventTarget {
  #url
  #withCredentials
  #readyState = CONNECTING
  // Where requests go: the URL, then the final URL of the last redirected request (as in Chromium).
  #requestUrl
  #init
  #parser
  #connection = null
  #timer = null
  #reconnectionTime
  // The origin of the final URL of the current response, for MessageEvent#origin.
  #origin = ''

  static {
    hasEventSourceBrand = (object) => #url in object
  }

  // What the Connection reports, kept off the public surface.
  #delegate = {
    onOpen: () => this.#announce(),
    onData: (chunk) => this.#onData(chunk),
    onEnd: () => this.#reestablish(),
    onNetworkError: () => this.#reestablish(),
    onFail: (error) => this.#failConnection(error)
  }

  /**
   * @param {string | URL} url
   * @param {import('../types').EventSourceInit} [eventSourceInitDict]
   */
  constructor (url, eventSourceInitDict = undefined) {
    if (arguments.length === 0) {
      throw new TypeError("Failed to construct 'EventSource': 1 argument required, but only 0 present.")
    }
    super()
    // WebIDL: url is a USVString, the dictionary a dictionary (undefined and null mean "empty").
    const urlString = `${url}`
    const init = resolveInit(eventSourceInitDict)

    // Steps 3-5: parse the URL against the document's base URL, when there is a document.
    const base = globalThis.location?.href
    let urlRecord
    try {
      urlRecord = base === undefined ? new URL(urlString) : new URL(urlString, `${base}`)
    } catch (cause) {
      throw new DOMException(`Failed to construct 'EventSource': The URL '${urlString}' is invalid.`,
        { name: 'SyntaxError', cause })
    }
    this.#url = urlRecord.href
    this.#requestUrl = urlRecord
    this.#withCredentials = init.withCredentials
    this.#init = init
    this.#reconnectionTime = init.reconnectionTime ?? DEFAULT_RECONNECTION_TIME
    this.#parser = new EventSourceParser({
      onEvent: (type, data, lastEventId) => this.#dispatchMessage(type, data, lastEventId),
      onRetry: (ms) => { this.#reconnectionTime = ms },
      maxEventSize: init.maxEventSize
    })
    // The fetch runs "in parallel": start it once the constructor has returned, so listeners added
    // right after construction see every event, and close() before then sends no request at all.
    queueMicrotask(() => this.#connect())
  }

  get url () {
    brandCheck(this)
    return this.#url
  }

  get withCredentials () {
    brandCheck(this)
    return this.#withCredentials
  }

  get readyState () {
    brandCheck(this)
    return this.#readyState
  }

  /** Aborts any connection or pending reconnection and sets readyState to CLOSED. */
  close () {
    brandCheck(this)
    if (this.#readyState === CLOSED) return
    this.#readyState = CLOSED
    this.#stop()
  }

  // Releases everything that could run later: the request, its socket, the reconnection timer.
  // Ending the parser also drops the events still to come from the chunk being parsed.
  #stop () {
    this.#parser.end()
    if (this.#connection !== null) {
      const connection = this.#connection
      this.#connection = null
      connection.abort()
    }
    if (this.#timer !== null) {
      clearTimeout(this.#timer)
      this.#timer = null
    }
  }

  #connect () {
    if (this.#readyState === CLOSED) return
    const headers = {
      accept: 'text/event-stream',
      'cache-control': 'no-cache',
      // What fetch sends; the body is decoded in lib/content-decoding.js.
      'accept-encoding': 'gzip, deflate, br'
    }
    // Processing model, reestablish step 5.3: "If the EventSource object's last event ID string is not
    // the empty string, set (`Last-Event-ID`, last event ID string, encoded as UTF-8)". Header values
    // are written as latin1, so the UTF-8 bytes are spelled one character per byte.
    const lastEventId = this.#parser.lastEventId
    if (lastEventId !== '') headers['last-event-id'] = Buffer.from(lastEventId, 'utf8').toString('latin1')
    const location = globalThis.location
    this.#parser.reset()
    this.#connection = new Connection({
      url: this.#requestUrl,
      method: 'GET',
      body: null,
      headers,
      dispatcher: this.#init.dispatcher ?? globalDispatcher(),
      documentOrigin: location === undefined ? null : new URL(`${location.href}`).origin
    }, this.#delegate)
    this.#connection.start()
  }

  // "Announce the connection".
  #announce () {
    this.#origin = this.#connection.url.origin
    this.#requestUrl = this.#connection.url
    this.#readyState = OPEN
    this.dispatchEvent(new Event('open'))
  }

  #onData (chunk) {
    try {
      this.#parser.write(chunk)
    } catch (err) {
      // Only the parser's own limit throws here (listener exceptions never reach dispatchEvent's
      // caller): an event over maxEventSize fails the connection.
      this.#failConnection(err)
    }
  }

  // "Fail the connection": readyState CLOSED and one `error` event; no reconnection.
  #failConnection () {
    if (this.#readyState === CLOSED) return
    this.#readyState = CLOSED
    this.#stop()
    this.dispatchEvent(new Event('error'))
  }

  // "Reestablish the connection".
  #reestablish () {
    this.#connection = null
    // Step 1: if the readyState attribute is set to CLOSED, abort these steps.
    if (this.#readyState === CLOSED) return
    // Step 2: set readyState to CONNECTING and fire an event named error.
    this.#readyState = CONNECTING
    this.dispatchEvent(new Event('error'))
    // A listener may have called close().
    if (this.#readyState !== CONNECTING) return
    // Steps 3-5: wait the reconnection time, then fetch again. The timer is not unref'd: an
    // EventSource that is not CLOSED keeps the process alive, as its open connection would.
    this.#timer = setTimeout(() => {
      this.#timer = null
      if (this.#readyState === CONNECTING) this.#connect()
    }, Math.min(this.#reconnectionTime, MAX_TIMER_DELAY))
  }

  // HTML 9.2.6 "dispatch the event", steps 4-7: the parser has done steps 1-3.
  #dispatchMessage (type, data, lastEventId) {
    if (this.#readyState === CLOSED) return
    this.dispatchEvent(new MessageEvent(type, { data, origin: this.#origin, lastEventId }))
  }
}

// The readyState constants, on the constructor and the prototype, read-only (WebIDL constants).
for (const [name, value] of [['CONNECTING', CONNECTING], ['OPEN', OPEN], ['CLOSED', CLOSED]]) {
  const descriptor = { value, enumerable: true, writable: false, configurable: false }
  Object.defineProperty(EventSource, name, descriptor)
  Object.defineProperty(EventSource.prototype, name, descriptor)
}

for (const type of ['open', 'message', 'error']) defineEventHandler(EventSource.prototype, type, brandCheck)

Object.defineProperties(EventSource.prototype, {
  [Symbol.toStringTag]: { value: 'EventSource', configurable: true },
  url: { enumerable: true },
  withCredentials: { enumerable: true },
  readyState: { enumerable: true },
  close: { enumerable: true }
})

module.exports = { EventSource }
