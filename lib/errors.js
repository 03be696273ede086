'use strict'

// Every error code this package produces, declared once, as Node core declares its own in
// lib/internal/errors.js: E(code, arity, Base, kind) makes a class under `codes`, and a throw site
// writes `throw new ERR_X(...args)`; a code is never spelled out where an error is made. Each code's
// message is in lib/error-messages-node.js.
//
// Each code's class extends Base (TypeError, RangeError or Error), so `err instanceof ERR_X` and
// `err instanceof TypeError` both hold; `name` stays the plain class name (inherited, not own), `code`
// is its one own enumerable property, and it prints as Node's errors do: `Name [CODE]: message`, in
// toString() and on the first line of its stack. Codes that Node also uses keep Node's meaning and
// wording; conditions specific to this package carry the ERR_EVENTSOURCE_ prefix. Every code that is not
// internal is listed in docs/errors.md and in the ErrorCode type
// (test/errors-documented.test.js reads this table to check).

// The messages: Node's wording (lib/error-messages-node.js) on Node, Bun and Deno; a short message made from
// the code and its arguments (lib/error-messages-web.js) elsewhere, where the wording would be most of
// what a browser bundle of the EventSource downloads (package.json's "imports"). Loaded with the first
// error made: most processes make none.
let messages = null
function messageOf (code, args) {
  messages ??= require('#error-messages')
  return messages.message(code, args)
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
 * @param {number} arity how many of the constructor's leading arguments the message is made from (the
 *   message of each code takes as many: test/errors-table.test.js checks)
 * @param {ErrorConstructor} Base Error, TypeError or RangeError
 * @param {string} [kind] kConnection or kInternal
 */
function E (code, arity, Base, kind) {
  const connection = kind === kConnection
  const EventSourceError = class extends Base {
    constructor (...args) {
      const cause = connection ? args[arity + 1] : undefined
      super(messageOf(code, args.slice(0, arity)), cause === undefined ? undefined : { cause })
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

// Arguments and options, with Node's codes and classes: (name, expected or reason, value).
E('ERR_INVALID_ARG_TYPE', 3, TypeError)
E('ERR_INVALID_ARG_VALUE', 3, TypeError)
E('ERR_INVALID_CHAR', 2, TypeError)
E('ERR_INVALID_HTTP_TOKEN', 2, TypeError)
E('ERR_OUT_OF_RANGE', 3, RangeError)

// The parser. An event too large also fails an EventSource's connection, with this error.
E('ERR_EVENTSOURCE_EVENT_TOO_LARGE', 1, RangeError)
// init.http2: a session whose PING went unanswered is destroyed with this error, which then reaches each
// source on it as the cause of its ERR_EVENTSOURCE_NETWORK.
E('ERR_EVENTSOURCE_HTTP2_PING_TIMEOUT', 2, Error)
E('ERR_EVENTSOURCE_WRITE_AFTER_END', 0, Error)
// The eventsource-parser drop-in's feed() after an overflow of maxBufferSize, with eventsource-parser's
// message.
E('ERR_EVENTSOURCE_PARSER_TERMINATED', 0, Error)

// Connections: new ERR_X(...messageArgs, details, cause).
E('ERR_EVENTSOURCE_BAD_CONTENT_TYPE', 1, Error, kConnection)
E('ERR_EVENTSOURCE_BAD_STATUS', 2, Error, kConnection)
E('ERR_EVENTSOURCE_CONNECT_TIMEOUT', 2, Error, kConnection)
E('ERR_EVENTSOURCE_DECODING', 1, Error, kConnection)
E('ERR_EVENTSOURCE_DISPATCHER_REDIRECT', 1, Error, kConnection)
E('ERR_EVENTSOURCE_IDLE_TIMEOUT', 2, Error, kConnection)
E('ERR_EVENTSOURCE_INSECURE_REDIRECT', 1, Error, kConnection)
E('ERR_EVENTSOURCE_INVALID_REDIRECT', 1, Error, kConnection)
E('ERR_EVENTSOURCE_INVALID_BODY', 0, Error, kConnection)
E('ERR_EVENTSOURCE_NETWORK', 2, Error, kConnection)
E('ERR_EVENTSOURCE_REQUEST_INIT', 2, Error, kConnection)
E('ERR_EVENTSOURCE_RECONNECT_POLICY', 1, Error, kConnection)
E('ERR_EVENTSOURCE_RETRIES_EXHAUSTED', 2, Error, kConnection)
E('ERR_EVENTSOURCE_STREAM_ENDED', 0, Error, kConnection)
E('ERR_EVENTSOURCE_TOO_MANY_CODINGS', 2, Error, kConnection)
E('ERR_EVENTSOURCE_TOO_MANY_REDIRECTS', 2, Error, kConnection)
E('ERR_EVENTSOURCE_UNSUPPORTED_SCHEME', 1, Error, kConnection)

// Internal: the reason handed to undici when we abort a request ourselves; its outcome is discarded.
E('ERR_EVENTSOURCE_ABORTED', 0, Error, kInternal)

module.exports = { codes, fromCallerOf }
