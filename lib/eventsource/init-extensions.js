// The extensions of the EventSourceInit dictionary (every member but withCredentials, which
// lib/eventsource/init.js converts): validated and resolved into the source's init. They live at the top
// level of the dictionary (docs/extensions.md says why); undici's shape (`node: { dispatcher,
// reconnectionTime }`) is accepted too, so code written for Node's built-in EventSource works unchanged.
// The entry points whose EventSource has the extensions hand resolveExtensions() to lib/eventsource/init.js.

import { validateObject, validateFunction, validateNumber, validateLimit, validateTime } from '../validators/values.js'
import {
  validateOneOf, validateStatusList, validateDispatcher, validateFetch, validateAbortSignal, validateBooleanOrObject
} from '../validators/options.js'
import { validateHeaderNameList, validateBodyMethod, validateLastEventId } from '../validators/http.js'
import {
  normalizeHeaders, normalizeHeaderName, normalizeMethod, normalizeBody, requestFunction
} from '../transport/request-init.js'
import { codes } from '../errors/arguments.js'
import { kDepartures, NO_DEPARTURES } from './init.js'
import { ErrorBodyReader } from '../transport/error-body.js'
const { ERR_INVALID_ARG_VALUE } = codes

const DEFAULT_HIGH_WATER_MARK = 1000
// Bytes of queued events (lib/eventsource/message-iterator.js counts them) before `for await` pauses the source.
const DEFAULT_HIGH_WATER_MARK_BYTES = 16 * 1024 * 1024
const NO_HEADER_NAMES = Object.freeze([])

/** @param {unknown} value init.reconnect */
function resolveReconnect (value) {
  // `policy` is the user's policy function, or null until the first failure makes the declarative one
  // (lib/eventsource/reconnect-policy.js); `floor`: the storm floor holds under any policy.
  const reconnect = {
    delay: undefined,
    factor: 1,
    maxDelay: Infinity,
    jitter: 'none',
    maxRetries: Infinity,
    statuses: null,
    policy: null,
    floor: true
  }
  if (value === undefined) return reconnect
  validateObject(value, 'init.reconnect', { allowFunction: true })
  const { delay, factor, maxDelay, jitter, maxRetries, retryOnStatus, policy, floor } = value
  if (delay !== undefined) {
    validateTime(delay, 'init.reconnect.delay')
    reconnect.delay = delay
  }
  if (policy !== undefined) {
    validateFunction(policy, 'init.reconnect.policy')
    // The declarative options are the default policy: with a policy of the user's they would mean nothing.
    const declarative = [
      ['factor', factor], ['maxDelay', maxDelay], ['jitter', jitter], ['maxRetries', maxRetries],
      ['retryOnStatus', retryOnStatus]
    ]
    for (const [name, given] of declarative) {
      if (given !== undefined) {
        throw new ERR_INVALID_ARG_VALUE(`init.reconnect.${name}`, given,
          'cannot be given with init.reconnect.policy, which decides every delay')
      }
    }
    reconnect.policy = policy
  }
  if (floor !== undefined) reconnect.floor = Boolean(floor)
  if (factor !== undefined) {
    validateNumber(factor, 'init.reconnect.factor', 1, 1000)
    reconnect.factor = factor
  }
  if (maxDelay !== undefined) {
    validateLimit(maxDelay, 'init.reconnect.maxDelay', { allowInfinity: true })
    reconnect.maxDelay = maxDelay
  }
  if (jitter !== undefined) {
    validateOneOf(jitter, 'init.reconnect.jitter', ['none', 'full'])
    reconnect.jitter = jitter
  }
  if (maxRetries !== undefined) {
    validateLimit(maxRetries, 'init.reconnect.maxRetries', { allowInfinity: true })
    reconnect.maxRetries = maxRetries
  }
  if (retryOnStatus !== undefined) {
    validateStatusList(retryOnStatus, 'init.reconnect.retryOnStatus')
    reconnect.statuses = new Set(retryOnStatus)
  }
  return reconnect
}

// One member of a dictionary, read once (a getter runs once, as in WebIDL's conversion) and validated
// when present, as `${prefix}.${key}` in error messages (`options` go to validate).
function member (dict, key, prefix, validate, options) {
  const value = dict?.[key]
  if (value !== undefined) validate(value, `${prefix}.${key}`, options)
  return value
}

// init.http2 (lib/transport/http2-sessions.js): how often an HTTP/2 session with open streams is pinged,
// and how long an answer may take before the session is taken for lost.
const DEFAULT_PING_INTERVAL = 60_000
const DEFAULT_PING_TIMEOUT = 20_000
let defaultHttp2 = null

