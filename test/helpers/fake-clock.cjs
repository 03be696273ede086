'use strict'

// Fake timers as Jest and Sinon users install them (@sinonjs/fake-timers, which Jest's modern timers
// are built on), and EventSources driven through their reconnections on the fake clock, so every delay
// is asserted to the millisecond. Sockets stay real: a test waits for their events (bounded waits count
// on AbortSignal.timeout, which fake timers leave alone) and then moves the clock with clock.tick(ms).

const { open } = require('./eventsource.cjs')
const { record } = require('./recorder.cjs')

// setTimeout, setInterval, Date, performance and the rest are fake; not process.nextTick and
// queueMicrotask (Node's own streams need them to make progress), nor setImmediate: undici 7 resumes
// a keep-alive client from a setImmediate (client-h1.js), so with a fake one the second request on a
// socket waits for the clock to move.
const REAL = ['nextTick', 'queueMicrotask', 'setImmediate', 'clearImmediate']

/**
 * Fake timers for the rest of a test, uninstalled at its teardown.
 * @param {import('tap').Test} t
 * @param {{ now?: number, toNotFake?: string[] }} [config] @sinonjs/fake-timers install() options
 */
function fakeClock (t, { now = 0, toNotFake = REAL } = {}) {
  const clock = require('@sinonjs/fake-timers').install({ now, toNotFake })
  t.teardown(() => clock.uninstall())
  return clock
}

/**
 * Runs `body(clock)` with fake timers installed, and uninstalls them when it settles, before the test
 * ends: for configurations that fake what tap's own bookkeeping at the end of a test needs (the
 * queueMicrotask that Jest's configuration fakes).
 * @param {object} config @sinonjs/fake-timers install() options
 * @param {(clock: import('@sinonjs/fake-timers').InstalledClock) => Promise<void>} body
 */
async function withFakeTimers (config, body) {
  const clock = require('@sinonjs/fake-timers').install(config)
  try {
    await body(clock)
  } finally {
    clock.uninstall()
  }
}

/**
 * An EventSource (closed at teardown) whose attempts are stamped with the fake clock's time since it
 * was made, by a headers function: EventSource calls it synchronously when it starts an attempt.
 * @returns {{ es: EventSource, rec: import('./recorder.cjs').Recorder, attempts: number[] }}
 */
function stamped (t, clock, url, init = {}) {
  const attempts = []
  const start = clock.now
  const es = open(t, url, { ...init, headers: () => { attempts.push(clock.now - start); return {} } })
  return { es, rec: record(es), attempts }
}

/**
 * Drives a stamped EventSource through `n` error events on the fake clock: after each, moves the
 * clock to one millisecond before the announced delay (no new attempt may have started yet) and then
 * to the delay (one must have). Stops at an error that does not reconnect. Returns the announced
 * delays, and what went wrong: attempts that came early or not at all.
 */
async function stepThrough (clock, { rec, attempts }, n) {
  const delays = []
  const wrong = []
  for (let i = 1; i <= n; i++) {
    const { event: error } = await rec.wait('error', i)
    if (!error.willReconnect) break
    delays.push(error.reconnectDelay)
    if (error.reconnectDelay > 0) {
      clock.tick(error.reconnectDelay - 1)
      if (attempts.length !== i) wrong.push(`attempt ${i + 1} came before ${error.reconnectDelay} ms`)
    }
    clock.tick(error.reconnectDelay === 0 ? 0 : 1)
    if (attempts.length !== i + 1) wrong.push(`attempt ${i + 1} did not come after ${error.reconnectDelay} ms`)
  }
  return { delays, wrong }
}

module.exports = { fakeClock, withFakeTimers, stamped, stepThrough }
