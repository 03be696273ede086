// One event stream to one client: the head at once, events encoded as they are sent and written once per tick,
// heartbeats from a timer shared by every writer with the same interval, the client's pace followed (send()
// says when to wait, `ready` resolves when the client has read), and nothing left running once the stream is
// closed, whoever closed it.
//
// Where the bytes go is a sink, chosen by the entry point from what it composes (./node-sinks.js for a
// node:http or node:http2 response, ./web-sink.js for a WHATWG Response): a sink is one shared object of
// functions, not an object per writer, so that an idle client costs its writer and its response and little
// else (issue 49's budget per idle subscriber).
//
// HTML 9.2.2 asks servers to send a comment every 15 seconds or so, because proxies drop connections idle for
// longer: hence the default heartbeat.

import { concatBytes, utf8Bytes } from '#bytes'
import { encodeEvent, encodeEvents } from './encoder.js'
import { codes as argumentCodes } from '../errors/arguments.js'
import { codes as serverCodes } from '../errors/server.js'
import { validateObject, validateLimit, validateString } from '../validators/values.js'

const { ERR_INVALID_ARG_VALUE, ERR_INVALID_ARG_TYPE } = argumentCodes
const { ERR_EVENTSOURCE_WRITER_CLOSED, ERR_EVENTSOURCE_CLIENT_TOO_SLOW } = serverCodes

const DEFAULT_HEARTBEAT = 15_000
// What a client may leave unread before it is disconnected (see maxBufferedBytes in docs/server.md).
const DEFAULT_MAX_BUFFERED_BYTES = 4 * 1024 * 1024
// A Last-Event-ID longer than this is not looked at: it names no event this server wrote (a client sends
// back the ids it was given), and a hostile one must not be kept or compared at length.
const MAX_LAST_EVENT_ID = 1024

// The head of every event stream. Never Connection or Transfer-Encoding: HTTP/2 forbids both, and HTTP/1.1
// framing is the server's to choose.
const EVENT_STREAM_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache',
  // nginx buffers responses by default; this header turns it off for this one.
  'x-accel-buffering': 'no'
}
const FORBIDDEN_HEADERS = new Set([
  'connection', 'transfer-encoding', 'keep-alive', 'upgrade', 'proxy-connection', 'content-length'
])

// What one tick's events may add up to before they are written at once (see #queue).
const PENDING_HIGH_WATER_MARK = 64 * 1024

const HEARTBEAT = /* @__PURE__ */ utf8Bytes(':\n\n')

const OPEN = 0
const CLOSED = 1

// Writers with events sent in this tick, written by one promise job for them all (a promise job rather than
// queueMicrotask, which fake timers replace).
let dirty = []
const resolved = /* @__PURE__ */ Promise.resolve()

// Each writer is followed by its class's flush function (one class per entry point, each with its own).
function flushDirty () {
  const list = dirty
  dirty = []
  for (let i = 0; i < list.length; i += 2) list[i + 1](list[i])
}

// The heartbeat timers: interval -> the writers that beat at it, each with its class's function that writes a
// heartbeat. One timer per interval, stopped with its last writer.
const heartbeats = new Map()

function beat (writers) {
  for (const [writer, writeHeartbeat] of writers) writeHeartbeat(writer)
}

function startHeartbeat (writer, interval, writeHeartbeat) {
  let group = heartbeats.get(interval)
  if (group === undefined) {
    const writers = new Map()
    const timer = setInterval(beat, interval, writers)
    // A server's sockets keep its process alive, not its heartbeats.
    timer.unref?.()
    group = { timer, writers }
    heartbeats.set(interval, group)
  }
  group.writers.set(writer, writeHeartbeat)
}

// (Called only for a writer that started one: #heartbeat is set when it does.)
function stopHeartbeat (writer, interval) {
  const group = heartbeats.get(interval)
  group.writers.delete(writer)
  if (group.writers.size === 0) {
    clearInterval(group.timer)
    heartbeats.delete(interval)
  }
}

// Promise.withResolvers(), which Node 20 lacks.
function deferred () {
  const settle = {}
  const promise = new Promise((resolve, reject) => {
    settle.resolve = resolve
    settle.reject = reject
  })
  return { promise, resolve: settle.resolve, reject: settle.reject }
}

