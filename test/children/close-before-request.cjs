'use strict'

// A child process for test/eventsource/eventsource-close-before-request.test.cjs: an EventSource closed from inside a
// user callback that runs before its request is sent. The child never calls process.exit(): it must
// exit on its own, which it can only do if nothing (a request, its socket, a timer) is left running.
//
//   node test/children/close-before-request.cjs <where> <attempt> <event stream URL>
//
// where: the callback that calls close() (or aborts the init's signal: `signal`)
//   headers        a synchronous init.headers function
//   body           a synchronous init.body function (POST, idempotent)
//   signal         a synchronous init.headers function that aborts init.signal instead
//   fetch          a user's fetch, before it calls Node's fetch with the init it was given
//   dispatcher     a dispatcher's dispatch(), before it hands the request to undici's global Agent
//   diagnostics    a subscriber of the `connect` diagnostics channel
//   diagnostics-fetch  the same, the source with `fetch: globalThis.fetch` (the fetch transport)
// attempt: the attempt at which it does so, 1 (the first request) or 2 (the first reconnection)
//
// It prints one JSON line as it exits: the events dispatched, the calls of the callback, readyState.

const diagnosticsChannel = require('node:diagnostics_channel')
const { getGlobalDispatcher } = require('undici')
const { EventSource } = require('../..')

const [where, attemptText, url] = process.argv.slice(2)
const closeAt = Number(attemptText)
const WHERE = ['headers', 'body', 'signal', 'fetch', 'dispatcher', 'diagnostics', 'diagnostics-fetch']

const log = []
let calls = 0
let es = null
const controller = new AbortController()

// Calls close() (or aborts the signal) at the attempt asked for; returns nothing.
function maybeClose () {
  if (++calls !== closeAt) return
  if (where === 'signal') controller.abort()
  else es.close()
}

const init = { reconnectionTime: 1, signal: controller.signal }
if (where === 'headers' || where === 'signal') {
  init.headers = () => {
    maybeClose()
    return { 'x-attempt': String(calls) }
  }
} else if (where === 'body') {
  // A POST reconnects only when said to (idempotent): here the reconnection is the point.
  init.method = 'POST'
  init.idempotent = true
  init.body = () => {
    maybeClose()
    return `attempt ${calls}`
  }
} else if (where === 'fetch') {
  init.fetch = (input, fetchInit) => {
    maybeClose()
    return globalThis.fetch(input, fetchInit)
  }
} else if (where === 'dispatcher') {
  init.dispatcher = {
    dispatch (options, handler) {
      maybeClose()
      return getGlobalDispatcher().dispatch(options, handler)
    }
  }
} else if (where === 'diagnostics' || where === 'diagnostics-fetch') {
  if (where === 'diagnostics-fetch') init.fetch = globalThis.fetch
  diagnosticsChannel.subscribe('whatwg-eventsource:connect', maybeClose)
} else {
  throw new Error(`unknown place ${where}; one of ${WHERE.join(', ')}`)
}

es = new EventSource(url, init)
for (const type of ['open', 'message', 'error']) {
  es.addEventListener(type, (event) => log.push([type, event.data ?? null, es.readyState]))
}
process.once('exit', () => process.stdout.write(`${JSON.stringify({ where, log, calls, readyState: es.readyState })}\n`))
