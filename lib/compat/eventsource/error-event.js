// The `eventsource` package's ErrorEvent (versions 3 to 5), and the code and message that package gives
// each failure (docs/migrating-from-eventsource.md#error-events), made from this package's errors. Code
// written for that package reads them: the MCP SDK starts its OAuth flow on `event.code === 401`, and shows
// `event.message`. Failures that package does not have (our connect timeout, a URL scheme that is not http:
// or https:) keep our message, without a code.

import { codes as parserCodes } from '../../errors/parser.js'
import { codes as connectionCodes } from '../../errors/connection.js'
import { packageMessageOf } from './fetch.js'
const { ERR_EVENTSOURCE_EVENT_TOO_LARGE } = parserCodes
const {
  ERR_EVENTSOURCE_BAD_CONTENT_TYPE, ERR_EVENTSOURCE_BAD_STATUS, ERR_EVENTSOURCE_INVALID_BODY, ERR_EVENTSOURCE_NETWORK,
  ERR_EVENTSOURCE_STREAM_ENDED
} = connectionCodes

// (A declared constructor is named after its code: lib/errors/error-class.js.)
const BAD_STATUS = ERR_EVENTSOURCE_BAD_STATUS.name
const BAD_CONTENT_TYPE = ERR_EVENTSOURCE_BAD_CONTENT_TYPE.name
const INVALID_BODY = ERR_EVENTSOURCE_INVALID_BODY.name
const NETWORK = ERR_EVENTSOURCE_NETWORK.name
const STREAM_ENDED = ERR_EVENTSOURCE_STREAM_ENDED.name
const EVENT_TOO_LARGE = ERR_EVENTSOURCE_EVENT_TOO_LARGE.name

// An `error` event with that package's code (the HTTP status, when a response caused the error) and
// message. Like that package's, it ignores the EventInit members (it neither bubbles nor can be cancelled).
class ErrorEvent extends Event {
  constructor (type, errorEventInitDict = undefined) {
    super(type)
    this.code = errorEventInitDict?.code ?? undefined
    this.message = errorEventInitDict?.message ?? undefined
  }

  // Node's and Deno's inspect show an Event's own fields only through a hook: console.log(event) shows
  // code and message, as it does with that package.
  [Symbol.for('nodejs.util.inspect.custom')] (depth, options, inspect) {
    return inspect(inspectable(this), options)
  }

  [Symbol.for('Deno.customInspect')] (inspect, options) {
    return inspect(inspectable(this), options)
  }
}

function inspectable (event) {
  const { type, message, code, defaultPrevented, cancelable, timeStamp } = event
  return { type, message, code, defaultPrevented, cancelable, timeStamp }
}

// The package's code and message for one of our errors (maxBufferSize: the source's, for the message of
// an event over it).
function packageError (error, maxBufferSize) {
  switch (error.code) {
    case BAD_STATUS:
      return error.status === 204
        ? { code: 204, message: 'Server sent HTTP 204, not reconnecting' }
        : { code: error.status, message: `Non-200 status code (${error.status})` }
    case BAD_CONTENT_TYPE:
      return { code: error.status, message: 'Invalid content type, expected "text/event-stream"' }
    case INVALID_BODY:
      return { code: error.status, message: 'Invalid response body, expected a web ReadableStream' }
    case NETWORK:
      return { code: undefined, message: packageMessageOf(error.cause) }
    case STREAM_ENDED:
      return { code: undefined, message: undefined }
    case EVENT_TOO_LARGE:
      return { code: undefined, message: `Buffered data exceeded max buffer size of ${maxBufferSize} characters` }
    default:
      return { code: undefined, message: error.message }
  }
}

// The error event factory of a source (the core's init.errorEvent): (error, reconnectDelay) => event.
function errorEventFactory (maxBufferSize) {
  return (error) => new ErrorEvent('error', packageError(error, maxBufferSize))
}

export { ErrorEvent, errorEventFactory }
