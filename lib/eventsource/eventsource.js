// The EventSource interface and its processing model.
// https://html.spec.whatwg.org/multipage/server-sent-events.html#the-eventsource-interface
// https://html.spec.whatwg.org/multipage/server-sent-events.html#sse-processing-model
//
// The standard's state machine (readyState, announce, reestablish, fail) and the dispatch of events, and
// nothing else: the parts around it are given by the entry point that builds the class (lib/entries/,
// docs/architecture.md). With no extension in the init, every step is the standard's.

import {
  CONNECTING, OPEN, CLOSED, TASK_MESSAGE, TASK_ANNOUNCE, TASK_REESTABLISH, TASK_FAIL, TASK_END, TASK_BATCH
} from '../constants.js'
import { fromCallerOf } from '../errors/error-class.js'
import { codes } from '../errors/connection.js'
import { codes as argumentsCodes } from '../errors/arguments.js'
import { codes as extensionCodes } from '../errors/extensions.js'
import { defineInterface, parseUrl } from './webidl.js'
import { SourceParser } from './source-parser.js'
import { eventOrigin } from './message-event.js'
import { mimeEssence } from '../transport/response-headers.js'
import { displayHref } from '../transport/url.js'
import { ReadableStreamAttempt, STREAM_URL } from '../transport/readable-stream.js'
import { releaseHandlerMap } from '#listeners' // lib/platform/listeners-node.js; listeners-web.js in browsers
const {
  ERR_EVENTSOURCE_BAD_CONTENT_TYPE, ERR_EVENTSOURCE_BAD_STATUS, ERR_EVENTSOURCE_REQUEST_INIT,
  ERR_EVENTSOURCE_STREAM_ENDED
} = codes
const { ERR_INVALID_ARG_TYPE } = argumentsCodes
const { ERR_EVENTSOURCE_EXTENSION_NOT_LOADED } = extensionCodes

// The default reconnection time: "a user-agent-defined value, probably in the region of a few
// seconds". Chromium and Node's built-in use 3 s (Firefox 5 s).
const DEFAULT_RECONNECTION_TIME = 3000

/**
 * What an entry point builds an EventSource from: every part that differs from one build to another.
 * @typedef {object} EventSourceParts
 * @property {(dict: unknown) => object} resolveInit the constructor's dictionary, resolved
 *   (lib/eventsource/init.js, createInitResolver)
 * @property {typeof import('./task-queue.js').TaskQueue} TaskQueue runs the source's tasks
 * @property {(init: object, error: Error, failsConnection: boolean, counts: object, method: string)
 *   => Error | number} nextAttempt the decision after a failure: the delay before the next attempt, or the
 *   error to fail the connection with (lib/eventsource/reconnect.js; reconnect-policy.js's decide)
 * @property {(init: object, target: object) => object | Promise<object>} buildRequest the request of an
 *   attempt (lib/transport/request.js: standardRequest, or buildRequest with the extensions)
 * @property {((error: Error, headers: object | null) => object) | null} previousAttempt what init.request
 *   is told of the attempt before (lib/transport/request.js); null in a build without init.request
 * @property {{ createAttempt: Function, maxEventSize: (transport: object | undefined) => number | undefined }}
 *   transport what sends each request (lib/transport/transport-node.js, transport-web.js); maxEventSize is given
 *   init.transport, which only the extensions resolve
 * @property {{ MessageIterators: Function, finishedIterator: Function } | null} iterators `for await`
 *   (lib/eventsource/message-iterator.js); null in a build without it
 * @property {((signal: AbortSignal, onAbort: () => void) => (() => void) | null) | null} followSignal init.signal
 *   (lib/eventsource/abort-signal.js): calls onAbort when the signal aborts, and returns what stops following it;
 *   null in a build without init.signal
 * @property {Function | null} Diagnostics what a source counts and publishes (lib/eventsource/diagnostics-node.js);
 *   null in a build without diagnostics (browsers and workers: nobody can subscribe there)
 * @property {(type: string, data: string, origin: string, lastEventId: string) => MessageEvent}
 *   createMessageEvent the MessageEvent of a message (lib/eventsource/message-event.js: ours, or the runtime's)
 */

