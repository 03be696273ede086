// The standard's decision after each failure (HTML "reestablish the connection"), in a build without the
// extensions: a response the standard does not take fails the connection; anything else waits the
// reconnection time, with the storm floor below (the standard only ever sends GET, which may be
// repeated). With the extensions, reconnect-policy.js decides instead (its decide(), which the entry
// point hands to the EventSource), and puts the same floor under every policy: a request that is not
// idempotent fails rather than being sent again unless the user said otherwise; else the reconnection
// policy, which with its defaults decides the same as this file.

import { MAX_TIMER_DELAY } from '../constants.js'

// The standard lets a server set the reconnection time to 0 (`retry: 0`) and end every response at
// once: Chromium then reconnects as fast as the network allows, forever (hundreds of requests a second
// over loopback); Firefox raises any `retry:` below 500 ms to 500 ms, for every server. We keep the
// reconnection time exact, as Chromium does, while attempts deliver events, and put a floor under the
// wait only once attempts in a row have delivered none ("Optionally, wait some more", HTML 9.2.3): no
// floor after the first (one dropped connection reconnects as the server asked), then 1, 2, 4 ... 512 ms,
// then 1 s for as long as it lasts. However the server behaves, that is at most 11 attempts in any one
// second, then one a second; a reconnection time or backoff above the floor is never changed.
const STORM_FLOOR_MAX = 1000

/**
 * The least wait after `failures` attempts in a row that delivered no event.
 * @param {number} failures 1 for the first
 * @returns {number} milliseconds
 */
function stormFloor (failures) {
  if (failures < 2) return 0
  return Math.min(2 ** (failures - 2), STORM_FLOOR_MAX)
}

// setTimeout fires after 1 ms for a delay over MAX_TIMER_DELAY (lib/constants.js): a huge `retry:` or
// Retry-After is clamped instead, so that it never turns into a reconnection loop.
function clampDelay (ms) {
  // NaN (not reachable from our own arithmetic) becomes no wait rather than setTimeout's 1 ms.
  if (!(ms > 0)) return 0
  return Math.min(Math.round(ms), MAX_TIMER_DELAY)
}

/**
 * @param {object} init the source's init (the standard's: no init.reconnect)
 * @param {Error} error why the attempt ended
 * @param {boolean} failsConnection the standard fails the connection here (a response it does not take)
 * @param {{ retry: number, failures: number }} counts the reconnection time; attempts in a row that
 *   delivered no event
 * @returns {Error | number} the error to fail with, or the delay in ms
 */
function nextAttempt (init, error, failsConnection, counts) {
  if (failsConnection) return error
  // (clampDelay() caps at MAX_TIMER_DELAY and rounds; the floor is a whole number below it.)
  return Math.max(clampDelay(counts.retry), stormFloor(counts.failures))
}

export { nextAttempt, stormFloor, clampDelay, MAX_TIMER_DELAY }
