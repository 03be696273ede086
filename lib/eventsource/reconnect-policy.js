// Every decision to try again (HTML "reestablish the connection", and the extensions of init.reconnect,
// docs/extensions.md#reconnection). A policy is a function of the cause of a failure (ReconnectCause,
// types/index.d.ts) that returns the delay before the next attempt, in ms, or 'stop': the user's
// (reconnect.policy), or the one the declarative options make, whose defaults give the reconnection time,
// exactly as the standard says. Whatever the policy, the storm floor (lib/eventsource/reconnect.js) holds
// the wait up unless reconnect.floor is false.
// The policy is consulted for what the standard reestablishes and for the responses it fails on (a status
// other than 200, another Content-Type: `failsConnection`); failures that retrying would only meet again
// (a redirect loop, an event over maxEventSize...) fail without it, and so does a request that may not be
// sent again (decide, below).

import { codes } from '../errors/reconnect-policy.js'
import { stormFloor, clampDelay, MAX_TIMER_DELAY } from './reconnect.js'
const { ERR_EVENTSOURCE_RETRIES_EXHAUSTED, ERR_EVENTSOURCE_RECONNECT_POLICY } = codes

// What the declarative policy returns when maxRetries is reached: a 'stop' that ends even a response the
// standard fails on (a retried status) in ERR_EVENTSOURCE_RETRIES_EXHAUSTED, not in the failure itself.
const GIVE_UP = Symbol('give up')

// The policy of init.reconnect's declarative options: a status is retried when retryOnStatus lists it; give up
// after maxRetries failures in a row; else the backoff delay, at least the server's Retry-After.
function declarativePolicy (options, random = Math.random) {
  return (cause) => {
    // (retryOnStatus cannot list 200: a Content-Type other than text/event-stream is never retried.)
    if (cause.failsConnection && options.statuses?.has(cause.status) !== true) return 'stop'
    if (cause.failures > options.maxRetries) return GIVE_UP
    const delay = backoffDelay(cause.retry, cause.failures, options, random)
    // Retry-After is how long the server asks to be left alone: never sooner than that. It does not
    // replace the backoff, which may be longer already; a `Retry-After: 0` asks for nothing.
    return cause.retryAfter !== undefined && cause.retryAfter > delay ? cause.retryAfter : delay
  }
}

// The cause of a failure, as a policy is given it (ReconnectCause, types/index.d.ts).
function causeOf (error, failsConnection, { events, retry, failures, attempts, elapsed }) {
  const retryAfter = error.headers?.['retry-after'] === undefined
    ? undefined
    : parseRetryAfter(error.headers['retry-after'], Date.now()) ?? undefined
  return {
    error,
    code: error.code,
    status: error.status,
    body: error.body,
    retryAfter,
    events,
    retry,
    failures,
    attempts,
    elapsed,
    failsConnection
  }
}

/**
 * What comes after a failure: the delay before the next attempt, or the error to fail the connection with
 * (ERR_EVENTSOURCE_RECONNECT_POLICY when the policy threw or returned something else).
 * @param {{ policy: Function | null, floor: boolean }} options init.reconnect (the declarative policy is made
 *   and kept there at the first failure)
 * @returns {Error | number}
 */
function nextAttempt (options, cause) {
  const policy = options.policy ??= declarativePolicy(options)
  let decision
  try {
    decision = policy(cause)
  } catch (err) {
    return new ERR_EVENTSOURCE_RECONNECT_POLICY(err?.message ?? String(err), details(cause.error),
      err instanceof Error ? err : new Error(String(err)))
  }
  // 'stop': the connection fails, on the failure itself when the standard fails on it, else with
  // ERR_EVENTSOURCE_RETRIES_EXHAUSTED.
  if (decision === 'stop' && cause.failsConnection) return cause.error
  if (decision === 'stop' || decision === GIVE_UP) {
    return new ERR_EVENTSOURCE_RETRIES_EXHAUSTED(cause.failures, cause.error.message, details(cause.error), cause.error)
  }
  if (typeof decision !== 'number' || !(decision >= 0)) {
    return new ERR_EVENTSOURCE_RECONNECT_POLICY(`it returned ${describe(decision)}, not a delay in ms or 'stop'` +
      // The source reconnects or fails within the task of the failure (HTML "reestablish"), not later.
      (typeof decision?.then === 'function' ? ' (a policy decides at once: it cannot be async)' : ''),
    details(cause.error), cause.error)
  }
  return clampDelay(options.floor ? Math.max(decision, stormFloor(cause.failures)) : decision)
}