/**
 * The EventSource class of a build.
 * @param {EventSourceParts} parts
 */
function defineEventSource (parts) {
  const {
    resolveInit, TaskQueue, nextAttempt, buildRequest, previousAttempt, transport, iterators, followSignal,
    createMessageEvent
  } = parts
  const SourceDiagnostics = parts.Diagnostics

  // Set in the class's static block, where the private names are in scope.
  let hasEventSourceBrand
  let handlerSlots
  let parserCallbacks

  // The stream EventSource.fromReadableStream() hands to the constructor it calls; taken by that constructor
  // before it runs any code of the user's (the init's getters), so no other construction can see it.
  let adoptedStream = null

  function brandCheck (object) {
    if (object === null || typeof object !== 'object' || !hasEventSourceBrand(object)) {
      throw new TypeError('Illegal invocation: the receiver is not an EventSource')
    }
  }

  class EventSource extends EventTarget {
    #url
    #readyState = CONNECTING
    // { url, method } of the last redirected request, where the next requests go (as in Chromium); null until
    // a response came from elsewhere.
    #redirected = null
    #init
    #parser
    #connection = null
    #timer = null
    #reconnectionTime
    // The origin of the final URL of the current response, for MessageEvent#origin.
    #origin = ''
    // Requests started, and attempts in a row that delivered no event (an `open` alone is not progress,
    // or a server that answers and ends at once would reset the count forever).
    #attempts = 0
    #failures = 0
    // For the reconnection policy: events the current attempt delivered; since when attempts have delivered none.
    #attemptEvents = 0
    #failingSince = 0
    // For init.request: why the previous attempt ended; the last response's headers (only with one).
    #previous = null
    #responseHeaders = null
    #iterators = null
    #unfollowSignal = null
    // A source made by fromReadableStream(): its one attempt reads the stream; it never reconnects.
    #fromStream = false
    // Extension (init.onBatch): the messages of the chunk being parsed, for one call with them all.
    #batch = null
    // The values of onopen, onmessage and onerror (lib/eventsource/webidl.js): fields rather than an array
    // made at the first, which would cost a source that sets all three more than the fields do.
    #onopen = undefined
    #onmessage = undefined
    #onerror = undefined
    // null in a build without diagnostics.
    #diagnostics

    // The source's side of its transport (the sink), its task queue and its iterations: a class of its own, so
    // that the public surface stays the standard's. One small object per source, with shared methods: a
    // closure per report would cost hundreds of bytes on every idle connection.
    static #Internals = class EventSourceInternals extends TaskQueue {
      #source

      constructor (source) {
        super(source)
        this.#source = source
      }

      // The transport's reports.
      opened (response) { this.#source.#onOpen(response) }

      // The last call of the socket-to-parser path: the parser's onEvent queues each event.
      data (chunk) {
        const source = this.#source
        const iterators = source.#iterators
        if (iterators !== null) iterators.received()
        source.#diagnostics?.received(chunk.length)
        let error = null
        try {
          source.#parser.write(chunk)
        } catch (err) {
          // Only the parser's own limit throws here: an event over maxEventSize fails the connection.
          error = err
        }
        // The chunk's messages before any failure: its task runs before the failure's, as theirs do.
        if (source.#batch !== null) source.#queueBatch()
        if (error !== null) source.#onFail(error)
        // `for await` on a stream source, whose reads come from promise jobs: reading waits while the messages
        // parsed and not yet dispatched fill the high-water mark.
        else if (iterators !== null && source.#fromStream) iterators.pauseIfFull()
      }

      ended () { this.#source.#onEnd() }
      networkError (error) { this.#source.#onNetworkError(error) }
      failed (error) { this.#source.#onFail(error) }
      // The body of a response the source does not take is read for its error (lib/transport/error-body.js).
      refused (error) { this.#source.#onFail(error, TASK_REESTABLISH) }

      // The task queue's.
      get iterating () { return this.#source.#iterators !== null }
      get readsFromPromiseJobs () { return this.#source.#fromStream }

      runTask (kind, a, b, c, listened) {
        const source = this.#source
        switch (kind) {
          case TASK_MESSAGE: {
            if (!listened) {
              source.#diagnostics?.message(a, b, c)
              break
            }
            // HTML 9.2.6 "dispatch the event", step 7: the task that fires the MessageEvent, when someone
            // listens (the task queue asks). Here rather than in a method of its own: one frame fewer on
            // the path every event takes. While `for await` runs, its iterations make the event
            // (lib/eventsource/message-iterator.js), and queue it once dispatched.
            if (source.#iterators !== null) source.#iterators.taken()
            const event = source.#iterators === null
              ? createMessageEvent(a, b, source.#origin, c)
              : source.#iterators.createEvent(a, b, source.#origin, c)
            source.#diagnostics?.message(a, b, c)
            source.dispatchEvent(event)
            if (source.#iterators !== null && source.#readyState !== CLOSED) source.#iterators.push(event)
            break
          }
          case TASK_BATCH: source.#init.onBatch.call(source, a); break
          case TASK_ANNOUNCE: source.#announce(); break
          case TASK_REESTABLISH: source.#reestablish(a, b === true); break
          case TASK_FAIL: source.#failConnection(a); break
          default: source.#end()
        }
      }

      // The iterations': their queues pause and resume the connection, and leaving a loop closes the source.
      pause () { this.#source.#connection?.pause() }
      resume () { this.#source.#connection?.resume() }
      close () { this.#source.close() }
    }

    static {
      hasEventSourceBrand = (object) => #url in object
      handlerSlots = [
        { type: 'open', get: (source) => source.#onopen, set: (source, value) => { source.#onopen = value } },
        { type: 'message', get: (source) => source.#onmessage, set: (source, value) => { source.#onmessage = value } },
        { type: 'error', get: (source) => source.#onerror, set: (source, value) => { source.#onerror = value } }
      ]
      // The parser's callbacks, shared by every source: `this` is the source's parser (./source-parser.js).
      parserCallbacks = {
        onEvent (type, data, lastEventId) {
          const source = this.source
          // An event is progress: the reconnection policy counts failures from here (see #failures).
          source.#failures = 0
          source.#attemptEvents++
          // HTML 9.2.6 "dispatch the event", steps 4-6 done by the parser; step 7 queues a task.
          if (source.#readyState === CLOSED) return
          if (source.#iterators !== null) source.#iterators.parsed()
          source.#internals.push(TASK_MESSAGE, type, data, lastEventId)
          if (source.#batch !== null) source.#batch.push({ type, data, lastEventId, origin: source.#origin })
        },
        onRetry (ms) {
          this.source.#reconnectionTime = ms
        }
      }
    }

    #internals = new EventSource.#Internals(this)

    /**
     * @param {string | URL} url
     * @param {import('../../types').EventSourceInit} [eventSourceInitDict]
     */
    constructor (url, eventSourceInitDict = undefined) {
      if (arguments.length === 0) {
        throw new TypeError("Failed to construct 'EventSource': 1 argument required, but only 0 present.")
      }
      const stream = adoptedStream
      adoptedStream = null
      super()
      releaseHandlerMap(this)
      // WebIDL: url is a USVString, the dictionary a dictionary (undefined and null mean "empty").
      const urlString = `${url}`
      let init
      try {
        init = resolveInit(eventSourceInitDict, stream !== null)
      } catch (err) {
        // A bad option's stack starts at the user's `new EventSource()` (or fromReadableStream()).
        throw fromCallerOf(err, stream === null ? new.target : EventSource.fromReadableStream)
      }

      // Steps 3-5: parse the URL against the document's base URL, when there is a document.
      const urlRecord = parseUrl(urlString)
      this.#url = urlRecord.href
      this.#init = init
      this.#reconnectionTime = init.reconnect?.delay ?? DEFAULT_RECONNECTION_TIME
      // Extension: init.maxEventSize, else the transport's limit (asked only then), else the parser's default.
      const maxEventSize = init.maxEventSize ?? transport.maxEventSize(init.transport)
      this.#parser = new SourceParser(this, init, parserCallbacks, maxEventSize)
      this.#diagnostics = SourceDiagnostics === null ? null : new SourceDiagnostics(this, urlRecord)
      if (init.onBatch !== null) this.#batch = []
      if (stream !== null) {
        // The reader is taken now, as the proposal's steps take it: nobody else can read the stream from here on,
        // and close() before the first read cancels it all the same.
        this.#fromStream = true
        this.#connection = new ReadableStreamAttempt(stream.getReader(), this.#internals)
      }
      if (init.signal !== null) {
        this.#unfollowSignal = followSignal(init.signal, () => this.#close('abort'))
        if (this.#readyState === CLOSED) return
      }
      // The fetch runs "in parallel": it starts once the constructor has returned, so listeners added right
      // after construction see every event, and close() before then sends nothing. A promise job, not
      // queueMicrotask(), which fake timers replace. The `eventsource` package's entry departs from this
      // (init.departures): its first fetch starts here, and what it reports waits for a microtask checkpoint.
      if (init.departures.connectInConstructor) {
        this.#internals.waitForCheckpoint()
        this.#connect()
      } else {
        Promise.resolve().then(() => this.#connect())
      }
    }

    get url () {
      brandCheck(this)
      return this.#url
    }

    get withCredentials () {
      brandCheck(this)
      return this.#init.withCredentials
    }

    get readyState () {
      brandCheck(this)
      return this.#readyState
    }

    /** The last event ID string: what the next request's Last-Event-ID would say (whatwg/html PR #12272). */
    get lastEventId () {
      brandCheck(this)
      return this.#parser.lastEventId
    }

    /** The reconnection time, in milliseconds: the default, or what the last `retry:` field said (PR #12272). */
    get reconnectionTime () {
      brandCheck(this)
      return this.#reconnectionTime
    }

    /**
     * Discards what the parser holds of an event not yet dispatched (its data, event type, a partial line), so
     * that the bytes that follow are read as a fresh stream (a leading BOM dropped again); the last event ID
     * and the reconnection time are kept (whatwg/html PR #12272).
     */
    reset () {
      brandCheck(this)
      this.#parser.reset()
    }

    /**
     * A source that reads `stream`, the standard's processing of an event stream without its fetch: no request,
     * no reconnection; `close()` cancels the stream (whatwg/html PR #12272, a proposal).
     * @param {ReadableStream<Uint8Array>} stream
     * @param {object} [init] the extensions that apply to a stream (docs/api.md)
     */
    static fromReadableStream (stream, init = undefined) {
      // Any ReadableStream, by its shape rather than its class: a polyfill's, or another realm's, reads the same.
      if (stream === null || typeof stream !== 'object' || typeof stream.getReader !== 'function' ||
          typeof stream.locked !== 'boolean') {
        throw fromCallerOf(new ERR_INVALID_ARG_TYPE('stream', 'a ReadableStream (a Node stream converts with ' +
          'stream.Readable.toWeb())', stream), EventSource.fromReadableStream)
      }
      if (stream.locked) {
        throw new TypeError('EventSource.fromReadableStream(): the stream is locked to a reader')
      }
      adoptedStream = stream
      try {
        return new EventSource(STREAM_URL, init)
      } finally {
        adoptedStream = null
      }
    }

    /** Aborts any connection or pending reconnection and sets readyState to CLOSED. */
    close () {
      brandCheck(this)
      this.#close('close')
    }

    // close(), the abort signal or the end of the stream (extensions): `reason` is what diagnostics say.
    #close (reason) {
      if (this.#readyState === CLOSED) return
      this.#setReadyState(CLOSED)
      this.#stop(null)
      this.#diagnostics?.closed(reason, this.#attempts)
    }

    /**
     * Extension: `for await (const event of source)` yields every MessageEvent, whatever its type.
     * @returns {AsyncIterableIterator<MessageEvent>}
     */
    [Symbol.asyncIterator] () {
      brandCheck(this)
      if (iterators === null) throw new ERR_EVENTSOURCE_EXTENSION_NOT_LOADED('for await (Symbol.asyncIterator)')
      if (this.#readyState === CLOSED) return iterators.finishedIterator()
      this.#iterators ??= new iterators.MessageIterators(this.#internals, this.#init.highWaterMark,
        this.#init.highWaterMarkBytes, createMessageEvent)
      return this.#iterators.add()
    }

    // Releases everything that could run later: the request, its socket, the reconnection timer, the
    // abort listener, the tasks not yet run. Iterations end (error null) or throw the error.
    #stop (error) {
      this.#abortConnection()
      this.#internals.clear()
      if (this.#unfollowSignal !== null) {
        this.#unfollowSignal()
        this.#unfollowSignal = null
      }
      if (this.#iterators !== null) {
        this.#iterators.finish(error)
        this.#iterators = null
      }
    }

    // Ends the current attempt at once (a failure is announced by a task, later), and drops the events
    // still to come from the chunk being parsed.
    #abortConnection () {
      // (Not end(), which may dispatch an incomplete event: init.incompleteEvent.)
      this.#parser.reset()
      this.#diagnostics?.attemptOver(null)
      const connection = this.#connection
      this.#connection = null
      connection?.abort()
      if (this.#timer !== null) {
        clearTimeout(this.#timer)
        this.#timer = null
      }
    }

    #connect () {
      if (this.#readyState === CLOSED) return
      if (this.#fromStream) {
        // A stream source: its one attempt, made by the constructor, reads the stream (no request is sent).
        this.#attempts++
        if (this.#diagnostics === null) this.#connection.start()
        else this.#diagnostics.startAttempt(null, this.#parser.lastEventId, this.#connection)
        return
      }
      const target = {
        attempt: ++this.#attempts,
        sourceUrl: this.#url,
        url: this.#redirected?.url ?? this.#url,
        method: this.#redirected?.method ?? this.#init.method,
        lastEventId: this.#parser.lastEventId,
        previous: this.#previous
      }
      let request
      try {
        // The standard's request, or the one that reads the extensions' members too (lib/transport/request.js).
        request = buildRequest(this.#init, target)
      } catch (err) {
        this.#requestError(err)
        return
      }
      if (typeof request.then !== 'function') {
        // init.headers or init.body may have called close() (or aborted the signal): then nothing is sent.
        if (this.#readyState !== CLOSED) this.#send(request)
        return
      }
      // init.headers or init.body returned a promise. close() may come meanwhile; so may nothing else.
      request.then((request) => {
        if (this.#readyState !== CLOSED) this.#send(request)
      }, (err) => {
        if (this.#readyState !== CLOSED) this.#requestError(err)
      })
    }

    // A user function for headers or body threw: reestablish, as for a network error. A value it
    // returned that cannot be sent fails the connection: retrying would send the same.
    #requestError (err) {
      if (err instanceof ERR_EVENTSOURCE_REQUEST_INIT) this.#onNetworkError(err)
      else this.#onFail(err)
    }

    #send (request) {
      this.#parser.reset()
      this.#attemptEvents = 0
      const connection = this.#connection = transport.createAttempt(request, this.#internals)
      if (this.#iterators?.full) connection.pause()
      if (this.#diagnostics === null) connection.start()
      else this.#diagnostics.startAttempt(request, this.#parser.lastEventId, connection)
    }

    // What the transport reports (through the internals): an event is fired from a task, an attempt ended at once.

    // The final response of an attempt. Processing model: "if res's status is not 200, or if res's
    // `Content-Type` is not `text/event-stream`, then fail the connection"; else announce it.
    #onOpen (response) {
      const { status, statusText, headers } = response
      const url = new URL(response.url)
      if (status !== 200 || mimeEssence(headers['content-type']) !== 'text/event-stream') {
        const details = { status, statusText, headers, url: displayHref(url) }
        const error = status !== 200
          ? new ERR_EVENTSOURCE_BAD_STATUS(status, statusText, details)
          : new ERR_EVENTSOURCE_BAD_CONTENT_TYPE(headers['content-type'], details)
        // Extension (init.errorBody): its body is read first, then refused(); the reader (lib/transport/error-body.js)
        // takes the attempt's reports, and stands for the attempt until then, so that close() stops it.
        const bounds = this.#init.errorBody
        if (bounds === null) this.#onFail(error, TASK_REESTABLISH)
        else this.#connection = bounds.read(error, this.#internals, this.#connection)
        return
      }
      this.#origin = eventOrigin(url)
      if (this.#init.request !== null) this.#responseHeaders = headers
      this.#diagnostics?.opened(response, url, this.#attempts)
      // A reconnection goes to the final URL, as Chromium does, unless an entry point departs from it (the
      // `eventsource` package reconnects to the URL given, and code written for it may rely on it).
      if (response.method !== null && this.#init.departures.reconnectToFinalUrl) {
        this.#redirected = response.url === this.#url && response.method === this.#init.method
          ? null
          : { url: response.url, method: response.method }
      }
      this.#queueTask(TASK_ANNOUNCE)
    }

    #onEnd () {
      this.#connection = null
      // Extension (init.incompleteEvent: 'dispatch', with closeOnEnd or on a stream source): the stream ended
      // cleanly, and an event it ended without its blank line is dispatched rather than discarded.
      if (this.#init.incompleteEvent === 'dispatch') {
        // (The parser was made with init.incompleteEvent. It cannot throw here: the last line was held to
        // maxEventSize as it arrived.)
        this.#parser.end()
        if (this.#batch !== null) this.#queueBatch()
      }
      this.#diagnostics?.attemptOver(null)
      if (this.#init.closeOnEnd) this.#queueTask(TASK_END)
      // A stream source does not reconnect: the end of its stream fails it (PR #12272).
      else if (this.#fromStream) this.#queueTask(TASK_FAIL, new ERR_EVENTSOURCE_STREAM_ENDED())
      else this.#queueTask(TASK_REESTABLISH, new ERR_EVENTSOURCE_STREAM_ENDED())
    }

    // Extension (init.onBatch): one task for the messages of a chunk, queued after theirs; none for a chunk without.
    #queueBatch () {
      const batch = this.#batch
      if (batch.length === 0) return
      this.#batch = []
      this.#queueTask(TASK_BATCH, batch)
    }

    #onNetworkError (error) {
      this.#connection = null
      this.#diagnostics?.attemptOver(error)
      this.#queueTask(TASK_REESTABLISH, error)
    }

    // The attempt ends, and the connection fails; for a response the source does not take (TASK_REESTABLISH,
    // its body read or not), the standard fails it, and the reconnection policy may retry it (retryOnStatus).
    #onFail (error, kind = TASK_FAIL) {
      this.#diagnostics?.attemptOver(error)
      this.#abortConnection()
      this.#queueTask(kind, error, kind === TASK_REESTABLISH)
    }

    // Every step that fires an event does so from a task (lib/eventsource/task-queue.js); none after close().
    // `failsConnection`, for TASK_REESTABLISH: the standard fails the connection here (a response it does not take).
    #queueTask (kind, error, failsConnection) {
      if (this.#readyState !== CLOSED) this.#internals.push(kind, error, failsConnection)
    }

    // The tasks, run by the task queue (through the internals).

    // "Announce the connection": a task that, if readyState is not CLOSED, sets it to OPEN and fires open.
    #announce () {
      if (this.#readyState === CLOSED) return
      this.#setReadyState(OPEN)
      this.dispatchEvent(new Event('open'))
    }

    // "Fail the connection": readyState CLOSED and one `error` event; no reconnection.
    #failConnection (error) {
      if (this.#readyState === CLOSED) return
      this.#setReadyState(CLOSED)
      this.#stop(error)
      this.#diagnostics?.error(error, undefined)
      this.#diagnostics?.closed('failure', this.#attempts)
      // The error event: ours (lib/eventsource/error-event.js), or an entry point's (init.departures).
      this.dispatchEvent(this.#init.departures.errorEvent(error, undefined))
    }

    // Extension (init.closeOnEnd): the end of the response is the end of the stream. readyState CLOSED,
    // iterations end normally, and an `end` event rather than an `error`, so that a program can tell a
    // complete answer from a failure.
    #end () {
      if (this.#readyState === CLOSED) return
      this.#close('end')
      this.dispatchEvent(new Event('end'))
    }

    // "Reestablish the connection". `error` says why; `failsConnection`: the standard fails the connection on it
    // (a response it does not take), unless the reconnection policy retries it.
    #reestablish (error, failsConnection) {
      // Step 1: if the readyState attribute is set to CLOSED, abort these steps.
      if (this.#readyState === CLOSED) return
      // Whether to try again, and when: the reconnection time (lib/eventsource/reconnect.js), or what the
      // extensions say (reconnect-policy.js).
      const now = performance.now()
      if (++this.#failures === 1) this.#failingSince = now
      const next = nextAttempt(this.#init, error, failsConnection, {
        events: this.#attemptEvents,
        retry: this.#reconnectionTime,
        failures: this.#failures,
        attempts: this.#attempts,
        elapsed: now - this.#failingSince
      }, this.#redirected?.method ?? this.#init.method)
      // The policy may have called close().
      if (this.#readyState === CLOSED) return
      if (typeof next !== 'number') {
        this.#failConnection(next)
        return
      }
      if (this.#init.request !== null) {
        this.#previous = previousAttempt(error, this.#responseHeaders)
        this.#responseHeaders = null
      }
      // Step 2: set readyState to CONNECTING and fire an event named error.
      this.#setReadyState(CONNECTING)
      this.#diagnostics?.error(error, next)
      this.dispatchEvent(this.#init.departures.errorEvent(error, next))
      // A listener may have called close().
      if (this.#readyState !== CONNECTING) return
      // Steps 3-5: wait the reconnection time, then fetch again. The timer keeps the process alive, as the
      // connection would, unless init.keepAliveWhileReconnecting is false (the `eventsource` package's choice).
      this.#timer = setTimeout(() => {
        this.#timer = null
        this.#connect()
      }, next)
      // (A browser's timer is a number, and fake timers' may have no unref.)
      if (!this.#init.keepAliveWhileReconnecting) this.#timer.unref?.()
    }

    // Every change of readyState goes through here: the time spent OPEN is counted for diagnostics.
    #setReadyState (state) {
      this.#diagnostics?.readyStateChanged(this.#readyState, state)
      this.#readyState = state
    }
  }

  // The constants, the event handlers and the attributes' descriptors, as WebIDL and HTML have them.
  defineInterface(EventSource, brandCheck, handlerSlots, { CONNECTING, OPEN, CLOSED })
  return EventSource
}

export { defineEventSource }
