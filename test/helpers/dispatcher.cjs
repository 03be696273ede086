'use strict'

// Around undici's dispatchers: one that counts what goes through it, and a host-name lookup for
// undici's `connect` options that never leaves the machine.

// The handler methods of undici's two handler APIs (onRequestStart... since undici 7, onConnect...
// before): a wrapped handler has exactly the methods of the handler it wraps, so the dispatcher drives
// it through the same API.
const HANDLER_METHODS = [
  'onRequestStart', 'onRequestUpgrade', 'onResponseStart', 'onResponseData', 'onResponseEnd', 'onResponseError',
  'onConnect', 'onUpgrade', 'onHeaders', 'onData', 'onComplete', 'onError', 'onBodySent', 'onRequestSent', 'onResponseStarted'
]

/**
 * A dispatcher that records, synchronously, the options of every request handed to it (the moment an
 * attempt starts, before any server sees it), and counts the response body bytes handed back to the
 * client: what the EventSource actually received, whatever the server managed to write into socket
 * buffers. Requests go to `inner`, or to an undici Agent of its own, destroyed at teardown. Set
 * `onChunk` to be called after the client has handled each body chunk (synchronously, in undici's call).
 * @param {import('tap').Test} t
 * @param {import('undici').Dispatcher} [inner]
 */
function countingDispatcher (t, inner) {
  let agent = inner
  if (agent === undefined) {
    // Required here: some tests must load undici themselves, after Node's fetch() has set the global
    // dispatcher (see test/transport/eventsource-legacy-handler.test.cjs).
    const { Agent } = require('undici')
    agent = new Agent()
    t.teardown(() => agent.destroy())
  }
  const counted = {
    /** The options of every dispatch() call, in order. */
    calls: [],
    /** Response body bytes and chunks handed to the client. */
    bytes: 0,
    chunks: 0,
    /** @type {(() => void) | null} */
    onChunk: null,
    dispatch (options, handler) {
      counted.calls.push(options)
      return agent.dispatch(options, countBody(handler, counted))
    }
  }
  return counted
}

function countBody (handler, counted) {
  const wrapped = {}
  for (const name of HANDLER_METHODS) {
    if (typeof handler[name] === 'function') wrapped[name] = (...args) => handler[name](...args)
  }
  const count = (chunk) => {
    counted.bytes += chunk.length
    counted.chunks++
  }
  const handled = (result) => {
    counted.onChunk?.()
    return result
  }
  if (wrapped.onResponseData) {
    wrapped.onResponseData = (controller, chunk) => {
      count(chunk)
      return handled(handler.onResponseData(controller, chunk))
    }
  }
  if (wrapped.onData) {
    wrapped.onData = (chunk) => {
      count(chunk)
      return handled(handler.onData(chunk))
    }
  }
  return wrapped
}

/**
 * A `lookup` for undici's `connect` options: the names in `hosts` resolve to 127.0.0.1, any other
 * name fails with ENOTFOUND, as getaddrinfo would for a name that does not exist. No query leaves
 * the machine. `calls` records every name looked up; add to `resolvable` to make a name resolve.
 * @param {string[]} hosts
 */
function loopbackLookup (hosts) {
  const calls = []
  const resolvable = new Set(hosts)
  function lookup (hostname, options, callback) {
    if (typeof options === 'function') {
      callback = options
      options = {}
    }
    calls.push(hostname)
    if (!resolvable.has(hostname)) {
      const err = new Error(`getaddrinfo ENOTFOUND ${hostname}`)
      err.code = 'ENOTFOUND'
      err.errno = -3008
      err.syscall = 'getaddrinfo'
      err.hostname = hostname
      process.nextTick(callback, err)
      return
    }
    if (options.all) process.nextTick(callback, null, [{ address: '127.0.0.1', family: 4 }])
    else process.nextTick(callback, null, '127.0.0.1', 4)
  }
  return { lookup, calls, resolvable }
}

module.exports = { countingDispatcher, loopbackLookup }
