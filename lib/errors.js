'use strict'

// Every error code this package produces, declared once, as Node core declares its own in
// lib/internal/errors.js: E(code, message, Base, kind) makes a class under `codes`, and a throw site
// writes `throw new ERR_X(...args)`; a code is never spelled out where an error is made.
//
// Each code's class extends Base (TypeError, RangeError or Error), so `err instanceof ERR_X` and
// `err instanceof TypeError` both hold; `name` stays the plain class name (inherited, not own), `code`
// is its one own enumerable property, and it prints as Node's errors do: `Name [CODE]: message`, in
// toString() and on the first line of its stack. Codes that Node also uses keep Node's meaning and
// wording; conditions specific to this package carry the ERR_EVENTSOURCE_ prefix. Every code that is not
// internal is listed in docs/errors.md and in the ErrorCode type
// (test/errors-documented.test.js reads this table to check).

// util.inspect on Node, Bun and Deno; a small stand-in elsewhere (package.json's "imports").
// Loaded with the first message that shows a value (an invalid argument): most processes build none,
// and the `#` import is a millisecond or two of a fresh process's start (benchmarks/startup).
let loadedInspect = null
function inspect (value, options) {
  loadedInspect ??= require('#inspect').inspect
  return loadedInspect(value, options)
}

/** @type {Record<string, Function>} code -> class */
const codes = {}

// Kinds of declaration. A connection error says why a connection failed or was re-established, and
// reaches user code on an error event: its constructor takes two more arguments after the message's,
// `details` (what is known of the response: status, statusText, headers, url), copied onto the error,
// and `cause`. An internal error never reaches user code.
const kConnection = 'connection'
const kInternal = 'internal'

// Node's errors print as `Name [CODE]: message`; ours do the same.
function toString () {
  return `${this.name} [${this.code}]: ${this.message}`
}

// Stacks start where the error was made when the runtime can say so (V8's Error.captureStackTrace, as
// Node's hideStackFrames does): the constructor's own frames are noise.
const captureStackTrace = typeof Error.captureStackTrace === 'function' ? Error.captureStackTrace : null

// Captures `error`'s stack from the caller of `callee` on, its first line `Name [CODE]: message`: the code
// goes into the name while the stack is captured and formatted, as Node core does, then the own name is
// removed again, and `name` is the plain class name, inherited.
function captureStack (error, callee) {
  Object.defineProperty(error, 'name', { value: `${error.name} [${error.code}]`, configurable: true, writable: true })
  if (captureStackTrace !== null) captureStackTrace(error, callee)
  error.stack // eslint-disable-line no-unused-expressions
  delete error.name
}

/**
 * Declares a code.
 * @param {string} code
 * @param {(...args: any[]) => string} message builds the message from the constructor's leading
 *   arguments. Its `length` says how many: no default values or rest parameters, or a connection
 *   error's details would be taken for a message argument.
 * @param {ErrorConstructor} Base Error, TypeError or RangeError
 * @param {string} [kind] kConnection or kInternal
 */
function E (code, message, Base, kind) {
  const arity = message.length
  const connection = kind === kConnection
  const EventSourceError = class extends Base {
    constructor (...args) {
      const cause = connection ? args[arity + 1] : undefined
      super(message(...args), cause === undefined ? undefined : { cause })
      this.code = code
      captureStack(this, new.target)
      if (connection && args[arity] !== undefined) Object.assign(this, args[arity])
    }
  }
  Object.defineProperty(EventSourceError, 'name', { value: code })
  // The arguments the message takes, as a function's length says (a connection error's details and
  // cause are optional).
  Object.defineProperty(EventSourceError, 'length', { value: arity })
  // What kind of code this is: test/errors-documented.test.js leaves the internal ones out.
  Object.defineProperty(EventSourceError, 'kind', { value: kind ?? null })
  Object.defineProperty(EventSourceError.prototype, 'name', { value: Base.name, configurable: true, writable: true })
  Object.defineProperty(EventSourceError.prototype, 'toString', { value: toString, configurable: true, writable: true })
  codes[code] = EventSourceError
}

/**
 * An error of ours thrown out of a public entry point (a constructor, createParser) gets a stack that
 * starts at the user's call, as Node's validators do with hideStackFrames: the frames of our option
 * checks below it are noise to the user. Anything else is returned as it is.
 * @param {unknown} error
 * @param {Function} entry the entry point the user called (a constructor: `new.target`)
 * @returns {unknown} the error
 */
function fromCallerOf (error, entry) {
  if (error instanceof Error && Object.hasOwn(codes, error.code) && error instanceof codes[error.code]) {
    captureStack(error, entry)
  }
  return error
}

/**
 * Describes a received value the way Node's ERR_INVALID_ARG_TYPE message does.
 * @param {unknown} value
 * @returns {string}
 */
function describeReceived (value) {
  if (value == null) return ` Received ${value}`
  if (typeof value === 'function') return ` Received function ${value.name || '<anonymous>'}`
  if (typeof value === 'object') {
    if (value.constructor?.name) return ` Received an instance of ${value.constructor.name}`
    return ` Received ${inspect(value, { depth: -1 })}`
  }
  let shown = inspect(value, { colors: false })
  if (shown.length > 28) shown = `${shown.slice(0, 25)}...`
  return ` Received type ${typeof value} (${shown})`
}

// A dotted name ("options.maxEventSize") is a property of an options bag; a plain one is an argument.
function describeName (name) {
  return name.includes('.') ? `"${name}" property` : `"${name}" argument`
}

