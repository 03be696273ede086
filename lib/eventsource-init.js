'use strict'

// The EventSourceInit dictionary: WebIDL conversion of the standard member (withCredentials) and
// validation of the Node extensions, which live at the top level of the dictionary (see the README
// for why). undici's shape (`node: { dispatcher, reconnectionTime }`) is accepted as it is, so code
// written for Node's built-in EventSource works unchanged.

const {
  validateObject, validateNumber, validateLimit, validateTime, validateOneOf, validateStatusList, validateDispatcher,
  validateAbortSignal, validateHeaderNameList, validateBodyMethod, validateLastEventId, validateBooleanOrObject
} = require('./validators')
const { normalizeHeaders, normalizeHeaderName, normalizeMethod, normalizeBody } = require('./request-init')

const DEFAULT_HIGH_WATER_MARK = 1000
// The time from sending a request to its response head (connectTimeout). An event stream server can
// send its head at once and take its time in the body, so a head that does not come means a server,
// proxy or load balancer that accepted the connection and went away; without a limit the attempt
// hangs for undici's headersTimeout, 300 s. 30 s leaves room for a cold start, a slow proxy or a
// server that computes before it answers, and a silent one is then a network error that reconnects,
// as the standard does for those. 0 waits as long as undici does.
const DEFAULT_CONNECT_TIMEOUT = 30_000

// Bytes of queued events (lib/message-iterator.js counts them) before `for await` pauses the source.
const DEFAULT_HIGH_WATER_MARK_BYTES = 16 * 1024 * 1024

function isObject (value) {
  return value !== null && (typeof value === 'object' || typeof value === 'function')
}

/**
 * @param {unknown} value init.reconnect
 */
function resolveReconnect (value) {
  const policy = { delay: undefined, factor: 1, maxDelay: Infinity, jitter: 'none', maxRetries: Infinity, statuses: null }
  if (value === undefined) return policy
  validateObject(value, 'init.reconnect', { allowFunction: true })
  const { delay, factor, maxDelay, jitter, maxRetries, retryOnStatus } = value
  if (delay !== undefined) {
    validateTime(delay, 'init.reconnect.delay')
    policy.delay = delay
  }
  if (factor !== undefined) {
    validateNumber(factor, 'init.reconnect.factor', 1, 1000)
    policy.factor = factor
  }
  if (maxDelay !== undefined) {
    validateLimit(maxDelay, 'init.reconnect.maxDelay', { allowInfinity: true })
    policy.maxDelay = maxDelay
  }
  if (jitter !== undefined) {
    validateOneOf(jitter, 'init.reconnect.jitter', ['none', 'full'])
    policy.jitter = jitter
  }
  if (maxRetries !== undefined) {
    validateLimit(maxRetries, 'init.reconnect.maxRetries', { allowInfinity: true })
    policy.maxRetries = maxRetries
  }
  if (retryOnStatus !== undefined) {
    validateStatusList(retryOnStatus, 'init.reconnect.retryOnStatus')
    policy.statuses = new Set(retryOnStatus)
  }
  return policy
}

// init.http2 (lib/http2-agents.js): how often an HTTP/2 session with open streams is pinged, and how long
// an answer may take before the session is taken for lost.
const DEFAULT_PING_INTERVAL = 60_000
const DEFAULT_PING_TIMEOUT = 20_000
let defaultHttp2 = null

/**
 * @param {unknown} value init.http2: true, or an object whose identity says which sources share sessions
 */
function resolveHttp2 (value) {
  if (value === undefined || value === false) return null
  validateBooleanOrObject(value, 'init.http2')
  if (value === true) {
    return (defaultHttp2 ??= {
      key: true, connect: undefined, priorKnowledge: false, pingInterval: DEFAULT_PING_INTERVAL, pingTimeout: DEFAULT_PING_TIMEOUT
    })
  }
  const http2 = {
    key: value,
    connect: undefined,
    priorKnowledge: Boolean(value.priorKnowledge),
    pingInterval: DEFAULT_PING_INTERVAL,
    pingTimeout: DEFAULT_PING_TIMEOUT
  }
  if (value.connect !== undefined) {
    validateObject(value.connect, 'init.http2.connect')
    http2.connect = value.connect
  }
  if (value.pingInterval !== undefined) {
    validateTime(value.pingInterval, 'init.http2.pingInterval')
    http2.pingInterval = value.pingInterval
  }
  if (value.pingTimeout !== undefined) {
    validateLimit(value.pingTimeout, 'init.http2.pingTimeout', { min: 1 })
    http2.pingTimeout = value.pingTimeout
  }
  return http2
}