// The methods RFC 9110 (9.2.2) calls idempotent, whose requests may be sent again (as fetch normalizes their
// names; it forbids TRACE, the sixth). POST, PATCH and every other method are not.
const IDEMPOTENT_METHOD = /^(?:GET|HEAD|OPTIONS|PUT|DELETE)$/

/**
 * What the extensions decide after a failure (the nextAttempt part of an EventSource composed with them):
 * a request that may not be repeated fails on the failure itself; else nextAttempt() decides.
 * RFC 9110 9.2.2: a client must not repeat a request that is not idempotent automatically unless it knows
 * that it is safe. Browsers only ever send GET; this package also sends POST (an LLM's answer, an MCP call),
 * which a reconnection would send again: billed twice. The user's say wins (init.idempotent, or a request
 * function); without one, the method the next attempt would be sent with decides (after a 303, a GET).
 * @param {{ reconnect: object, idempotent: boolean | null }} init
 * @param {string} method the method the next attempt would be sent with; the other arguments are causeOf's
 * @returns {Error | number}
 */
function decide (init, error, failsConnection, counts, method) {
  // A headers or body function that threw (ERR_EVENTSOURCE_REQUEST_INIT) ended an attempt that sent nothing:
  // trying again repeats nothing. Every other failure ended an attempt whose request went out.
  const repeatable = init.idempotent ?? IDEMPOTENT_METHOD.test(method)
  if (!repeatable && error.code !== 'ERR_EVENTSOURCE_REQUEST_INIT') return error
  return nextAttempt(init.reconnect, causeOf(error, failsConnection, counts))
}

// A value as an error message shows it.
function describe (value) {
  if (typeof value === 'string') return `'${value}'`
  if (typeof value?.then === 'function') return 'a promise'
  if (typeof value === 'function') return 'a function'
  if (typeof value === 'object' && value !== null) return 'an object'
  return String(value)
}

// What an error event shows of the response behind a failure.
function details ({ status, statusText, headers, url, body, bodyTruncated }) {
  return { status, statusText, headers, url, body, bodyTruncated }
}

// The wait the declarative options make, with the storm floor: what nextAttempt() returns for such a failure,
// without the giving up (backoffDelay's arguments, and the Retry-After in ms, if any).
function reconnectDelay (reconnectionTime, failures, options, retryAfter, random = Math.random) {
  const delay = declarativePolicy({ statuses: null, maxRetries: Infinity, ...options }, random)({
    failsConnection: false, retry: reconnectionTime, failures, retryAfter
  })
  return clampDelay(Math.max(delay, stormFloor(failures)))
}

// The backoff: the reconnection time (initial delay or the last `retry:`) times factor for each failure in a row
// after the first (attempts that delivered no event), capped, then jittered.
function backoffDelay (reconnectionTime, failures, policy, random = Math.random) {
  // 0 stays 0 whatever the factor (0 * Infinity would be NaN); the caps apply before the jitter, so
  // the jitter never multiplies Infinity.
  let delay = reconnectionTime === 0 ? 0 : reconnectionTime * policy.factor ** (failures - 1)
  delay = Math.min(delay, policy.maxDelay, MAX_TIMER_DELAY)
  // "Full jitter": anywhere between no wait and the backoff delay, spreading a crowd of clients out.
  if (policy.jitter === 'full') delay = random() * delay
  return clampDelay(delay)
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']
const MONTH = `(${MONTHS.join('|')})`
const TIME = '(\\d{2}):(\\d{2}):(\\d{2})'
// The three forms of an HTTP-date (RFC 9110 5.6.7), all in UTC.
const IMF_FIXDATE = new RegExp(`^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), (\\d{2}) ${MONTH} (\\d{4}) ${TIME} GMT$`)
const RFC_850 = new RegExp(
  `^(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), (\\d{2})-${MONTH}-(\\d{2}) ${TIME} GMT$`)
const ASCTIME = new RegExp(`^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) ${MONTH} ([ \\d]\\d) ${TIME} (\\d{4})$`)

// An HTTP-date as milliseconds since the epoch, or NaN; `now` gives the century of an RFC 850 year.
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

// A Retry-After header (RFC 9110 10.2.3), delay-seconds or an HTTP-date, in ms; null when absent or invalid.
function parseRetryAfter (value, now) {
  if (value === undefined) return null
  const text = value.trim()
  if (/^\d+$/.test(text)) return clampDelay(Number(text) * 1000)
  const date = parseHttpDate(text, now)
  if (Number.isNaN(date)) return null
  return clampDelay(date - now)
}

// IDEMPOTENT_METHOD: ssecat (bin/cli/main.js) says why a request was not sent again by the same rule.
export { decide, reconnectDelay, parseRetryAfter, IDEMPOTENT_METHOD }
