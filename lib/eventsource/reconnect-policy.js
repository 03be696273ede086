'use strict'

// Every decision to try again (HTML "reestablish the connection", and the extensions of init.reconnect):
// whether a status that the standard fails on is retried (retryOnStatus), whether to give up
// (maxRetries), and how long to wait. With the defaults (no status retried, no limit, factor 1, no cap,
// no jitter) the delay is the reconnection time, exactly as the standard says, for every server that
// delivers events; the rest is an opt-in policy, plus a floor (stormFloor) for servers that keep
// answering with nothing. The policy is init.reconnect, as lib/eventsource/init.js resolves it.

const { codes: { ERR_EVENTSOURCE_BAD_STATUS, ERR_EVENTSOURCE_RETRIES_EXHAUSTED } } = require('../errors')

// setTimeout takes at most 2^31 - 1 ms and fires after 1 ms for anything larger: clamp instead, so
// a huge `retry:` or Retry-After never turns into a reconnection loop.
const MAX_TIMER_DELAY = 2 ** 31 - 1

// The standard lets a server set the reconnection time to 0 (`retry: 0`) and end every response at
// once: Chromium then reconnects as fast as the network allows, forever (about 600 requests a second
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

/**
 * Whether a response that fails the connection for its status is retried instead (retryOnStatus).
 * @param {{ statuses: Set<number> | null }} policy
 * @param {number} status
 */
function retriesStatus (policy, status) {
  return policy.statuses?.has(status) === true
}

/**
 * After an attempt that ended in `error`, the `failures`-th in a row that delivered no event: the
 * error to fail the connection with, when maxRetries is reached, else the wait before the next
 * attempt (reconnectDelay, with the Retry-After of a retried status).
 * @param {{ maxRetries: number, factor: number, maxDelay: number, jitter: 'none' | 'full' }} policy
 * @param {Error & { status?: number, statusText?: string, headers?: Record<string, string>, url?: string }} error
 * @param {number} failures
 * @param {number} reconnectionTime the current reconnection time (initial delay or the last `retry:`)
 * @returns {Error | number} ERR_EVENTSOURCE_RETRIES_EXHAUSTED, or milliseconds
 */
function nextAttempt (policy, error, failures, reconnectionTime) {
  if (failures > policy.maxRetries) {
    const { status, statusText, headers, url } = error
    return new ERR_EVENTSOURCE_RETRIES_EXHAUSTED(failures, error.message, { status, statusText, headers, url }, error)
  }
  const retryAfter = error instanceof ERR_EVENTSOURCE_BAD_STATUS ? parseRetryAfter(error.headers['retry-after'], Date.now()) : null
  return reconnectDelay(reconnectionTime, failures, policy, retryAfter ?? undefined)
}

/**
 * The wait before the next attempt: the backoff delay, at least the server's Retry-After, at least the
 * storm floor.
 * @param {number} reconnectionTime the current reconnection time (initial delay or the last `retry:`)
 * @param {number} failures attempts in a row that delivered no event, this one included (1 for the first)
 * @param {{ factor: number, maxDelay: number, jitter: 'none' | 'full' }} policy
 * @param {number | undefined} retryAfter the response's Retry-After in ms (parseRetryAfter), if any
 * @param {() => number} [random] for tests
 * @returns {number} milliseconds
 */
function reconnectDelay (reconnectionTime, failures, policy, retryAfter, random = Math.random) {
  let delay = backoffDelay(reconnectionTime, failures, policy, random)
  // Retry-After is how long the server asks to be left alone: never sooner than that. It does not
  // replace the backoff, which may be longer already; a `Retry-After: 0` asks for nothing.
  if (retryAfter !== undefined && retryAfter > delay) delay = retryAfter
  return Math.max(delay, stormFloor(failures))
}

/**
 * @param {number} reconnectionTime the current reconnection time (initial delay or the last `retry:`)
 * @param {number} failures attempts in a row that delivered no event, this one included (1 for the first)
 * @param {{ factor: number, maxDelay: number, jitter: 'none' | 'full' }} policy
 * @param {() => number} [random] for tests
 * @returns {number} milliseconds
 */
function backoffDelay (reconnectionTime, failures, policy, random = Math.random) {
  // 0 stays 0 whatever the factor (0 * Infinity would be NaN); the caps apply before the jitter, so
  // the jitter never multiplies Infinity.
  let delay = reconnectionTime === 0 ? 0 : reconnectionTime * policy.factor ** (failures - 1)
  delay = Math.min(delay, policy.maxDelay, MAX_TIMER_DELAY)
  // "Full jitter": anywhere between no wait and the backoff delay, spreading a crowd of clients out.
  if (policy.jitter === 'full') delay = random() * delay
  return clampDelay(delay)
}

function clampDelay (ms) {
  // NaN (not reachable from our own arithmetic) becomes no wait rather than setTimeout's 1 ms.
  if (!(ms > 0)) return 0
  return Math.min(Math.round(ms), MAX_TIMER_DELAY)
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']
const MONTH = `(${MONTHS.join('|')})`
const TIME = '(\\d{2}):(\\d{2}):(\\d{2})'
// The three forms of an HTTP-date (RFC 9110 5.6.7), all in UTC.
const IMF_FIXDATE = new RegExp(`^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), (\\d{2}) ${MONTH} (\\d{4}) ${TIME} GMT$`)
const RFC_850 = new RegExp(`^(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), (\\d{2})-${MONTH}-(\\d{2}) ${TIME} GMT$`)
const ASCTIME = new RegExp(`^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) ${MONTH} ([ \\d]\\d) ${TIME} (\\d{4})$`)

/**
 * An HTTP-date as milliseconds since the epoch, or NaN.
 * @param {string} text
 * @param {number} now for the century of an RFC 850 two-digit year
 */
function parseHttpDate (text, now) {
  let day, month, year, hours, minutes, seconds
  let match
  if ((match = IMF_FIXDATE.exec(text)) !== null) {
    [, day, month, year, hours, minutes, seconds] = match
  } else if ((match = RFC_850.exec(text)) !== null) {
    [, day, month, year, hours, minutes, seconds] = match
    // A two-digit year that would be more than 50 years ahead is in the past century (RFC 9110).
    const thisYear = new Date(now).getUTCFullYear()
    year = 2000 + Number(year)
    while (year > thisYear + 50) year -= 100
  } else if ((match = ASCTIME.exec(text)) !== null) {
    [, month, day, hours, minutes, seconds, year] = match
  } else {
    return NaN
  }
  return Date.UTC(Number(year), MONTHS.indexOf(month), Number(day), Number(hours), Number(minutes), Number(seconds))
}

/**
 * A Retry-After header (RFC 9110 10.2.3): delay-seconds or an HTTP-date. Null when absent or invalid.
 * @param {string | undefined} value
 * @param {number} now Date.now()
 * @returns {number | null} milliseconds
 */
function parseRetryAfter (value, now) {
  if (value === undefined) return null
  const text = value.trim()
  if (/^\d+$/.test(text)) return clampDelay(Number(text) * 1000)
  const date = parseHttpDate(text, now)
  if (Number.isNaN(date)) return null
  return clampDelay(date - now)
}

module.exports = { retriesStatus, nextAttempt, reconnectDelay, parseRetryAfter }
