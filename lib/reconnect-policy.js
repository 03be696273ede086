'use strict'

// How long to wait before reconnecting. With the defaults (factor 1, no cap, no jitter) the delay is
// the reconnection time, exactly as the standard says; the rest is an opt-in policy.

// setTimeout takes at most 2^31 - 1 ms and fires after 1 ms for anything larger: clamp instead, so
// a huge `retry:` or Retry-After never turns into a reconnection loop.
const MAX_TIMER_DELAY = 2 ** 31 - 1

/**
 * @param {number} reconnectionTime the current reconnection time (initial delay or the last `retry:`)
 * @param {number} failures consecutive failed attempts so far, this one included (1 for the first)
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

module.exports = { backoffDelay, clampDelay, parseRetryAfter, MAX_TIMER_DELAY }
