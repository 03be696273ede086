// The `error` events of an EventSource. Browser code sees a plain Event (this is one); Node code can
// read why it fired. Every property is undefined where it is not known; each is an own property, made
// by the constructor in the order types/index.d.ts declares them, where they are described.

class EventSourceErrorEvent extends Event {
  // init: the event's properties, plus the EventInit members.
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

// The event for an error from the connection layer (a connection error, lib/errors/error-class.js) or the parser.
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
