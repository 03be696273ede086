'use strict'

// EventSources for the tests: closed at the teardown of the test that made them (tap runs teardowns
// last-added first, so before the servers they talk to are closed), and a control EventSource that
// proves time has passed by an event sequence rather than a sleep.

const { EventSource } = require('../..')
const { serve, sse } = require('./server.cjs')
const { TIMEOUT } = require('./wait.cjs')

/** Closes `es` at the teardown of `t`; returns it. */
function closeAtTeardown (t, es) {
  t.teardown(() => es.close())
  return es
}

/** new EventSource(url, init), closed at teardown. */
function open (t, url, init) {
  return closeAtTeardown(t, new EventSource(url, init))
}

/**
 * A full reconnection cycle of a fresh EventSource with reconnectionTime `ms`, on a server of its own:
 * open, the end of the body, error, a wait of `ms`, the second request. Resolves once at least `ms`
 * have passed since the call, shown by that sequence: a timer of the code under test armed earlier
 * with a delay of at most `ms` has fired by then (timers of equal delay fire in the order they were
 * armed). So "no further request" or "no further event" is bounded by events, never by a sleep.
 * @param {import('tap').Test} t
 * @param {number} [ms]
 */
async function reconnectionCycle (t, ms = 10) {
  const control = await serve(t, (req, res) => sse(res, ':\n\n'))
  const es = open(t, control.url(), { reconnectionTime: ms })
  await control.request(1, TIMEOUT + ms)
  es.close()
}

module.exports = { open, closeAtTeardown, reconnectionCycle }
