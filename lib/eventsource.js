'use strict'

// The EventSource interface and its processing model.
// https://html.spec.whatwg.org/multipage/server-sent-events.html#the-eventsource-interface
// https://html.spec.whatwg.org/multipage/server-sent-events.html#sse-processing-model
//
// This file owns the readyState machine and event dispatch. One HTTP attempt is a Connection
// (lib/connection.js); the bytes go to an EventSourceParser (lib/parser.js), whose callbacks land here.
// The Node extensions (lib/eventsource-init.js) only add to it: with none given, every step is the
// standard's.

const { Buffer } = require('node:buffer')
const { EventSourceParser } = require('./parser')
const { Connection } = require('./connection')
const { CONNECTING, OPEN, CLOSED } = require('./constants')
const { connectionError } = require('./errors')
const { defineEventHandler } = require('./event-handler')
const { resolveInit } = require('./eventsource-init')
const { attemptRequest, isSendableLastEventId } = require('./request-init')
const { backoffDelay, clampDelay } = require('./reconnect-policy')
const { errorEventFor } = require('./error-event')
const { MessageIterator, eventCost } = require('./message-iterator')
const { unshared } = require('./unshared-string')

// The default reconnection time: "a user-agent-defined value, probably in the region of a few
// seconds". Chromium, Firefox and Node's built-in all use 3 s.
const DEFAULT_RECONNECTION_TIME = 3000

let undici = null
// The global dispatcher, looked up at each attempt so that setGlobalDispatcher() applies. undici is
// loaded on first use only: parser-only users never pay for it.
function globalDispatcher () {
  undici ??= require('undici')
  return undici.getGlobalDispatcher()
}

// Set in the class's static block, where the private names are in scope.
let hasEventSourceBrand
let handlerSlots
let report

// What a Connection reports to its EventSource, kept off the public surface: one small object per
// source whose methods are shared (five closures per source would cost about 340 bytes on every
// idle connection).
class ConnectionDelegate {
  #source

  constructor (source) {
    this.#source = source
  }

