'use strict'

// Records what an EventTarget (an EventSource) dispatches, in order, with the readyState seen at
// dispatch time, and waits, bounded, for what a test expects to have been dispatched. Tests assert on
// the recorded list (t.same(rec.types, [...])), so a callback that never ran fails them.

const { isDeepStrictEqual } = require('node:util')
const dc = require('node:diagnostics_channel')
const { bounded, TIMEOUT } = require('./wait.cjs')

// Bounded waits for something a recorder will have recorded: each waiter's find() is asked at once and
// after every record, until it returns something.
class Waiters {
  #waiting = []

  until (find, describe, ms) {
    const found = find()
    if (found !== undefined) return Promise.resolve(found)
    return bounded(new Promise((resolve) => this.#waiting.push({ find, resolve })), describe, ms)
  }

  check () {
    this.#waiting = this.#waiting.filter((waiter) => {
      const found = waiter.find()
      if (found === undefined) return true
      waiter.resolve(found)
      return false
    })
  }
}

class Recorder {
  /** One entry per event: { type, readyState, time, data, lastEventId, origin, code, event }. */
  events = []
  #waiters = new Waiters()

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
    this.#waiters.check()
  }

  /** Resolves with what `find()` returns once it returns something (it is asked now and at each event). */
  #until (find, what, ms) {
    return this.#waiters.until(find, () => `${what}; recorded so far: ${JSON.stringify(this.types)}`, ms)
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

// The package's diagnostics channels (lib/platform/channels-node.js), and the attempt's TracingChannel.
const CHANNELS = ['create', 'connect', 'open', 'message', 'error', 'close']
const TRACING_EVENTS = ['start', 'end', 'asyncStart', 'asyncEnd', 'error']

/**
 * Records what the diagnostics channels publish, in order, from the call until the test's teardown,
 * where it unsubscribes. One entry per message: `name` ('connect', ... for the channels,
 * 'trace:start', ... for the attempt's TracingChannel, or any other channel's name given in `extra`),
 * `message` (a shallow copy as it was when published: the TracingChannel's context object is one
 * object, changed as the attempt goes), `source` and `time` (performance.now()). `log(source)` is the
 * entries of one source; `wait(name, n)` and `until(predicate)` wait, bounded, as Recorder's do.
 */
class ChannelRecorder {
  entries = []
  #waiters = new Waiters()

  /**
   * @param {import('tap').Test} t
   * @param {{ tracing?: boolean, extra?: string[], onMessage?: (name: string, message: object) => void }} [options]
   */
  constructor (t, { tracing = true, extra = [], onMessage } = {}) {
    const subscriptions = []
    const subscribe = (channel, name) => {
      const listener = (message) => {
        onMessage?.(name, message)
        this.#push(name, message)
      }
      dc.subscribe(channel, listener)
      subscriptions.push(() => dc.unsubscribe(channel, listener))
    }
    for (const name of CHANNELS) subscribe(`whatwg-eventsource:${name}`, name)
    if (tracing) {
      for (const event of TRACING_EVENTS) subscribe(`tracing:whatwg-eventsource:attempt:${event}`, `trace:${event}`)
    }
    for (const name of extra) subscribe(name, name)
    t.teardown(() => { for (const unsubscribe of subscriptions) unsubscribe() })
  }

  #push (name, message) {
    this.entries.push({ name, message: { ...message }, source: message?.source, time: performance.now() })
    this.#waiters.check()
  }

  #until (find, what, ms) {
    return this.#waiters.until(find, () => `${what}; published so far: ${JSON.stringify(this.names())}`, ms)
  }

  /** The entries of messages about `source` (all of them without it). */
  log (source) {
    return source === undefined ? this.entries : this.entries.filter((e) => e.source === source)
  }

  /** The channel names of log(source), in order. */
  names (source) {
    return this.log(source).map((e) => e.name)
  }

  /** The messages published on `name` about `source` (any source without it). */
  of (name, source) {
    return this.log(source).filter((e) => e.name === name).map((e) => e.message)
  }

  /** Resolves with the n-th (1-based) message on `name`, about `source` when given. */
  wait (name, n = 1, source = undefined, ms = TIMEOUT) {
    return this.#until(() => this.of(name, source)[n - 1], `${name} #${n}`, ms)
  }

  /** Resolves once `predicate(entries)` holds; asked now and at each message. */
  until (predicate, ms = TIMEOUT) {
    return this.#until(() => predicate(this.entries) ? this.entries : undefined, 'a condition', ms)
  }
}

/**
 * Records the package's diagnostics channels (and `extra` channels) until the teardown of `t`.
 * @param {import('tap').Test} t
 * @param {{ tracing?: boolean, extra?: string[], onMessage?: (name: string, message: object) => void }} [options]
 */
function recordChannels (t, options) {
  return new ChannelRecorder(t, options)
}

module.exports = { Recorder, record, recordExpected, ChannelRecorder, recordChannels, CHANNELS, TRACING_EVENTS }
