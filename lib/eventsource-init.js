'use strict'

// The EventSourceInit dictionary: WebIDL conversion of the standard member (withCredentials) and
// validation of the Node extensions, which live at the top level of the dictionary (see the README
// for why). undici's shape (`node: { dispatcher, reconnectionTime }`) is accepted as it is, so code
// written for Node's built-in EventSource works unchanged.

const { invalidArgType, invalidArgValue, outOfRange } = require('./errors')
const { validateLimit } = require('./validators')
const { normalizeHeaders, normalizeHeaderName, normalizeMethod, normalizeBody, validateLastEventId } = require('./request-init')

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

function validateDispatcher (value, name) {
  if (!isObject(value) || typeof value.dispatch !== 'function') {
    throw invalidArgType(name, 'an undici Dispatcher (an object with a dispatch() method)', value)
  }
}

function validateTime (value, name) {
  validateLimit(value, name)
  return value
}

/**
 * @param {unknown} value init.reconnect
 */
function resolveReconnect (value) {
  const policy = { delay: undefined, factor: 1, maxDelay: Infinity, jitter: 'none', maxRetries: Infinity, statuses: null }
  if (value === undefined) return policy
  if (!isObject(value)) throw invalidArgType('init.reconnect', 'of type object', value)
  const { delay, factor, maxDelay, jitter, maxRetries, retryOnStatus } = value
  if (delay !== undefined) policy.delay = validateTime(delay, 'init.reconnect.delay')
  if (factor !== undefined) {
    if (typeof factor !== 'number') throw invalidArgType('init.reconnect.factor', 'of type number', factor)
    if (!(factor >= 1 && factor <= 1000)) {
      throw outOfRange('init.reconnect.factor', '>= 1 and <= 1000', factor)
    }
    policy.factor = factor
  }
  if (maxDelay !== undefined) {
    validateLimit(maxDelay, 'init.reconnect.maxDelay', { allowInfinity: true })
    policy.maxDelay = maxDelay
  }
  if (jitter !== undefined) {
    if (jitter !== 'none' && jitter !== 'full') throw invalidArgValue('init.reconnect.jitter', jitter, "must be 'none' or 'full'")
    policy.jitter = jitter
  }
  if (maxRetries !== undefined) {
    validateLimit(maxRetries, 'init.reconnect.maxRetries', { allowInfinity: true })
    policy.maxRetries = maxRetries
  }
  if (retryOnStatus !== undefined) {
    if (!Array.isArray(retryOnStatus)) throw invalidArgType('init.reconnect.retryOnStatus', 'an array of status codes', retryOnStatus)
    for (const status of retryOnStatus) {
      validateLimit(status, 'init.reconnect.retryOnStatus[]', { min: 100 })
      if (status === 200 || status > 599) {
        throw outOfRange('init.reconnect.retryOnStatus[]', 'a status from 100 to 599 other than 200', status)
      }
    }
    policy.statuses = new Set(retryOnStatus)
  }
  return policy
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
    allowInsecureRedirect: Boolean(dict.allowInsecureRedirect)
  }

  const node = dict.node
  let reconnectionTime
  if (node !== undefined) {
    if (!isObject(node)) throw invalidArgType('init.node', 'of type object', node)
    if (node.dispatcher !== undefined) {
      validateDispatcher(node.dispatcher, 'init.node.dispatcher')
      init.dispatcher = node.dispatcher
    }
    if (node.reconnectionTime !== undefined) reconnectionTime = validateTime(node.reconnectionTime, 'init.node.reconnectionTime')
  }
  if (dict.dispatcher !== undefined) {
    validateDispatcher(dict.dispatcher, 'init.dispatcher')
    init.dispatcher = dict.dispatcher
  }
  if (dict.reconnectionTime !== undefined) reconnectionTime = validateTime(dict.reconnectionTime, 'init.reconnectionTime')
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
    if (init.method === 'GET' || init.method === 'HEAD') {
      throw invalidArgValue('init.body', typeof dict.body === 'function' ? '[Function]' : dict.body,
        `cannot be sent with ${init.method}; set init.method (e.g. 'POST')`)
    }
    init.body = typeof dict.body === 'function' ? dict.body : normalizeBody(dict.body, 'init.body')
  }
  if (dict.lastEventId !== undefined) {
    validateLastEventId(dict.lastEventId, 'init.lastEventId')
    init.lastEventId = dict.lastEventId
  }
  if (dict.idleTimeout !== undefined) init.idleTimeout = validateTime(dict.idleTimeout, 'init.idleTimeout')
  if (dict.connectTimeout !== undefined) init.connectTimeout = validateTime(dict.connectTimeout, 'init.connectTimeout')
  if (dict.signal !== undefined) {
    if (!(dict.signal instanceof AbortSignal)) throw invalidArgType('init.signal', 'an instance of AbortSignal', dict.signal)
    init.signal = dict.signal
  }
  if (dict.credentialHeaders !== undefined) {
    const names = dict.credentialHeaders
    if (!Array.isArray(names)) throw invalidArgType('init.credentialHeaders', 'an array of header names', names)
    init.credentialHeaders = names.map((name) => {
      if (typeof name !== 'string') throw invalidArgType('init.credentialHeaders[]', 'of type string', name)
      return normalizeHeaderName(name, 'init.credentialHeaders')
    })
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
