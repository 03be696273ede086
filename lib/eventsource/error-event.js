'use strict'

// The `error` events of an EventSource. Browser code sees a plain Event (this is one); Node code can
// read why it fired. Every property is undefined where it is not known.

class EventSourceErrorEvent extends Event {
  /** @type {string | undefined} a message that says why */
  message
  /** @type {string | undefined} ERR_EVENTSOURCE_* */
  code
  /** @type {Error | undefined} the underlying error (e.g. ECONNREFUSED, a TLS error, the parser's too-large error) */
  cause
  /** @type {number | undefined} the response status, when a response arrived */
  status
  /** @type {string | undefined} */
  statusText
  /** @type {Headers | undefined} the response headers */
  headers
  /** @type {boolean} whether the EventSource will reconnect (readyState CONNECTING) */
  willReconnect = false
  /** @type {number | undefined} in how many ms, when it will */
  reconnectDelay

  /**
   * @param {string} type
   * @param {object} [init] the fields above, plus the EventInit members
   */
  constructor (type, init = {}) {
    super(type, init)
    const { message, code, cause, status, statusText, headers, willReconnect = false, reconnectDelay } = init
    this.message = message
    this.code = code
    this.cause = cause
    this.status = status
    this.statusText = statusText
    this.headers = headers === undefined ? undefined : new Headers(headers)
    this.willReconnect = willReconnect
    this.reconnectDelay = reconnectDelay
  }
}

/**
 * The event for an error from the connection layer (a connection error of lib/errors/index.js) or the parser.
 * @param {Error} error
 * @param {number | undefined} reconnectDelay
 */
function errorEventFor (error, reconnectDelay) {
  return new EventSourceErrorEvent('error', {
    message: error.message,
    code: error.code,
    cause: error.cause ?? error,
    status: error.status,
    statusText: error.statusText,
    headers: error.headers,
    willReconnect: reconnectDelay !== undefined,
    reconnectDelay
  })
}

module.exports = { EventSourceErrorEvent, errorEventFor }