  onOpen () { report.open(this.#source) }
  onData (chunk) { report.data(this.#source, chunk) }
  onEnd () { report.end(this.#source) }
  onNetworkError (error) { report.networkError(this.#source, error) }
  onFail (error) { report.fail(this.#source, error) }
}

// The usual event types, as bits: a Set of listened-for types costs about 150 bytes per source.
const USUAL_TYPES = { __proto__: null, open: 1, message: 2, error: 4 }

function brandCheck (object) {
  if (object === null || typeof object !== 'object' || !hasEventSourceBrand(object)) {
    throw new TypeError('Illegal invocation: the receiver is not an EventSource')
  }
}

class EventSource extends EventTarget {
  #url
  #withCredentials
  #readyState = CONNECTING
  // Where requests go: the URL, then the final URL of the last redirected request (as in Chromium),
  // with the method that request ended with (a redirect may have made it a GET without a body).
  #requestUrl
  #requestMethod
  #init
  #parser
  #connection = null
  #timer = null
  #reconnectionTime
  // The origin of the final URL of the current response, for MessageEvent#origin.
  #origin = ''
  // Requests started (for init.headers/init.body functions), and failed attempts since the last open
  // (for the reconnection policy).
  #attempts = 0
  #failures = 0
  #iterators = null
  // Network chunks received, for the iterators' queues (lib/message-iterator.js).
  #chunks = 0
  #onAbort = null
  // The event types that have had a listener (see addEventListener): bits of USUAL_TYPES, and a Set
  // for any other type.
  #listenedBits = 0
  #listenedTypes = null
  // The values of onopen, onmessage and onerror (lib/event-handler.js), once any is set.
  #handlers = null

  static {
    hasEventSourceBrand = (object) => #url in object
    report = {
      open: (source) => source.#announce(),
      data: (source, chunk) => source.#onData(chunk),
      end: (source) => source.#reestablish(connectionError('ERR_EVENTSOURCE_STREAM_ENDED', 'The server ended the event stream')),
      networkError: (source, error) => source.#reestablish(error),
      fail: (source, error) => source.#failConnection(error)
    }
    handlerSlots = ['open', 'message', 'error'].map((type, index) => ({
      type,
      get: (source) => source.#handlers?.[index],
      set: (source, value) => { (source.#handlers ??= [undefined, undefined, undefined])[index] = value }
    }))
  }

  #delegate = new ConnectionDelegate(this)

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
    this.#requestMethod = init.method
    this.#withCredentials = init.withCredentials
    this.#init = init
    this.#reconnectionTime = init.reconnect.delay ?? DEFAULT_RECONNECTION_TIME
    this.#parser = new EventSourceParser({
      onEvent: (type, data, lastEventId) => this.#dispatchMessage(type, data, lastEventId),
      onRetry: (ms) => { this.#reconnectionTime = ms },
      maxEventSize: init.maxEventSize,
      lastEventId: init.lastEventId
    })
    if (init.signal !== null) {
      if (init.signal.aborted) {
        this.#readyState = CLOSED
        return
      }
      this.#onAbort = () => this.close()
      init.signal.addEventListener('abort', this.#onAbort, { once: true })
    }
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
    this.#stop(null)
  }

  // Firing an event that has no listener has no effect anyone can observe, so a message of a type
  // nobody listens for is not even created. A type stays listened-for once a listener was added: a
  // listener can go (`once`, an AbortSignal) without removeEventListener being called.
  addEventListener (type, listener, options) {
    brandCheck(this)
    super.addEventListener(type, listener, options)
    if (listener === null || listener === undefined) return
    const name = `${type}`
    const bit = USUAL_TYPES[name]
    if (bit !== undefined) this.#listenedBits |= bit
    else (this.#listenedTypes ??= new Set()).add(name)
  }

  /**
   * Extension: `for await (const event of source)` yields every MessageEvent, whatever its type.
   * @returns {AsyncIterableIterator<MessageEvent>}
   */
  [Symbol.asyncIterator] () {
    brandCheck(this)
    const iterator = new MessageIterator({
      pause: () => this.#connection?.pause(),
      resume: () => this.#resumeIfDrained(),
      close: () => this.close(),
      remove: (it) => { this.#iterators.delete(it); this.#resumeIfDrained() }
    }, this.#init.highWaterMark, this.#init.highWaterMarkBytes)
    if (this.#readyState === CLOSED) iterator.finish(null)
    else (this.#iterators ??= new Set()).add(iterator)
    return iterator
  }

  // Releases everything that could run later: the request, its socket, the reconnection timer, the
  // abort listener. Ending the parser also drops the events still to come from the chunk being parsed.
  // Iterations end (error === null) or throw the error.
  #stop (error) {
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
    if (this.#onAbort !== null) {
      this.#init.signal.removeEventListener('abort', this.#onAbort)
      this.#onAbort = null
    }
    if (this.#iterators !== null) {
      for (const iterator of this.#iterators) iterator.finish(error)
      this.#iterators = null
    }
  }

  #connect () {
    if (this.#readyState === CLOSED) return
    const attempt = ++this.#attempts
    let request
    try {
      request = attemptRequest(this.#init, { attempt, lastEventId: this.#parser.lastEventId, url: this.#requestUrl.href })
    } catch (err) {
      this.#requestError(err)
      return
    }
    if (typeof request.then !== 'function') {
      this.#send(request)
      return
    }
    // init.headers or init.body returned a promise. close() may come meanwhile; so may nothing else.
    request.then((request) => {
      if (this.#readyState !== CLOSED) this.#send(request)
    }, (err) => {
      if (this.#readyState !== CLOSED) this.#requestError(err)
    })
  }

  // A user function for headers or body threw: reestablish, as for a network error. A value it
  // returned that cannot be sent fails the connection: retrying would send the same.
  #requestError (err) {
    if (err.code === 'ERR_EVENTSOURCE_REQUEST_INIT') this.#reestablish(err)
    else this.#failConnection(err)
  }

  #send ({ headers: userHeaders, body }) {
    const init = this.#init
    const headers = {
      accept: 'text/event-stream',
      // The request's cache mode is "no-store", for which fetch sends both of these.
      'cache-control': 'no-cache',
      pragma: 'no-cache',
      // What fetch sends; the body is decoded in lib/content-decoding.js.
      'accept-encoding': 'gzip, deflate, br',
      ...userHeaders
    }
    if (this.#requestMethod !== init.method) body = null
    if (body !== null && body.contentType !== null && headers['content-type'] === undefined) {
      headers['content-type'] = body.contentType
    }
    // Processing model, reestablish step 5.3: "If the EventSource object's last event ID string is not
    // the empty string, set (`Last-Event-ID`, last event ID string, encoded as UTF-8)". Header values
    // are written as latin1, so the UTF-8 bytes are spelled one character per byte.
    // An ID with a control character (a server may send one) cannot be sent as a header by undici or
    // Node's http; the header is left out rather than the request failing again at every attempt.
    const lastEventId = this.#parser.lastEventId
    if (lastEventId !== '' && isSendableLastEventId(lastEventId)) {
      headers['last-event-id'] = Buffer.from(lastEventId, 'utf8').toString('latin1')
    }
    const location = globalThis.location
    this.#parser.reset()
    this.#connection = new Connection({
      url: this.#requestUrl,
      method: this.#requestMethod,
      body: body === null ? null : body.body,
      headers,
      dispatcher: init.dispatcher ?? globalDispatcher(),
      credentialOrigin: new URL(this.#url).origin,
      documentOrigin: location === undefined ? null : new URL(`${location.href}`).origin,
      retryStatuses: init.reconnect.statuses,
      connectTimeout: init.connectTimeout,
      idleTimeout: init.idleTimeout,
      credentialHeaders: init.credentialHeaders,
      allowInsecureRedirect: init.allowInsecureRedirect
    }, this.#delegate)
    if (this.#anyIteratorFull()) this.#connection.pause()
    this.#connection.start()
  }

  // "Announce the connection".
  #announce () {
    this.#origin = this.#connection.url.origin
    this.#requestUrl = this.#connection.url
    this.#requestMethod = this.#connection.method
    this.#failures = 0
    this.#readyState = OPEN
    this.dispatchEvent(new Event('open'))
  }

  #onData (chunk) {
    this.#chunks++
    try {
      this.#parser.write(chunk)
    } catch (err) {
      // Only the parser's own limit throws here (listener exceptions never reach dispatchEvent's
      // caller): an event over maxEventSize fails the connection.
      this.#failConnection(err)
    }
  }

  // "Fail the connection": readyState CLOSED and one `error` event; no reconnection.
  #failConnection (error) {
    if (this.#readyState === CLOSED) return
    this.#readyState = CLOSED
    this.#stop(error)
    this.dispatchEvent(errorEventFor(error, undefined))
  }

  // "Reestablish the connection". `error` says why.
  #reestablish (error) {
    this.#connection = null
    // Step 1: if the readyState attribute is set to CLOSED, abort these steps.
    if (this.#readyState === CLOSED) return
    const policy = this.#init.reconnect
    // Extension: give up after maxRetries reconnections that did not open (none by default).
    if (++this.#failures > policy.maxRetries) {
      const attempts = this.#failures
      this.#failConnection(connectionError('ERR_EVENTSOURCE_RETRIES_EXHAUSTED',
        `Gave up after ${attempts} failed attempt${attempts === 1 ? '' : 's'} in a row: ${error.message}`,
        { status: error.status, statusText: error.statusText, headers: error.headers, url: error.url }, error))
      return
    }
    // The delay: the reconnection time, or what the backoff policy and Retry-After make of it.
    const delay = error.retryAfter !== undefined
      ? clampDelay(error.retryAfter)
      : backoffDelay(this.#reconnectionTime, this.#failures, policy)
    // Step 2: set readyState to CONNECTING and fire an event named error.
    this.#readyState = CONNECTING
    this.dispatchEvent(errorEventFor(error, delay))
    // A listener may have called close().
    if (this.#readyState !== CONNECTING) return
    // Steps 3-5: wait the reconnection time, then fetch again. The timer is not unref'd: an
    // EventSource that is not CLOSED keeps the process alive, as its open connection would.
    this.#timer = setTimeout(() => {
      this.#timer = null
      this.#connect()
    }, delay)
  }

  // HTML 9.2.6 "dispatch the event", steps 4-7: the parser has done steps 1-3.
  #dispatchMessage (type, data, lastEventId) {
    if (this.#readyState === CLOSED) return
    if (this.#iterators === null && !this.#isListenedFor(type)) return
    // A queue that already spans many chunks gets strings of their own (see lib/message-iterator.js).
    if (this.#iterators !== null && this.#anyIteratorKeepsChunks()) {
      type = unshared(type)
      data = unshared(data)
      lastEventId = unshared(lastEventId)
    }
    const event = new MessageEvent(type, { data, origin: this.#origin, lastEventId })
    this.dispatchEvent(event)
    if (this.#iterators === null || this.#readyState === CLOSED) return
    const cost = eventCost(event)
    for (const iterator of this.#iterators) iterator.push(event, cost, this.#chunks)
    if (this.#anyIteratorFull()) this.#connection?.pause()
  }

  #isListenedFor (type) {
    const bit = USUAL_TYPES[type]
    return bit !== undefined ? (this.#listenedBits & bit) !== 0 : this.#listenedTypes?.has(type) === true
  }

  #anyIteratorKeepsChunks () {
    for (const iterator of this.#iterators) if (iterator.keepsChunksBefore(this.#chunks)) return true
    return false
  }

  #anyIteratorFull () {
    if (this.#iterators === null) return false
    for (const iterator of this.#iterators) if (iterator.full) return true
    return false
  }

  #resumeIfDrained () {
    if (this.#connection !== null && !this.#anyIteratorFull()) this.#connection.resume()
  }
}

// The readyState constants, on the constructor and the prototype, read-only (WebIDL constants).
for (const [name, value] of [['CONNECTING', CONNECTING], ['OPEN', OPEN], ['CLOSED', CLOSED]]) {
  const descriptor = { value, enumerable: true, writable: false, configurable: false }
  Object.defineProperty(EventSource, name, descriptor)
  Object.defineProperty(EventSource.prototype, name, descriptor)
}

for (const slot of handlerSlots) defineEventHandler(EventSource.prototype, slot.type, brandCheck, slot)

Object.defineProperties(EventSource.prototype, {
  [Symbol.toStringTag]: { value: 'EventSource', configurable: true },
  url: { enumerable: true },
  withCredentials: { enumerable: true },
  readyState: { enumerable: true },
  close: { enumerable: true }
})

module.exports = { EventSource }
