// One request of init.http2 on an HTTP/2 stream (./http2-sessions.js): the request record, the stream
// opened for it, and the four listeners every stream shares, which turn the stream's events into the calls
// of its undici handler (onResponseStart, onResponseData, onResponseEnd, onResponseError).

// undici's: the time a request may wait for its response head.
const HEADERS_TIMEOUT = 300_000
// What undici's Request takes a request to carry a body for, and so sends a Content-Length for.
const PAYLOAD_METHODS = new Set(['POST', 'PUT', 'PATCH'])
const NO_CONTEXT = Object.freeze({})

// The errors a stream can end with besides node:http2's own, in undici's words (they end up in the
// message of each source's ERR_EVENTSOURCE_NETWORK).
function streamError (message) {
  const error = new Error(message)
  error.name = 'InformationalError'
  error.code = 'UND_ERR_INFO'
  return error
}

// The stream's StreamRequest, on the stream itself: the listeners, shared by every stream, find it here.
const kRequest = Symbol('whatwg-eventsource.http2.request')

// A request's state: waiting for its response head, reading its body, over (reported, or let go).
const WAITING = 0
const RESPONDED = 1
const DONE = 2

// One request: from dispatch() (queued), on a session (pending until the session is up), on its stream,
// to its one last report. It is also the controller its handler is given (abort, pause, resume).
class StreamRequest {
  handler
  // The request's options until its stream is opened.
  opts
  // The session that counts this request among its active ones, once it is given one; until then, the
  // OriginSessions it waits in.
  session = null
  waitingIn = null
  stream = null
  // The headers timer, from the request's start to its response head: the wait for room on a session
  // counts, else against a server that never sends its SETTINGS, with PINGs and the connect timeout off,
  // it would start only when an earlier request's ran out. Unreferenced: the connection or the stream
  // keeps the process alive, as it would without the timer.
  timer
  state = WAITING
  paused = false

  constructor (handler, opts) {
    this.handler = handler
    this.opts = opts
    this.timer = setTimeout(onHeadersTimeout, HEADERS_TIMEOUT, this)
    this.timer.unref()
  }

  get done () {
    return this.state === DONE
  }

  /** Aborts the request: its stream is reset (RST_STREAM), and the handler hears the reason. */
  abort (reason) {
    if (this.state === DONE) return
    const stream = this.stream
    this.#finish()
    stream?.close()
    this.handler.onResponseError(this, reason)
  }

  pause () {
    this.paused = true
    this.stream?.pause()
  }

  resume () {
    this.paused = false
    this.stream?.resume()
  }

  // The ends reported by the stream.
  fail (error) {
    if (this.state === DONE) return
    this.#finish()
    this.handler.onResponseError(this, error)
  }

  end () {
    if (this.state === DONE) return
    this.#finish()
    this.handler.onResponseEnd(this, NO_CONTEXT)
  }

  /** Dropped without a word: the request went to another dispatcher. */
  forget () {
    this.state = DONE
    this.opts = null
    clearTimeout(this.timer)
    this.timer = null
  }

  // The request is over: its session has room for another.
  #finish () {
    this.state = DONE
    this.opts = null
    if (this.timer !== null) {
      clearTimeout(this.timer)
      this.timer = null
    }
    const session = this.session
    this.session = null
    if (session !== null) session.origin.release(session)
    else this.waitingIn?.waitingGone()
    this.waitingIn = null
  }
}

// The stream listeners, shared by every stream (`this` is the stream): a closure each per stream would
// cost every idle source their bytes.
function onStreamResponse (h2Headers) {
  const request = this[kRequest]
  if (request.state !== WAITING) return
  request.state = RESPONDED
  clearTimeout(request.timer)
  request.timer = null
  const headers = Object.create(null)
  for (const name of Object.keys(h2Headers)) {
    // Pseudo-headers (:status) are not headers.
    if (name.charCodeAt(0) === 0x3a) continue
    const value = h2Headers[name]
    headers[name] = Array.isArray(value) ? value.join(', ') : `${value}`
  }
  // HTTP/2 has no reason phrase.
  request.handler.onResponseStart(request, Number(h2Headers[':status']), headers, '')
}

function onStreamData (chunk) {
  const request = this[kRequest]
  if (request.state === RESPONDED) request.handler.onResponseData(request, chunk)
}

// Errors come first ('error', then 'close'). The end of a body is told at 'close', right after 'end'
// (one listener less per stream): a stream closes once both sides are done, which for a response read
// to its end is then. A stream that closes before its body was read to its end (a RST_STREAM, NO_ERROR
// or CANCEL, from the server; a frame node:http2 could not send; its session gone) ends in an error.
function onStreamError (error) {
  this[kRequest].fail(error)
}

function onStreamClose () {
  const request = this[kRequest]
  if (request.state === RESPONDED && this.readableEnded) request.end()
  else request.fail(streamError('HTTP/2: stream closed before the response was complete'))
}

// node:http2 keeps the headers object of each request for the stream's `sentHeaders` getter, for the life
// of the stream, and reads it nowhere else; nobody reads ours, so it is dropped once the request is made.
// The property is found on the first stream by its symbol's description, and only if the getter reads
// it; should a Node keep the headers elsewhere, nothing is dropped.
let kSentHeaders
function dropSentHeaders (stream) {
  if (kSentHeaders === undefined) {
    const symbol = Object.getOwnPropertySymbols(stream).find((s) => s.description === 'sent-headers')
    const found = symbol !== undefined && stream[symbol] != null && stream.sentHeaders === stream[symbol]
    kSentHeaders = found ? symbol : null
  }
  if (kSentHeaders !== null) stream[kSentHeaders] = null
}

function onHeadersTimeout (request) {
  request.timer = null
  const stream = request.stream
  request.fail(Object.assign(new Error(`HTTP/2: "headers timeout after ${HEADERS_TIMEOUT}"`),
    { name: 'HeadersTimeoutError', code: 'UND_ERR_HEADERS_TIMEOUT' }))
  stream?.close()
}

// Opens the stream of `request` on the node:http2 session `h2` (`url`: its origin), with the shared listeners.
function startStream (h2, request, url) {
  const opts = request.opts
  request.opts = null
  const { method, body } = opts
  // The request's headers as undici maps them to HTTP/2: Host becomes :authority. Built in one object
  // (not copied, then a property deleted, which would make a dictionary of it: garbage per request).
  const given = opts.headers
  const headers = {
    ':authority': given.host ?? url.host,
    ':method': method,
    ':path': opts.path,
    ':scheme': url.protocol === 'http:' ? 'http' : 'https'
  }
  for (const name in given) if (name !== 'host') headers[name] = given[name]
  if (body != null && PAYLOAD_METHODS.has(method)) headers['content-length'] = `${Buffer.byteLength(body)}`
  let stream
  try {
    stream = h2.request(headers, { endStream: body == null || method === 'GET' || method === 'HEAD' })
  } catch (err) {
    // Nothing known makes node:http2 throw here: the headers are checked as the source is made, and a
    // session that is closing or gone takes no request (./http2-origin.js, hasRoom). Should a Node refuse
    // one all the same, the request fails as a network error rather than throw into whatever started it.
    request.fail(err)
    return
  }
  dropSentHeaders(stream)
  stream[kRequest] = request
  request.stream = stream
  stream.on('response', onStreamResponse)
  stream.on('data', onStreamData)
  stream.on('error', onStreamError)
  stream.on('close', onStreamClose)
  if (request.paused) stream.pause()
  if (body != null && method !== 'GET' && method !== 'HEAD') stream.end(body)
}

export { StreamRequest, startStream, NO_CONTEXT }