/** @param {unknown} value init.http2: true, or an object whose identity says which sources share sessions */
function resolveHttp2 (value) {
  if (value === undefined || value === false) return null
  validateBooleanOrObject(value, 'init.http2')
  if (value === true) {
    return (defaultHttp2 ??= {
      key: true,
      connect: undefined,
      priorKnowledge: false,
      pingInterval: DEFAULT_PING_INTERVAL,
      pingTimeout: DEFAULT_PING_TIMEOUT
    })
  }
  return {
    key: value,
    connect: member(value, 'connect', 'init.http2', validateObject),
    priorKnowledge: Boolean(value.priorKnowledge),
    pingInterval: member(value, 'pingInterval', 'init.http2', validateTime) ?? DEFAULT_PING_INTERVAL,
    pingTimeout: member(value, 'pingTimeout', 'init.http2', validateLimit, { min: 1 }) ?? DEFAULT_PING_TIMEOUT
  }
}

// init.errorBody: how much of the body of a response the source does not take is read for its error, and
// the reader of it (lib/transport/error-body.js). The core calls read(); it does not know the module.

class ErrorBodyBounds {
  // timeout in ms.
  constructor (maxBytes, timeout) {
    this.maxBytes = maxBytes
    this.timeout = timeout
    Object.freeze(this)
  }

  // Reads the body of the response `error` is about: the reader takes the reports of `attempt` and stands
  // for it until it tells `owner` (refused(error)).
  read (error, owner, attempt) {
    return new ErrorBodyReader(error, this, owner, attempt)
  }
}

// 64 KiB holds any API's error document; a second is long for a body the server has ready (it sent the
// head), and short for a program that waits for the error.
const DEFAULT_ERROR_BODY = new ErrorBodyBounds(64 * 1024, 1000)

// init.errorBody: false (not read: null), true, or { maxBytes, timeout }.
function resolveErrorBody (value) {
  if (value === undefined || value === true) return DEFAULT_ERROR_BODY
  if (value === false) return null
  validateBooleanOrObject(value, 'init.errorBody')
  const maxBytes = member(value, 'maxBytes', 'init.errorBody', validateLimit)
  const timeout = member(value, 'timeout', 'init.errorBody', validateTime)
  if (maxBytes === undefined && timeout === undefined) return DEFAULT_ERROR_BODY
  return new ErrorBodyBounds(maxBytes ?? DEFAULT_ERROR_BODY.maxBytes, timeout ?? DEFAULT_ERROR_BODY.timeout)
}

// The members that say how to request a stream: a source made by EventSource.fromReadableStream() sends no
// request (the application made it), so one given there is refused rather than ignored.
const REQUEST_MEMBERS = [
  'withCredentials', 'reconnect', 'allowInsecureRedirect', 'keepAliveWhileReconnecting', 'node', 'dispatcher',
  'fetch', 'http2', 'method', 'headers', 'body', 'request', 'idempotent', 'idleTimeout', 'connectTimeout',
  'credentialHeaders', 'errorBody'
]

