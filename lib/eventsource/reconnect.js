// The standard's decision after each failure (HTML "reestablish the connection"), in a build without the
// extensions: a response the standard does not take fails the connection; anything else waits the
// reconnection time, with the storm floor below (the standard only ever sends GET, which may be repeated).
// With the extensions, reconnect-policy.js's decide() decides instead, with the same floor.

import { MAX_TIMER_DELAY } from '../constants.js'

// The storm floor (docs/extensions.md#the-storm-floor): a server may set the reconnection time to 0 and end
// every response at once. The reconnection time stays exact while attempts deliver events; once attempts
// in a row have delivered none, the wait gets a floor ("Optionally, wait some more", HTML 9.2.3).
const STORM_FLOOR_MAX = 1000

// The least wait, in ms, after `failures` attempts in a row (1 for the first) that delivered no event.
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

// The error to fail with, or the delay in ms. counts: the reconnection time (retry) and the attempts in a
// row that delivered no event (failures).
function nextAttempt (init, error, failsConnection, counts) {
  if (failsConnection) return error
  // (clampDelay() caps at MAX_TIMER_DELAY and rounds; the floor is a whole number below it.)
  return Math.max(clampDelay(counts.retry), stormFloor(counts.failures))
}

export { nextAttempt, stormFloor, clampDelay, MAX_TIMER_DELAY }
