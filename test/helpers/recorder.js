'use strict'

// Records what an EventTarget (an EventSource) dispatches, in order, with the readyState seen at
// dispatch time, and waits, bounded, for what a test expects to have been dispatched. Tests assert on
// the recorded list (t.same(rec.types, [...])), so a callback that never ran fails them.

const { isDeepStrictEqual } = require('node:util')
const { bounded, TIMEOUT } = require('./wait')

class Recorder {
  /** One entry per event: { type, readyState, time, data, lastEventId, origin, code, event }. */
  events = []
  #waiters = []

  /**
   * @param {EventTarget & { readyState?: number }} target
   * @param {string[]} [types] the event types listened for
   */
  constructor (target, types = ['open', 'message', 'error']) {
    this.target = target
    for (const type of types) target.addEventListener(type, (event) => this.#push(type, event))
  }

  #push (type, event) {
    this.events.push({
      type,
      readyState: this.target.readyState,
      time: performance.now(),
      data: event.data,
      lastEventId: event.lastEventId,
      origin: event.origin,
      code: event.code,
      event
    })
    this.#waiters = this.#waiters.filter((waiter) => {
      const found = waiter.find()
      if (found === undefined) return true
      waiter.resolve(found)
      return false
    })
  }

  /** Resolves with what `find()` returns once it returns something (it is asked now and at each event). */
  #until (find, what, ms) {
    const found = find()
    if (found !== undefined) return Promise.resolve(found)
    return bounded(new Promise((resolve) => this.#waiters.push({ find, resolve })),
      () => `${what}; recorded so far: ${JSON.stringify(this.types)}`, ms)
  }

  /** The recorded event types, in order. */
  get types () {
    return this.events.map((e) => e.type)
  }

  /** How many events of `type` were recorded. */
  count (type) {
    return this.of(type).length
  }

  /** The entries of the events of `type`. */
  of (type) {
    return this.events.filter((e) => e.type === type)
  }

  /** The data of the events of `type`. */
  data (type = 'message') {
    return this.of(type).map((e) => e.data)
  }

  /** Resolves with the entry of the n-th (1-based) event of `type`, already recorded or still to come. */
  wait (type, n = 1, ms = TIMEOUT) {
    return this.#until(() => this.of(type)[n - 1], `${type} #${n}`, ms)
  }

  /**
   * Resolves with the entry of the first event whose type is one of `types`: a test expecting `open`
   * but getting `error` fails at once instead of timing out.
   */
  first (types, ms = TIMEOUT) {
    return this.#until(() => this.events.find((e) => types.includes(e.type)), `one of ${types}`, ms)
  }

  /**
   * Resolves with the entries once `predicate(entries)` holds. The predicate is asked now and then
   * synchronously in the listener of each event, before any other code runs.
   */
  until (predicate, ms = TIMEOUT) {
    return this.#until(() => predicate(this.events) ? this.events : undefined, 'a condition', ms)
  }
}

/**
 * Starts recording the events of `target`.
 * @param {EventTarget} target
 * @param {string[]} [types] default: open, message, error
 */
function record (target, types) {
  return new Recorder(target, types)
}

/** An entry as recordExpected() reports it: [type, readyState], or ['message', data, lastEventId]. */
function summary ({ type, readyState, data, lastEventId }) {
  return type === 'message' ? ['message', data, lastEventId] : [type, readyState]
}

/**
 * Records what an EventSource reports (open, message, error) until it has reported as much as
 * `expected`, or something other than `expected` says at that place (so that a wrong turn fails at
 * once); then closes it, from the listener of that event, so that nothing more is dispatched.
 * Resolves with the summaries (see summary()).
 * @param {EventSource} es
 * @param {Array<Array<string | number>>} expected
 * @param {number} [ms]
 */
async function recordExpected (es, expected, ms = TIMEOUT) {
  const rec = record(es)
  const log = () => rec.events.map(summary)
  const done = (entries) => {
    const i = entries.length - 1
    if (i < 0 || (entries.length < expected.length && isDeepStrictEqual(summary(entries[i]), expected[i]))) return false
    es.close()
    return true
  }
  try {
    await rec.until(done, ms)
  } catch (err) {
    err.message += `; saw ${JSON.stringify(log().slice(0, 10))}`
    throw err
  }
  return log()
}

module.exports = { Recorder, record, recordExpected }