// Arguments and options, with Node's codes, classes and wording.
E('ERR_INVALID_ARG_TYPE', (name, expected, value) =>
  `The ${describeName(name)} must be ${expected}.${describeReceived(value)}`, TypeError)
E('ERR_INVALID_ARG_VALUE', (name, value, reason) =>
  `The ${describeName(name)} ${reason}. Received ${inspect(value)}`, TypeError)
E('ERR_INVALID_CHAR', (name, value) =>
  `Invalid character in ${name} ${inspect(value)}: control characters other than tab cannot be sent`, TypeError)
E('ERR_INVALID_HTTP_TOKEN', (name, value) => `${name} must be a valid HTTP token ["${String(value)}"]`, TypeError)
E('ERR_OUT_OF_RANGE', (name, range, value) =>
  `The value of "${name}" is out of range. It must be ${range}. Received ${inspect(value)}`, RangeError)

// The parser. An event too large also fails an EventSource's connection, with this error.
E('ERR_EVENTSOURCE_EVENT_TOO_LARGE', (limit) =>
  `An event exceeded the maximum event size of ${limit} bytes (maxEventSize)`, RangeError)
// init.http2: a session whose PING went unanswered is destroyed with this error, which then reaches each
// source on it as the cause of its ERR_EVENTSOURCE_NETWORK.
E('ERR_EVENTSOURCE_HTTP2_PING_TIMEOUT', (origin, timeout) =>
  `The HTTP/2 session to ${origin} did not answer a PING within ${timeout} ms (http2.pingTimeout)`, Error)
E('ERR_EVENTSOURCE_WRITE_AFTER_END', () =>
  'write() was called after end(); call reset() to parse a new stream', Error)
// The eventsource-parser drop-in's feed() after an overflow of maxBufferSize, with eventsource-parser's
// message.
E('ERR_EVENTSOURCE_PARSER_TERMINATED', () =>
  'Cannot feed parser: it was terminated after exceeding the configured max buffer size. Call `reset()` to resume parsing.', Error)

// Connections: new ERR_X(...messageArgs, details, cause).
E('ERR_EVENTSOURCE_BAD_CONTENT_TYPE', (contentType) =>
  `The server answered with Content-Type "${contentType ?? ''}": an event stream needs text/event-stream`, Error, kConnection)
E('ERR_EVENTSOURCE_BAD_STATUS', (status, statusText) =>
  `The server answered ${status}${statusText ? ` ${statusText}` : ''}: an event stream needs status 200`, Error, kConnection)
E('ERR_EVENTSOURCE_CONNECT_TIMEOUT', (origin, timeout) =>
  `No response from ${origin} within ${timeout} ms (connectTimeout)`, Error, kConnection)
E('ERR_EVENTSOURCE_DECODING', (contentEncoding) =>
  `The response body could not be decoded (Content-Encoding: ${contentEncoding})`, Error, kConnection)
E('ERR_EVENTSOURCE_DISPATCHER_REDIRECT', (from) =>
  `The dispatcher followed a redirect from ${from} by itself; EventSource follows redirects itself, to keep ` +
  'credentials and https: safe: use a dispatcher without a redirect interceptor', Error, kConnection)
E('ERR_EVENTSOURCE_IDLE_TIMEOUT', (origin, timeout) =>
  `No data from ${origin} for ${timeout} ms (idleTimeout)`, Error, kConnection)
E('ERR_EVENTSOURCE_INSECURE_REDIRECT', (target) =>
  `The server redirected from https: to ${target}; set allowInsecureRedirect to follow it`, Error, kConnection)
// `problem` says what is wrong with the target: "an invalid URL: ...", "a URL that includes credentials".
E('ERR_EVENTSOURCE_INVALID_REDIRECT', (problem) => `The server redirected to ${problem}`, Error, kConnection)
E('ERR_EVENTSOURCE_INVALID_BODY', () =>
  'The fetch returned an event stream response without a body to read (a ReadableStream)', Error, kConnection)
E('ERR_EVENTSOURCE_NETWORK', (origin, reason) => `The connection to ${origin} failed: ${reason}`, Error, kConnection)
E('ERR_EVENTSOURCE_REQUEST_INIT', (fn, reason) => `${fn}() failed: ${reason}`, Error, kConnection)
E('ERR_EVENTSOURCE_RECONNECT_POLICY', (reason) => `init.reconnect.policy() failed: ${reason}`, Error, kConnection)
E('ERR_EVENTSOURCE_RETRIES_EXHAUSTED', (attempts, reason) =>
  `Gave up after ${attempts} failed attempt${attempts === 1 ? '' : 's'} in a row: ${reason}`, Error, kConnection)
E('ERR_EVENTSOURCE_STREAM_ENDED', () => 'The server ended the event stream', Error, kConnection)
E('ERR_EVENTSOURCE_TOO_MANY_CODINGS', (count, max) =>
  `The response lists ${count} content codings; at most ${max} are decoded`, Error, kConnection)
E('ERR_EVENTSOURCE_TOO_MANY_REDIRECTS', (max, target) =>
  `More than ${max} redirects, the last to ${target}`, Error, kConnection)
E('ERR_EVENTSOURCE_UNSUPPORTED_SCHEME', (protocol) =>
  `The URL scheme "${protocol}" is not supported: an event stream needs http: or https:`, Error, kConnection)

// Internal: the reason handed to undici when we abort a request ourselves; its outcome is discarded.
E('ERR_EVENTSOURCE_ABORTED', () => 'The request was aborted', Error, kInternal)

module.exports = { codes, fromCallerOf }
