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
  let delay = reconnectionTime * policy.factor ** (failures - 1)
  if (delay > policy.maxDelay) delay = policy.maxDelay
  // "Full jitter": anywhere between no wait and the backoff delay, spreading a crowd of clients out.
  if (policy.jitter === 'full') delay = random() * delay
  return clampDelay(delay)
}

function clampDelay (ms) {
  return Math.min(Math.max(Math.round(ms), 0), MAX_TIMER_DELAY)
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
  // An HTTP-date starts with the day name in all three of its forms (IMF-fixdate, RFC 850, asctime);
  // Date.parse alone would also take "1.5" or "-5" as dates.
  if (!/^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)/i.test(text)) return null
  const date = Date.parse(text)
  if (Number.isNaN(date)) return null
  return clampDelay(date - now)
}

module.exports = { backoffDelay, clampDelay, parseRetryAfter, MAX_TIMER_DELAY }
