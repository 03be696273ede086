// The message of every code whose table has none of its own, in Node's wording where Node has the code, on
// Node, Bun and Deno (`#error-messages`). Each function takes the leading arguments of the code's constructor,
// as many as its table declares (test/errors/errors-table.test.cjs checks each function's length).

// (process.getBuiltinModule: lib/platform/bytes-node.js says why.)
const { inspect } = process.getBuiltinModule('node:util')

// Describes a received value the way Node's ERR_INVALID_ARG_TYPE message does.
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

const MESSAGES = {
  // Arguments and options, with Node's wording.
  ERR_INVALID_ARG_TYPE: (name, expected, value) =>
    `The ${describeName(name)} must be ${expected}.${describeReceived(value)}`,
  ERR_INVALID_ARG_VALUE: (name, value, reason) => `The ${describeName(name)} ${reason}. Received ${inspect(value)}`,
  ERR_INVALID_CHAR: (name, value) =>
    `Invalid character in ${name} ${inspect(value)}: control characters other than tab cannot be sent`,
  ERR_INVALID_HTTP_TOKEN: (name, value) => `${name} must be a valid HTTP token ["${String(value)}"]`,
  ERR_OUT_OF_RANGE: (name, range, value) =>
    `The value of "${name}" is out of range. It must be ${range}. Received ${inspect(value)}`,

  ERR_EVENTSOURCE_EVENT_TOO_LARGE: (limit) =>
    `An event exceeded the maximum event size of ${limit} bytes (maxEventSize)`,
  ERR_EVENTSOURCE_HTTP2_PING_TIMEOUT: (origin, timeout) =>
    `The HTTP/2 session to ${origin} did not answer a PING within ${timeout} ms (http2.pingTimeout)`,
  ERR_EVENTSOURCE_WRITE_AFTER_END: () => 'write() was called after end(); call reset() to parse a new stream',

  // Connections.
  ERR_EVENTSOURCE_BAD_CONTENT_TYPE: (contentType) =>
    `The server answered with Content-Type "${contentType ?? ''}": an event stream needs text/event-stream`,
  ERR_EVENTSOURCE_BAD_STATUS: (status, statusText) =>
    `The server answered ${status}${statusText ? ` ${statusText}` : ''}: an event stream needs status 200`,
  ERR_EVENTSOURCE_CONNECT_TIMEOUT: (origin, timeout) =>
    `No response from ${origin} within ${timeout} ms (connectTimeout)`,
  ERR_EVENTSOURCE_DECODING: (contentEncoding) =>
    `The response body could not be decoded (Content-Encoding: ${contentEncoding})`,
  ERR_EVENTSOURCE_DISPATCHER_REDIRECT: (from) =>
    `The dispatcher followed a redirect from ${from} by itself; EventSource follows redirects itself, to keep ` +
    'credentials and https: safe: use a dispatcher without a redirect interceptor',
  ERR_EVENTSOURCE_IDLE_TIMEOUT: (origin, timeout) => `No data from ${origin} for ${timeout} ms (idleTimeout)`,
  ERR_EVENTSOURCE_INSECURE_REDIRECT: (target) =>
    `The server redirected from https: to ${target}; set allowInsecureRedirect to follow it`,
  // `problem` says what is wrong with the target: "an invalid URL: ...", "a URL that includes credentials".
  ERR_EVENTSOURCE_INVALID_REDIRECT: (problem) => `The server redirected to ${problem}`,
  ERR_EVENTSOURCE_INVALID_BODY: () =>
    'The fetch returned an event stream response without a body to read (a ReadableStream)',
  ERR_EVENTSOURCE_NETWORK: (origin, reason) => `The connection to ${origin} failed: ${reason}`,
  ERR_EVENTSOURCE_REQUEST_INIT: (fn, reason) => `${fn}() failed: ${reason}`,
  ERR_EVENTSOURCE_RECONNECT_POLICY: (reason) => `init.reconnect.policy() failed: ${reason}`,
  ERR_EVENTSOURCE_RETRIES_EXHAUSTED: (attempts, reason) =>
    `Gave up after ${attempts} failed attempt${attempts === 1 ? '' : 's'} in a row: ${reason}`,
  ERR_EVENTSOURCE_STREAM_ENDED: () => 'The server ended the event stream',
  ERR_EVENTSOURCE_TOO_MANY_CODINGS: (count, max) =>
    `The response lists ${count} content codings; at most ${max} are decoded`,
  ERR_EVENTSOURCE_TOO_MANY_REDIRECTS: (max, target) => `More than ${max} redirects, the last to ${target}`,
  ERR_EVENTSOURCE_UNSUPPORTED_SCHEME: (protocol) =>
    `The URL scheme "${protocol}" is not supported: an event stream needs http: or https:`,

  ERR_EVENTSOURCE_ABORTED: () => 'The request was aborted'
}

function message (code, args) {
  return MESSAGES[code](...args)
}

export { message, MESSAGES }