// Every EventSource constructed without a dictionary shares one resolved default: nothing writes to it.
let defaultInit = null

/**
 * @param {unknown} dict the constructor's second argument
 */
function resolveInit (dict) {
  // WebIDL: undefined and null are an empty dictionary; other non-objects are a TypeError.
  if (dict === undefined || dict === null) return (defaultInit ??= resolveDictionary({}))
  if (!isObject(dict)) {
    throw new TypeError("Failed to construct 'EventSource': The provided value is not of type 'EventSourceInit'.")
  }
  return resolveDictionary(dict)
}

function resolveDictionary (dict) {
  const init = {
    withCredentials: Boolean(dict.withCredentials),
    dispatcher: undefined,
    reconnect: resolveReconnect(dict.reconnect),
    maxEventSize: undefined,
    headers: null,
    method: 'GET',
    body: null,
    lastEventId: '',
    idleTimeout: 0,
    connectTimeout: DEFAULT_CONNECT_TIMEOUT,
    signal: null,
    highWaterMark: DEFAULT_HIGH_WATER_MARK,
    closeOnEnd: Boolean(dict.closeOnEnd),
    highWaterMarkBytes: DEFAULT_HIGH_WATER_MARK_BYTES,
    credentialHeaders: [],
    allowInsecureRedirect: Boolean(dict.allowInsecureRedirect),
    http2: resolveHttp2(dict.http2)
  }

  const node = dict.node
  let reconnectionTime
  if (node !== undefined) {
    validateObject(node, 'init.node', { allowFunction: true })
    if (node.dispatcher !== undefined) {
      validateDispatcher(node.dispatcher, 'init.node.dispatcher')
      init.dispatcher = node.dispatcher
    }
    const nodeTime = node.reconnectionTime
    if (nodeTime !== undefined) {
      validateTime(nodeTime, 'init.node.reconnectionTime')
      reconnectionTime = nodeTime
    }
  }
  if (dict.dispatcher !== undefined) {
    validateDispatcher(dict.dispatcher, 'init.dispatcher')
    init.dispatcher = dict.dispatcher
  }
  const time = dict.reconnectionTime
  if (time !== undefined) {
    validateTime(time, 'init.reconnectionTime')
    reconnectionTime = time
  }
  // The initial reconnection time: reconnect.delay, else reconnectionTime, else node.reconnectionTime.
  init.reconnect.delay ??= reconnectionTime
  if (dict.maxEventSize !== undefined) {
    validateLimit(dict.maxEventSize, 'init.maxEventSize', { min: 1, allowInfinity: true })
    init.maxEventSize = dict.maxEventSize
  }

  if (dict.method !== undefined) init.method = normalizeMethod(dict.method, 'init.method')
  if (dict.headers !== undefined) {
    init.headers = typeof dict.headers === 'function' ? dict.headers : normalizeHeaders(dict.headers, 'init.headers')
  }
  if (dict.body !== undefined && dict.body !== null) {
    validateBodyMethod(dict.body, 'init.body', init.method)
    init.body = typeof dict.body === 'function' ? dict.body : normalizeBody(dict.body, 'init.body')
  }
  if (dict.lastEventId !== undefined) {
    validateLastEventId(dict.lastEventId, 'init.lastEventId')
    init.lastEventId = dict.lastEventId
  }
  const { idleTimeout } = dict
  if (idleTimeout !== undefined) {
    validateTime(idleTimeout, 'init.idleTimeout')
    init.idleTimeout = idleTimeout
  }
  const { connectTimeout } = dict
  if (connectTimeout !== undefined) {
    validateTime(connectTimeout, 'init.connectTimeout')
    init.connectTimeout = connectTimeout
  }
  const { signal } = dict
  if (signal !== undefined) {
    validateAbortSignal(signal, 'init.signal')
    init.signal = signal
  }
  const names = dict.credentialHeaders
  if (names !== undefined) {
    validateHeaderNameList(names, 'init.credentialHeaders')
    init.credentialHeaders = names.map(normalizeHeaderName)
  }
  if (dict.highWaterMark !== undefined) {
    validateLimit(dict.highWaterMark, 'init.highWaterMark', { min: 1 })
    init.highWaterMark = dict.highWaterMark
  }
  if (dict.highWaterMarkBytes !== undefined) {
    validateLimit(dict.highWaterMarkBytes, 'init.highWaterMarkBytes', { min: 1 })
    init.highWaterMarkBytes = dict.highWaterMarkBytes
  }
  return init
}

module.exports = { resolveInit }
