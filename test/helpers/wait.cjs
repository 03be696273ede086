'use strict'

// Bounded waits. Every wait in the tests ends on an event; when the event does not come within the
// bound, the wait fails with a message naming what it waited for. The bound is an AbortSignal.timeout,
// not a setTimeout: fake timers (test/helpers/fake-clock.cjs) leave it alone, so a wait stays bounded
// while a test moves a fake clock.

const { once } = require('node:events')

// Generous: a bound is reached only when something is wrong, and the machine may be loaded.
const TIMEOUT = 10_000

/**
 * Settles like `promise`, or rejects once `ms` have passed without it settling.
 * @template T
 * @param {Promise<T>} promise
 * @param {string | (() => string)} what what is waited for, for the failure message (a function is
 *   called only on failure, so it can describe the state at that time)
 * @param {number} [ms]
 * @returns {Promise<T>}
 */
function bounded (promise, what, ms = TIMEOUT) {
  const signal = AbortSignal.timeout(ms)
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      reject(new Error(`timed out after ${ms} ms waiting for ${typeof what === 'function' ? what() : what}`))
    }
    signal.addEventListener('abort', onAbort, { once: true })
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort))
  })
}

/**
 * events.once() with a bounded signal: resolves with the arguments of the next `type` event of
 * `target` (an EventEmitter or an EventTarget).
 * @param {import('node:events').EventEmitter | EventTarget} target
 * @param {string} type
 * @param {number} [ms]
 * @returns {Promise<any[]>}
 */
async function onceBounded (target, type, ms = TIMEOUT) {
  try {
    return await once(target, type, { signal: AbortSignal.timeout(ms) })
  } catch (err) {
    if (err.name !== 'AbortError') throw err
    throw new Error(`timed out after ${ms} ms waiting for a '${type}' event`, { cause: err })
  }
}

/** A promise and the functions that settle it, for signalling between a server handler and a test. */
function deferred () {
  let resolve, reject
  const promise = new Promise((_resolve, _reject) => { resolve = _resolve; reject = _reject })
  return { promise, resolve, reject }
}

/** Resolves after the current macrotask and everything it queued (microtasks, nextTicks). */
function macrotask () {
  return new Promise((resolve) => setImmediate(resolve))
}

module.exports = { TIMEOUT, bounded, onceBounded, deferred, macrotask }