// The extensions of a dictionary, into the init the core resolved its standard member in
// (lib/eventsource/init.js's standardInit()). fromStream: the dictionary of EventSource.fromReadableStream().
function resolveExtensions (dict, init, fromStream) {
  if (fromStream) {
    for (const name of REQUEST_MEMBERS) {
      if (dict[name] !== undefined) {
        throw new ERR_INVALID_ARG_VALUE(`init.${name}`, dict[name],
          'does not apply to EventSource.fromReadableStream(), which sends no request (the application made it)')
      }
    }
  }
  // The members only the extensions read, at their defaults, added in one order: every init has one shape.
  init.headers = null
  init.body = null
  init.idleTimeout = 0
  init.highWaterMark = DEFAULT_HIGH_WATER_MARK
  init.highWaterMarkBytes = DEFAULT_HIGH_WATER_MARK_BYTES
  init.credentialHeaders = NO_HEADER_NAMES
  init.reconnect = resolveReconnect(dict.reconnect)
  init.closeOnEnd = Boolean(dict.closeOnEnd)
  init.allowInsecureRedirect = Boolean(dict.allowInsecureRedirect)
  // A boolean dictionary member whose default is true: only undefined leaves the default.
  init.keepAliveWhileReconnecting =
    dict.keepAliveWhileReconnecting === undefined || Boolean(dict.keepAliveWhileReconnecting)
  init.departures = dict[kDepartures] ?? NO_DEPARTURES

  // undici's shape (node.dispatcher, node.reconnectionTime) and ours: where both are given, ours wins.
  const node = dict.node
  if (node !== undefined) validateObject(node, 'init.node', { allowFunction: true })
  const nodeDispatcher = member(node, 'dispatcher', 'init.node', validateDispatcher)
  const nodeTime = member(node, 'reconnectionTime', 'init.node', validateTime)
  const dispatcher = member(dict, 'dispatcher', 'init', validateDispatcher) ?? nodeDispatcher
  init.transport = Object.freeze({
    dispatcher,
    // Extension: a fetch for every attempt (lib/transport/fetch-transport.js) instead of a dispatcher.
    fetch: member(dict, 'fetch', 'init', validateFetch, dispatcher),
    http2: resolveHttp2(dict.http2)
  })
  const reconnectionTime = member(dict, 'reconnectionTime', 'init', validateTime) ?? nodeTime
  // The initial reconnection time: reconnect.delay, else reconnectionTime, else node.reconnectionTime.
  init.reconnect.delay ??= reconnectionTime
  init.maxEventSize = member(dict, 'maxEventSize', 'init', validateLimit, { min: 1, allowInfinity: true })

  const method = dict.method
  if (method !== undefined) init.method = normalizeMethod(method, 'init.method')
  const headers = dict.headers
  if (headers !== undefined) {
    init.headers = typeof headers === 'function' ? headers : normalizeHeaders(headers, 'init.headers')
  }
  const body = dict.body
  if (body !== undefined && body !== null) {
    validateBodyMethod(body, 'init.body', init.method)
    init.body = typeof body === 'function' ? body : normalizeBody(body, 'init.body')
  }
  // Extension: the request of each attempt as code (lib/transport/request.js). Function-valued headers and
  // body are shorthand for one, so they do not go with it.
  const request = member(dict, 'request', 'init', validateFunction)
  if (request !== undefined && (typeof init.headers === 'function' || typeof init.body === 'function')) {
    throw new ERR_INVALID_ARG_VALUE('init.request', request,
      'cannot be given with a headers or body function (return { headers, body } from init.request instead)')
  }
  // Extension: whether the request may be sent again after a failure (./reconnect-policy.js). Given, it
  // says so for every method (false makes even a GET one-shot); a request function is a say too, as it
  // decides what each attempt sends (MCP's POST resumed by GETs); headers and body functions do not choose
  // the method. Null leaves it to the method of the next attempt.
  const idempotent = dict.idempotent
  init.idempotent = idempotent !== undefined ? Boolean(idempotent) : request !== undefined || null
  init.request = requestFunction({
    request,
    headers: typeof init.headers === 'function' ? init.headers : undefined,
    body: typeof init.body === 'function' ? init.body : undefined
  })
  init.lastEventId = member(dict, 'lastEventId', 'init', validateLastEventId) ?? init.lastEventId
  init.idleTimeout = member(dict, 'idleTimeout', 'init', validateTime) ?? init.idleTimeout
  init.connectTimeout = member(dict, 'connectTimeout', 'init', validateTime) ?? init.connectTimeout
  init.signal = member(dict, 'signal', 'init', validateAbortSignal) ?? init.signal
  const names = member(dict, 'credentialHeaders', 'init', validateHeaderNameList)
  // Frozen: every request of the source shares it (lib/transport/request.js).
  if (names !== undefined) init.credentialHeaders = Object.freeze(names.map(normalizeHeaderName))
  init.highWaterMark = member(dict, 'highWaterMark', 'init', validateLimit, { min: 1 }) ?? init.highWaterMark
  init.highWaterMarkBytes =
    member(dict, 'highWaterMarkBytes', 'init', validateLimit, { min: 1 }) ?? init.highWaterMarkBytes
  init.errorBody = resolveErrorBody(dict.errorBody)
  const incompleteEvent = member(dict, 'incompleteEvent', 'init', validateOneOf, ['discard', 'dispatch'])
  // Where the end of the response is not the end of the stream (the source reconnects), an event cut there may
  // be sent again whole: dispatching its start would deliver it twice.
  if (incompleteEvent === 'dispatch' && !init.closeOnEnd && !fromStream) {
    throw new ERR_INVALID_ARG_VALUE('init.incompleteEvent', incompleteEvent,
      'can be \'dispatch\' only with init.closeOnEnd (or on EventSource.fromReadableStream()): a source that ' +
      'reconnects may be sent the rest of that event again')
  }
  if (incompleteEvent !== undefined) init.incompleteEvent = incompleteEvent
  init.onBatch = member(dict, 'onBatch', 'init', validateFunction) ?? null
  return init
}

export { resolveExtensions }
