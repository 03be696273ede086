// validateX(value, name), as in ./values.js, for the request a user describes: headers, method, body,
// last event ID.

import { UNSENDABLE_LAST_EVENT_ID } from '../constants.js'
import { codes as argumentsCodes } from '../errors/arguments.js'
import { codes as httpCodes } from '../errors/http.js'
const { ERR_INVALID_ARG_TYPE, ERR_INVALID_ARG_VALUE } = argumentsCodes
const { ERR_INVALID_CHAR, ERR_INVALID_HTTP_TOKEN } = httpCodes

// RFC 9110 token characters.
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/
// A token with the HTTP whitespace a copy-paste brings along, which the caller removes (credentialHeaders).
const PADDED_TOKEN = /^[\t\n\r ]*[!#$%&'*+\-.^_`|~0-9A-Za-z]+[\t\n\r ]*$/
// What a header value cannot hold: CR, LF and NUL would end or corrupt the header, and undici (like
// Node's http) refuses every other control character but tab; fetch's ByteString conversion refuses
// anything above U+00FF.
const INVALID_HEADER_VALUE = /[^\t\x20-\x7e\x80-\xff]/
// A Host value (RFC 9110, 7.2): a bracketed IP literal, or a name or IPv4 address of RFC 3986's reg-name
// characters, and an optional port. Anything else, as HTTP/2's :authority, gets the stream reset, which
// looks like a network error and would reconnect for ever (HTTP/1.1 answers 400): refused for every transport.
const HOST = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9\-._~!$&'()*+,;=%]+)(?::[0-9]*)?$/
// Headers the HTTP client manages (framing, connection). HTTP2-Settings belongs to an Upgrade to h2c, the
// client's to make; node:http2 refuses a request that carries it (init.http2), as the other ones.
const MANAGED_HEADERS = new Set([
  'connection', 'content-length', 'expect', 'http2-settings', 'keep-alive', 'proxy-connection', 'te',
  'trailer', 'transfer-encoding', 'upgrade'
])
const FORBIDDEN_METHODS = new Set(['CONNECT', 'TRACE', 'TRACK'])

// Request headers, as fetch's HeadersInit: a Headers, an iterable of [name, value] pairs, or a record.
// (A function, which init.headers may also be, is told apart before.)
function validateHeadersInit (value, name) {
  if (value === null || typeof value !== 'object') {
    throw new ERR_INVALID_ARG_TYPE(name, 'of type object (a Headers, an array of pairs, a record) or function', value)
  }
}

// One entry of an iterable HeadersInit.
function validateHeaderPair (value, name) {
  if (value === null || typeof value !== 'object' || value.length !== 2) {
    throw new ERR_INVALID_ARG_VALUE(name, value, 'must hold [name, value] pairs')
  }
}

// The name of a request header a user sets: a token, and none that EventSource or the HTTP client sets.
function validateHeaderName (value, name) {
  if (typeof value !== 'string' || !TOKEN.test(value)) throw new ERR_INVALID_HTTP_TOKEN(`Header name in ${name}`, value)
  const lower = value.toLowerCase()
  if (lower === 'last-event-id') {
    throw new ERR_INVALID_ARG_VALUE(name, value,
      'must not set Last-Event-ID: EventSource sends it itself; use the lastEventId option to start from an ID')
  }
  if (MANAGED_HEADERS.has(lower)) {
    throw new ERR_INVALID_ARG_VALUE(name, value, `must not set ${value}: the HTTP client manages it`)
  }
}

// A request header's value, already trimmed; `header` is its name, for the message.
function validateHeaderValue (value, header, name) {
  if (INVALID_HEADER_VALUE.test(value)) throw new ERR_INVALID_CHAR(`header "${header}" of ${name}`, value)
  if (header.length === 4 && header.toLowerCase() === 'host' && !HOST.test(value)) {
    throw new ERR_INVALID_ARG_VALUE(name, value,
      `is not a Host value for header "${header}": a host name or address and an optional port`)
  }
}

// Header names given as an option on their own (credentialHeaders): strings that are tokens once the
// leading and trailing HTTP whitespace is removed.
function validateHeaderNameList (value, name) {
  if (!Array.isArray(value)) throw new ERR_INVALID_ARG_TYPE(name, 'an array of header names', value)
  for (const header of value) {
    if (typeof header !== 'string') throw new ERR_INVALID_ARG_TYPE(`${name}[]`, 'of type string', header)
    if (!PADDED_TOKEN.test(header)) throw new ERR_INVALID_HTTP_TOKEN(`Header name in ${name}`, header)
  }
}

// A request method: a token, and not one that fetch forbids.
function validateMethod (value, name) {
  if (typeof value !== 'string') throw new ERR_INVALID_ARG_TYPE(name, 'of type string', value)
  if (!TOKEN.test(value)) throw new ERR_INVALID_HTTP_TOKEN(`The method in ${name}`, value)
  if (FORBIDDEN_METHODS.has(value.toUpperCase())) {
    throw new ERR_INVALID_ARG_VALUE(name, value, 'is a method fetch forbids')
  }
}

// A body is sent with any method but GET and HEAD, as fetch allows (a function stands for its bodies).
function validateBodyMethod (value, name, method) {
  if (method === 'GET' || method === 'HEAD') {
    throw new ERR_INVALID_ARG_VALUE(name, typeof value === 'function' ? '[Function]' : value,
      `cannot be sent with ${method}; set init.method (e.g. 'POST')`)
  }
}

// The last event ID to start from: it goes into a header, so it must be one.
function validateLastEventId (value, name) {
  if (typeof value !== 'string') throw new ERR_INVALID_ARG_TYPE(name, 'of type string', value)
  if (UNSENDABLE_LAST_EVENT_ID.test(value)) throw new ERR_INVALID_CHAR(name, value)
}

export {
  validateHeadersInit, validateHeaderPair, validateHeaderName, validateHeaderValue, validateHeaderNameList,
  validateMethod, validateBodyMethod, validateLastEventId
}
