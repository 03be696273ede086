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
  /**
   * @type {string | undefined} the text of the body of a response the source did not take (a status
   *   other than 200, another Content-Type), as far as init.errorBody let it be read
   */
  body
  /** @type {boolean | undefined} whether `body` stops before the body's end (init.errorBody's bounds) */
  bodyTruncated
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
    const {
      message, code, cause, status, statusText, headers, body, bodyTruncated, willReconnect = false, reconnectDelay
    } = init
    this.message = message
    this.code = code
    this.cause = cause
    this.status = status
    this.statusText = statusText
    this.headers = headers === undefined ? undefined : new Headers(headers)
    this.body = body
    this.bodyTruncated = bodyTruncated
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
  // Its code and the details of its response as they are (its own properties: status, statusText, headers,
  // body, bodyTruncated; lib/errors/error-class.js); its message and cause are not its own enumerable ones.
  return new EventSourceErrorEvent('error', {
    ...error,
    message: error.message,
    cause: error.cause ?? error,
    willReconnect: reconnectDelay !== undefined,
    reconnectDelay
  })
}

export { EventSourceErrorEvent, errorEventFor }