/**
 * The EventStreamWriter class of an entry point, writing to the sinks it composes.
 * @param {{ createSinkFor: (hooks: { drained: Function, ended: Function }) => (target: unknown) => object }} parts
 *   `createSinkFor(hooks)` returns the function that picks the sink of a target; the sink tells the writer
 *   that the client has read (`hooks.drained(writer)`) or that the response ended (`hooks.ended(writer, why)`).
 */
function defineEventStreamWriter ({ createSinkFor }) {
  // The writer's internals: functions rather than methods, so that the public surface stays the documented one.
  let flushWriter, writeNow, drained, ended, attachChannel, isFull, isOpen, cut
  const writeHeartbeat = (writer) => writeNow(writer, HEARTBEAT)
  /**
   * An event stream to one client.
   */
  class EventStreamWriter {
    #state = OPEN
    // The sink (a shared object of functions) and what it writes to: the response, or a compressor in front
    // of it; see ./node-sinks.js and ./web-sink.js.
    #sink
    #target
    #lastEventId
    // Bytes sent in this tick, not yet written; null when none.
    #pending = null
    #pendingBytes = 0
    // The last write was not taken at once: the client has yet to read (#unread bytes since).
    #full = false
    #unread = 0
    #maxBufferedBytes
    // The interval of the heartbeat this writer beats at; 0 for none (also while it is being made).
    #heartbeat = 0
    // The channel this writer is a subscriber of (./channel.js), told when the client reads again or leaves.
    #channel = null
    // Made when asked for: an idle client keeps none of them.
    #ready = null
    #closed = null
    #controller = null
    #reason = null

    /**
     * @param {object} [target] a node:http or node:http2 response, an http2 stream, or a WHATWG Request
     * @param {import('../../types/server').EventStreamWriterOptions} [options]
     */
    constructor (target = undefined, options = undefined) {
      if (options !== undefined) validateObject(options, 'options')
      const heartbeat = options?.heartbeat ?? DEFAULT_HEARTBEAT
      validateLimit(heartbeat, 'options.heartbeat')
      const maxBufferedBytes = options?.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED_BYTES
      validateLimit(maxBufferedBytes, 'options.maxBufferedBytes', { allowInfinity: true })
      // Encoded now, before the head is sent: a bad value throws while the caller can still answer otherwise,
      // and leaves no response half-made behind it.
      const retry = options?.retry
      if (retry !== undefined) validateLimit(retry, 'options.retry')
      const retryBytes = retry === undefined ? null : encodeEvent({ retry })
      const compress = options?.compress ?? false
      if (typeof compress !== 'boolean') throw new ERR_INVALID_ARG_TYPE('options.compress', 'of type boolean', compress)
      const headers = eventStreamHeaders(options?.headers)
      let lastEventId = options?.lastEventId
      if (lastEventId !== undefined) validateString(lastEventId, 'options.lastEventId')
      // (sinkFor is made below, before any writer: the class's hooks are its arguments.)
      const sink = sinkFor(target, compress)
      lastEventId ??= idFromHeader(sink.lastEventId(target))
      this.#lastEventId = lastEventId.length > MAX_LAST_EVENT_ID ? null : lastEventId
      this.#sink = sink
      this.#maxBufferedBytes = maxBufferedBytes
      this.#target = sink.open(target, this, headers)
      // A client that left before the writer was made: its response will not say so again.
      if (sink.gone(this.#target)) {
        this.#end(new ERR_EVENTSOURCE_WRITER_CLOSED('the client left'), 'gone')
        return
      }
      if (retryBytes !== null && this.#state === OPEN) this.#queue(retryBytes)
      // A sink may have closed it already (a request aborted before it was made): then no timer, and none to stop.
      if (heartbeat !== 0 && this.#state === OPEN) {
        startHeartbeat(this, heartbeat, writeHeartbeat)
        this.#heartbeat = heartbeat
      }
    }

    /**
     * The Last-Event-ID the client sent: '' when it sent none; null when it was too long to be one this
     * server wrote.
     */
    get lastEventId () {
      return this.#lastEventId
    }

    /** The body to answer with, on a writer made for a WHATWG Request (or none). */
    get readable () {
      return this.#sink.readable(this.#target)
    }

    /**
     * The Response to answer with, on a writer made for a WHATWG Request (or none).
     * @param {ResponseInit} [init] more headers, merged into the event stream's
     */
    response (init = undefined) {
      return this.#sink.response(this.#target, init)
    }

    /**
     * Sends an event, or several, written with the others of this tick. Returns false once the client has
     * not read what was written before: wait for `ready` before sending more. After the stream closed, sends
     * nothing and returns false.
     * @param {import('../../types/server').ServerSentEvent | Iterable<import('../../types/server').ServerSentEvent>}
     *   events
     */
    send (events) {
      // Encoded now: a bad event throws from the caller's line, not from a later tick.
      const bytes = events !== null && typeof events === 'object' && Symbol.iterator in events
        ? encodeEvents(events)
        : encodeEvent(events)
      if (this.#state === CLOSED) return false
      this.#queue(bytes)
      return !this.#full
    }

    /** Sends a comment line (a client ignores it): keep-alive, or a note to whoever reads the stream. */
    comment (text = '') {
      return this.send({ comment: text })
    }

    /** Resolves once the client has read what it was sent; rejects once the stream is closed. */
    get ready () {
      if (this.#state === CLOSED) return Promise.reject(this.#reason)
      if (!this.#full) return resolved
      this.#ready ??= deferred()
      return this.#ready.promise
    }

    /** Resolves once the stream is closed, whoever closed it. */
    get closed () {
      if (this.#closed === null) {
        this.#closed = deferred()
        if (this.#state === CLOSED) this.#closed.resolve()
      }
      return this.#closed.promise
    }

    /** Aborted once the stream is closed; its reason says why. */
    get signal () {
      if (this.#controller === null) {
        this.#controller = new AbortController()
        if (this.#state === CLOSED) this.#controller.abort(this.#reason)
      }
      return this.#controller.signal
    }

    /** Writes what was sent and ends the response. */
    close () {
      if (this.#state === CLOSED) return
      this.#flush()
      this.#end(new ERR_EVENTSOURCE_WRITER_CLOSED('closed by the server'), 'end')
    }

    #queue (bytes) {
      if (this.#pending === null) {
        this.#pending = bytes
        this.#pendingBytes = bytes.length
        if (dirty.length === 0) resolved.then(flushDirty)
        dirty.push(this, flushWriter)
        return
      }
      if (Array.isArray(this.#pending)) this.#pending.push(bytes)
      else this.#pending = [this.#pending, bytes]
      // A loop that sends without awaiting anything never reaches the end of its tick: past a high-water mark,
      // what it sent is written now, so that send() can say the client has not read it (and maxBufferedBytes
      // bounds what it keeps sending), rather than gather it all here.
      if ((this.#pendingBytes += bytes.length) >= PENDING_HIGH_WATER_MARK) this.#flush()
    }

    #flush () {
      const pending = this.#pending
      if (pending === null) return
      // (Never closed here: #end() drops what was pending.)
      this.#pending = null
      this.#pendingBytes = 0
      this.#write(Array.isArray(pending) ? concatBytes(pending) : pending)
    }

    #write (bytes) {
      if (this.#full) {
        this.#unread += bytes.length
        if (this.#unread > this.#maxBufferedBytes) {
          this.#end(new ERR_EVENTSOURCE_CLIENT_TOO_SLOW(`more than ${this.#maxBufferedBytes} bytes unread`), 'cut')
          return false
        }
      }
      if (this.#sink.write(this.#target, bytes)) return true
      if (!this.#full) {
        this.#full = true
        this.#unread = 0
        this.#sink.waitForDrain(this.#target, this)
      }
      return false
    }

    #drained () {
      this.#full = false
      this.#unread = 0
      const ready = this.#ready
      this.#ready = null
      ready?.resolve()
      this.#channel?.drained(this)
    }

    // How the response ends (the sink's close()): 'end', after what was written; 'cut', at once, for a client
    // too slow (an end would wait behind what it has not read, and keep all of it, and its connection, for as
    // long as it does not read); 'gone' when it has ended already (the client left, the server closed it).
    #end (reason, how) {
      if (this.#state === CLOSED) return
      this.#state = CLOSED
      this.#reason = reason
      this.#pending = null
      if (this.#heartbeat !== 0) stopHeartbeat(this, this.#heartbeat)
      this.#sink.close(this.#target, how, reason)
      this.#channel?.left(this)
      this.#channel = null
      const ready = this.#ready
      this.#ready = null
      if (ready !== null) {
        // Rejected, since a producer waiting for it must stop; handled here, since it may have none waiting.
        ready.promise.catch(() => {})
        ready.reject(reason)
      }
      this.#closed?.resolve()
      this.#controller?.abort(reason)
    }

    static {
      flushWriter = (writer) => writer.#flush()
      writeNow = (writer, bytes) => writer.#state === OPEN && writer.#write(bytes)
      isFull = (writer) => writer.#full
      isOpen = (writer) => writer.#state === OPEN
      cut = (writer, reason) => writer.#end(reason, 'cut')
      drained = (writer) => writer.#drained()
      ended = (writer, why) => writer.#end(new ERR_EVENTSOURCE_WRITER_CLOSED(why), 'gone')
      attachChannel = (writer, channel) => {
        if (writer.#channel !== null) {
          throw new ERR_INVALID_ARG_VALUE('writer', writer, 'is a subscriber of a channel already')
        }
        if (writer.#state === OPEN) writer.#channel = channel
        return writer.#state === OPEN
      }
    }
  }

  Object.defineProperty(EventStreamWriter.prototype, Symbol.toStringTag, {
    value: 'EventStreamWriter', configurable: true
  })
  const sinkFor = createSinkFor({ drained, ended })
  internalsOf.set(EventStreamWriter, { writeNow, attachChannel, isFull, isOpen, cut })
  return EventStreamWriter
}

// Each writer class's internals, for the channel defined over it (./channel.js): a map rather than a second
// return value, so that an entry point's `const X = defineEventStreamWriter(...)` stays one call a bundler may
// drop when X is not used.
const internalsOf = new WeakMap()

/** The internals of a class defineEventStreamWriter() made. */
function writerInternals (EventStreamWriter) {
  return internalsOf.get(EventStreamWriter)
}

const utf8 = /* @__PURE__ */ new TextDecoder()

// The Last-Event-ID header's value as the id it names. A header comes one character per byte (Node's latin1, a
// WHATWG ByteString), and a client sends its last event ID as UTF-8 (HTML 9.2.3): read as it came, an id with
// a character past ASCII (which the encoder writes as UTF-8) would never be found again. A value longer than
// an id this server looks at is left as it is, undecoded (the constructor sets it aside).
function idFromHeader (value) {
  if (value === undefined) return ''
  if (value.length > MAX_LAST_EVENT_ID || !/[\x80-\xff]/.test(value)) return value
  return utf8.decode(Uint8Array.from(value, (c) => c.charCodeAt(0)))
}

// The head: the event stream's headers and the user's (which may not say how the body is framed).
function eventStreamHeaders (extra) {
  const headers = { ...EVENT_STREAM_HEADERS }
  if (extra === undefined) return headers
  validateObject(extra, 'options.headers')
  // Pairs from anything iterable (an array of pairs, a Map, a Headers: each iterates as [name, value]), the
  // own properties of a record. Not entries(): an array's yields [index, pair].
  const entries = typeof extra[Symbol.iterator] === 'function' ? extra : Object.entries(extra)
  for (const [name, value] of entries) {
    const key = `${name}`.toLowerCase()
    if (FORBIDDEN_HEADERS.has(key)) {
      throw new ERR_INVALID_ARG_VALUE(`options.headers.${key}`, value,
        'is not allowed: it says how the body is framed, which the server chooses (and HTTP/2 forbids)')
    }
    const text = `${value}`
    // node:http refuses these, a WHATWG Headers too, but node:http2 sends them: a proxy that hands the response
    // on over HTTP/1.1 could take a CR or LF for the end of the field, and a client refuses the stream. Refused
    // here, for every target alike.
    if (/[\r\n\0]/.test(text)) {
      throw new ERR_INVALID_ARG_VALUE(`options.headers.${key}`, text, 'must not contain CR, LF or NUL')
    }
    headers[key] = text
  }
  return headers
}

export { defineEventStreamWriter, writerInternals, EVENT_STREAM_HEADERS, MAX_LAST_EVENT_ID }
