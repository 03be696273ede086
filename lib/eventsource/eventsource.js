'use strict'

// The EventSource interface and its processing model.
// https://html.spec.whatwg.org/multipage/server-sent-events.html#the-eventsource-interface
// https://html.spec.whatwg.org/multipage/server-sent-events.html#sse-processing-model
//
// This file owns the readyState machine and event dispatch. Each attempt is a request built by
// lib/transport/request.js and sent by a transport (lib/transport/transport-node.js), which reports back to the source's sink
// (TransportSink, below); the body's bytes go to an EventSourceParser (lib/parser/parser.js), whose callbacks
// land here. The Node extensions (lib/eventsource/init.js) only add to it: with none given, every step
// is the standard's.

const { EventSourceParser } = require('../parser/parser')
const { CONNECTING, OPEN, CLOSED } = require('../constants')
const {
  codes: {
    ERR_EVENTSOURCE_BAD_CONTENT_TYPE, ERR_EVENTSOURCE_BAD_STATUS, ERR_EVENTSOURCE_REQUEST_INIT,
    ERR_EVENTSOURCE_RETRIES_EXHAUSTED, ERR_EVENTSOURCE_STREAM_ENDED
  }
} = require('../errors')
const { defineEventHandler } = require('./event-handler')
const { resolveInit } = require('./init')
const { buildRequest } = require('../transport/request')
// lib/transport/transport-node.js on Node, Bun and Deno; lib/transport/transport-web.js, fetch only, elsewhere (package.json's "imports").
const { createAttempt, transportMaxEventSize } = require('#transport')
const { mimeEssence } = require('../transport/response-headers')
const { displayHref } = require('../transport/redirect-policy')
// lib/eventsource/reconnect-policy.js and lib/eventsource/message-iterator.js are loaded with the first reconnection and the
// first `for await`: a source that only receives events needs neither, and each file is a few tenths
// of a millisecond of a fresh process's start (benchmarks/startup).
let reconnectPolicy = null
let messageIterator = null
const { unshared } = require('../parser/unshared-string')
const { afterMicrotaskCheckpoint } = require('./task-queue')
// lib/platform/listeners-node.js on Node, Bun and Deno; lib/platform/listeners-web.js (a count not known) elsewhere.
const { listenerCount } = require('#listeners')
// lib/platform/channels-node.js on Node, Bun and Deno; lib/platform/channels-web.js (nothing to publish to) elsewhere.
const {
  createChannel, connectChannel, openChannel, messageChannel, errorChannel, closeChannel,
  tracingAttempts, traceAttemptStart, traceAttemptEnd
} = require('#channels')

// The default reconnection time: "a user-agent-defined value, probably in the region of a few
// seconds". Chromium and Node's built-in use 3 s (Firefox 5 s).
const DEFAULT_RECONNECTION_TIME = 3000

// Set in the class's static block, where the private names are in scope.
let hasEventSourceBrand
let handlerSlots

// The tasks an EventSource queues (see #queueTask): each entry of the queue is four slots, the kind
// and up to three arguments, so that no object is allocated per event.
const TASK_MESSAGE = 0 // type, data, lastEventId: "dispatch the event"
const TASK_ANNOUNCE = 1 // "announce the connection"
const TASK_REESTABLISH = 2 // error: "reestablish the connection"
const TASK_FAIL = 3 // error: "fail the connection"
const TASK_END = 4 // extension (closeOnEnd): the stream ended, close without reconnecting
const TASK_SLOTS = 4

// What has run of the event loop since a source last dispatched an event (see #runTasks): the promise
// jobs queued by then (one job deep), or a full microtask checkpoint. Ordered: a checkpoint is more.
const ONE_JOB = 1
const CHECKPOINT = 2

const resolvedPromise = Promise.resolve()
// Runs a source's tasks again after a checkpoint.
let runTasksAfterCheckpoint

function brandCheck (object) {
  if (object === null || typeof object !== 'object' || !hasEventSourceBrand(object)) {
    throw new TypeError('Illegal invocation: the receiver is not an EventSource')
  }
}

class EventSource extends EventTarget {
  #url
  #withCredentials
  #readyState = CONNECTING
  // Where requests go: the URL, then the final URL of the last redirected request (as in Chromium),
  // with the method that request ended with (a redirect may have made it a GET without a body).
  #requestUrl
  #requestMethod
  #init
  #parser
  // The current attempt (lib/transport/transport-node.js), from its request to its last report.
  #connection = null
  #timer = null
  #reconnectionTime
  // The origin of the final URL of the current response, for MessageEvent#origin.
  #origin = ''
  // Requests started (for init.headers/init.body functions), and attempts in a row that delivered no
  // event (for the reconnection policy: an `open` alone is not progress, or a server that answers and
  // ends at once would reset the count forever).
  #attempts = 0
  #failures = 0
  #iterators = null
  // Network chunks received, for the iterators' queues (lib/eventsource/message-iterator.js).
  #chunks = 0
  #onAbort = null
  // The values of onopen, onmessage and onerror (lib/eventsource/event-handler.js), once any is set.
  #handlers = null
  // Tasks waiting to run (TASK_SLOTS slots each), from #taskHead to #taskTail; null until the first.
  // #waiting is true while a wait after the last dispatched event is under way.
  #tasks = null
  #taskHead = 0
  #taskTail = 0
  #waiting = false
  // A listener went away while an event was dispatched (a `once` listener: the mark of an `await
  // once(source, type)` loop), so the next task waits for a full checkpoint (#runTasks).
  #checkpointDue = false
  // #runTasks(ONE_JOB) as a function, made at the first wait: one per source rather than one per event.
  #runTasksAfterOneJob = null
  // For diagnostics_channel (lib/platform/channels-node.js): messages dispatched (listened for or not), body bytes received (decoded),
  // when the current attempt started, the time spent OPEN before the current connection and since
  // when it is OPEN (0 when it is not), and the current attempt's tracing context.
  #events = 0
  #bytes = 0
  #attemptStart = 0
  #msOpen = 0
  #openSince = 0
  #traceContext = null

  // What a transport reports to its source: the sink of lib/transport/transport-node.js. A class of its own, so that
  // the EventSource's public surface stays the standard's; declared in here, where the source's private
  // names are in scope; one small object per source, with shared methods (five closures per source
  // would cost about 340 bytes on every idle connection).
  static #TransportSink = class TransportSink {
    #source

    constructor (source) {
      this.#source = source
    }

    opened (response) { this.#source.#onOpen(response) }

    // The last call of the socket-to-parser path: the parser's onEvent queues each event (#queueTask).
    data (chunk) {
      const source = this.#source
      source.#chunks++
      source.#bytes += chunk.length
      try {
        source.#parser.write(chunk)
      } catch (err) {
        // Only the parser's own limit throws here: an event over maxEventSize fails the connection.
        source.#onFail(err)
      }
    }

    ended () { this.#source.#onEnd() }
    networkError (error) { this.#source.#onNetworkError(error) }
    failed (error) { this.#source.#onFail(error) }
  }

  static {
    hasEventSourceBrand = (object) => #url in object
    runTasksAfterCheckpoint = (source) => source.#runTasks(CHECKPOINT)
    handlerSlots = ['open', 'message', 'error'].map((type, index) => ({
      type,
      get: (source) => source.#handlers?.[index],
      set: (source, value) => { (source.#handlers ??= [undefined, undefined, undefined])[index] = value }
    }))
  }

  #sink = new EventSource.#TransportSink(this)

  /**
   * @param {string | URL} url
   * @param {import('../../types').EventSourceInit} [eventSourceInitDict]
   */
  constructor (url, eventSourceInitDict = undefined) {
    if (arguments.length === 0) {
      throw new TypeError("Failed to construct 'EventSource': 1 argument required, but only 0 present.")
    }
    super()
    // WebIDL: url is a USVString, the dictionary a dictionary (undefined and null mean "empty").
    const urlString = `${url}`
    const init = resolveInit(eventSourceInitDict)

    // Steps 3-5: parse the URL against the document's base URL, when there is a document.
    const base = globalThis.location?.href
    let urlRecord
    try {
      urlRecord = base === undefined ? new URL(urlString) : new URL(urlString, `${base}`)
    } catch (cause) {
      // The URL parser's own words end the message, as in Node's built-in EventSource, whose whole
      // message they are ("TypeError: Invalid URL"): code that matches on them keeps working.
      throw new DOMException(`Failed to construct 'EventSource': The URL '${urlString}' is invalid: ${cause}`,
        { name: 'SyntaxError', cause })
    }
    this.#url = urlRecord.href
    this.#requestUrl = urlRecord.href
    this.#requestMethod = init.method
    this.#withCredentials = init.withCredentials
    this.#init = init
    this.#reconnectionTime = init.reconnect.delay ?? DEFAULT_RECONNECTION_TIME
    this.#parser = new EventSourceParser({
      onEvent: (type, data, lastEventId) => {
        // An event is progress: the reconnection policy counts failures from here (see #failures).
        this.#failures = 0
        // HTML 9.2.6 "dispatch the event", steps 4-6 done by the parser; step 7 queues a task.
        this.#queueTask(TASK_MESSAGE, type, data, lastEventId)
      },
      onRetry: (ms) => { this.#reconnectionTime = ms },
      // Extension: without init.maxEventSize, the limit the transport is configured with (an undici
      // dispatcher's, as undici's EventSource reads it), else the parser's default.
      maxEventSize: init.maxEventSize ?? transportMaxEventSize(init.transport),
      lastEventId: init.lastEventId
    })
    if (createChannel.hasSubscribers) createChannel.publish({ source: this, url: displayHref(urlRecord) })
    if (init.signal !== null) {
      if (init.signal.aborted) {
        this.#close('abort')
        return
      }
      this.#onAbort = () => this.#close('abort')
      init.signal.addEventListener('abort', this.#onAbort, { once: true })
    }
    // The fetch runs "in parallel": start it once the constructor has returned, so listeners added
    // right after construction see every event, and close() before then sends no request at all.
    // A promise job, not queueMicrotask(): test suites' fake timers replace queueMicrotask, and a
    // request that waits for the fake clock to tick is never sent.
    // The `eventsource` package's entry point (lib/compat/eventsource/eventsource.js) calls its fetch from the
    // constructor, as that package does: tests written for it count the calls right after `new`. Still
    // nothing is dispatched before the constructor has returned: what the attempt reports at once (a URL
    // scheme it cannot fetch) waits, as a task, for a microtask checkpoint.
    if (init.connectInConstructor) {
      this.#wait(CHECKPOINT)
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
    return this.#withCredentials
  }

  get readyState () {
    brandCheck(this)
    return this.#readyState
  }

  /** Aborts any connection or pending reconnection and sets readyState to CLOSED. */
  close () {
    brandCheck(this)
    this.#close('close')
  }

  // close(), or the abort signal (extension): `reason` is what diagnostics say.
  #close (reason) {
    if (this.#readyState === CLOSED) return
    this.#setReadyState(CLOSED)
    this.#stop(null)
    this.#publishClose(reason)
  }

  /**
   * Extension: `for await (const event of source)` yields every MessageEvent, whatever its type.
   * @returns {AsyncIterableIterator<MessageEvent>}
   */
  [Symbol.asyncIterator] () {
    brandCheck(this)
    messageIterator ??= require('./message-iterator')
    const iterator = new messageIterator.MessageIterator({
      pause: () => this.#connection?.pause(),
      resume: () => this.#resumeIfDrained(),
      close: () => this.close(),
      remove: (it) => { this.#iterators.delete(it); this.#resumeIfDrained() }
    }, this.#init.highWaterMark, this.#init.highWaterMarkBytes)
    if (this.#readyState === CLOSED) iterator.finish(null)
    else (this.#iterators ??= new Set()).add(iterator)
    return iterator
  }

  // Releases everything that could run later: the request, its socket, the reconnection timer, the
  // abort listener, the tasks not yet run. Iterations end (error === null) or throw the error.
  #stop (error) {
    this.#abortConnection()
    this.#tasks = null
    this.#taskHead = this.#taskTail = 0
    if (this.#onAbort !== null) {
      this.#init.signal.removeEventListener('abort', this.#onAbort)
      this.#onAbort = null
    }
    if (this.#iterators !== null) {
      for (const iterator of this.#iterators) iterator.finish(error)
      this.#iterators = null
    }
  }

  // Ends the current attempt at once (a failure is only announced by a task, later). Ending the parser
  // also drops the events still to come from the chunk being parsed.
  #abortConnection () {
    this.#parser.end()
    this.#attemptOver(null)
    if (this.#connection !== null) {
      const connection = this.#connection
      this.#connection = null
      connection.abort()
    }
    if (this.#timer !== null) {
      clearTimeout(this.#timer)
      this.#timer = null
    }
  }

  #connect () {
    if (this.#readyState === CLOSED) return
    let request
    try {
      request = buildRequest(this.#init, {
        attempt: ++this.#attempts,
        sourceUrl: this.#url,
        url: this.#requestUrl,
        method: this.#requestMethod,
        lastEventId: this.#parser.lastEventId
      })
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
    // (A declared constructor is named after its code: lib/errors.js.)
    if (err.code === ERR_EVENTSOURCE_REQUEST_INIT.name) this.#onNetworkError(err)
    else this.#onFail(err)
  }

  #send (request) {
    this.#parser.reset()
    const connection = this.#connection = createAttempt(request, this.#sink)
    if (this.#anyIteratorFull()) connection.pause()
    this.#attemptStart = performance.now()
    if (connectChannel.hasSubscribers || tracingAttempts()) {
      const message = {
        source: this,
        attempt: request.attempt,
        url: displayHref(new URL(request.url)),
        method: request.method,
        headers: request.headers,
        lastEventId: this.#parser.lastEventId
      }
      if (connectChannel.hasSubscribers) connectChannel.publish(message)
      if (tracingAttempts()) {
        this.#traceContext = { ...message }
        traceAttemptStart(this.#traceContext, () => connection.start())
        return
      }
    }
    connection.start()
  }

  // The current attempt is over, in `error` (null: the body ended, or the source let it go).
  #attemptOver (error) {
    if (this.#traceContext === null) return
    const context = this.#traceContext
    this.#traceContext = null
    traceAttemptEnd(context, error)
  }

  // What the transport reports (TransportSink). Each step of the standard that fires an event does so
  // from a task it queues; the attempt itself is ended at once.

  // The final response of an attempt. Processing model: "if res's status is not 200, or if res's
  // `Content-Type` is not `text/event-stream`, then fail the connection"; else announce it.
  #onOpen (response) {
    const { status, statusText, headers } = response
    const url = new URL(response.url)
    let error = null
    if (status !== 200) {
      error = new ERR_EVENTSOURCE_BAD_STATUS(status, statusText, { status, statusText, headers, url: displayHref(url) })
    } else if (mimeEssence(headers['content-type']) !== 'text/event-stream') {
      error = new ERR_EVENTSOURCE_BAD_CONTENT_TYPE(headers['content-type'], { status, statusText, headers, url: displayHref(url) })
    }
    if (error !== null) {
      this.#attemptOver(error)
      this.#abortConnection()
      // Extension: statuses the user chose are retried, after Retry-After when the server sent one.
      if (this.#init.reconnect.statuses?.has(status)) {
        reconnectPolicy ??= require('./reconnect-policy')
        error.retryAfter = reconnectPolicy.parseRetryAfter(headers['retry-after'], Date.now()) ?? undefined
        this.#queueTask(TASK_REESTABLISH, error)
      } else {
        this.#queueTask(TASK_FAIL, error)
      }
      return
    }
    this.#origin = url.origin
    if (openChannel.hasSubscribers) {
      openChannel.publish({
        source: this,
        attempt: this.#attempts,
        status,
        statusText,
        headers,
        url: displayHref(url),
        ms: performance.now() - this.#attemptStart
      })
    }
    // Where a reconnection goes after a redirect: the final URL, as Chromium does; the first URL for the
    // `eventsource` package's entry point (init.reconnectToFinalUrl false, lib/compat/eventsource/eventsource.js),
    // since that package always reconnects there and code written for it may rely on it.
    if (response.method !== null && this.#init.reconnectToFinalUrl) {
      this.#requestUrl = response.url
      this.#requestMethod = response.method
    }
    this.#queueTask(TASK_ANNOUNCE)
  }

  #onEnd () {
    this.#connection = null
    this.#attemptOver(null)
    if (this.#init.closeOnEnd) this.#queueTask(TASK_END)
    else this.#queueTask(TASK_REESTABLISH, new ERR_EVENTSOURCE_STREAM_ENDED())
  }

  #onNetworkError (error) {
    this.#connection = null
    this.#attemptOver(error)
    this.#queueTask(TASK_REESTABLISH, error)
  }

  #onFail (error) {
    this.#attemptOver(error)
    this.#abortConnection()
    this.#queueTask(TASK_FAIL, error)
  }

  // The standard dispatches every event from a task of its own, and a browser's event loop performs a
  // microtask checkpoint after each: promise continuations a listener starts run before the next
  // event, even when one network chunk held many. Tasks run in order, the first at once when no wait
  // is under way, each next one after a wait (#runTasks).
  #queueTask (kind, a, b, c) {
    if (this.#readyState === CLOSED) return
    const tasks = (this.#tasks ??= [])
    const tail = this.#taskTail
    tasks[tail] = kind
    tasks[tail + 1] = a
    tasks[tail + 2] = b
    tasks[tail + 3] = c
    this.#taskTail = tail + TASK_SLOTS
    if (!this.#waiting) this.#runTasks(CHECKPOINT)
  }

  // Runs the tasks that may run now; `passed` says what has run of the event loop since the last
  // event was dispatched. How long to wait before the next task:
  // - a full microtask checkpoint, however deep the continuations go, before open, error and end,
  //   before a message of a type nobody listens for right now, and after an event that a listener
  //   left (`once`). That is what code that waits with promises needs: an `await once(source, type)`
  //   loop has no listener until its continuation comes round again, through any number of awaits,
  //   races and helper functions. A message still without a listener after the checkpoint is dropped;
  // - otherwise, a message for listeners that stay: one promise job, so the continuations a listener
  //   started directly have run. A full checkpoint costs about 0.5 us per event on Node, which would
  //   halve the throughput of small events, and a listener that stays receives the next message
  //   whether or not its continuations have finished.
  #runTasks (passed) {
    this.#waiting = false
    if (passed === CHECKPOINT) this.#checkpointDue = false
    // A task may close the source, which drops the queue: #tasks is read again at each round.
    let tasks
    while ((tasks = this.#tasks) !== null) {
      const head = this.#taskHead
      const tail = this.#taskTail
      if (head === tail) return
      const kind = tasks[head]
      const a = tasks[head + 1]
      // How many listen for a message's type now; for await iterations count too.
      let listeners = kind === TASK_MESSAGE ? listenerCount(this, a) : 0
      const listened = listeners !== 0 || (kind === TASK_MESSAGE && this.#iterators !== null)
      if (passed === ONE_JOB && (!listened || this.#checkpointDue)) {
        this.#wait(CHECKPOINT)
        return
      }
      const b = tasks[head + 2]
      const c = tasks[head + 3]
      tasks[head + 1] = tasks[head + 2] = tasks[head + 3] = undefined
      // Reuse the array from the front once every task has run.
      if (head + TASK_SLOTS === tail) this.#taskHead = this.#taskTail = 0
      else this.#taskHead = head + TASK_SLOTS
      switch (kind) {
        case TASK_MESSAGE:
          // A message nobody listens for, even after a checkpoint, is not even created (lib/platform/listeners-node.js):
          // nothing ran, nothing to wait for.
          if (!listened) {
            listeners = listenerCount(this, a)
            if (listeners === 0 && this.#iterators === null) {
              // It is still dispatched, to nobody: diagnostics count it and report it.
              this.#countMessage(a, b, c)
              continue
            }
          }
          this.#dispatchMessage(a, b, c, listeners)
          break
        case TASK_ANNOUNCE: this.#announce(); break
        case TASK_REESTABLISH: this.#reestablish(a); break
        case TASK_FAIL: this.#failConnection(a); break
        default: this.#end()
      }
      // After open, error and end (once a connection, so the cost does not matter): a full checkpoint.
      if (kind !== TASK_MESSAGE) this.#checkpointDue = true
      // Whatever comes next, even in this same call stack, waits at least one job.
      this.#wait(ONE_JOB)
      return
    }
  }

  #wait (level) {
    this.#waiting = true
    if (level === ONE_JOB) resolvedPromise.then(this.#runTasksAfterOneJob ??= () => this.#runTasks(ONE_JOB))
    else afterMicrotaskCheckpoint(runTasksAfterCheckpoint, this)
  }

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
    this.#publishError(error, undefined)
    this.#publishClose('failure')
    // The error event: ours (lib/eventsource/error-event.js), or the one an entry point configured (init.errorEvent:
    // the `eventsource` package's ErrorEvent, lib/compat/eventsource/eventsource.js).
    this.dispatchEvent(this.#init.errorEvent(error, undefined))
  }

  // Extension (init.closeOnEnd): the end of the response is the end of the stream. readyState CLOSED,
  // iterations end normally, and an `end` event rather than an `error`, so that a program can tell a
  // complete answer from a failure.
  #end () {
    if (this.#readyState === CLOSED) return
    this.#setReadyState(CLOSED)
    this.#stop(null)
    this.#publishClose('end')
    this.dispatchEvent(new Event('end'))
  }

  // "Reestablish the connection". `error` says why.
  #reestablish (error) {
    // Step 1: if the readyState attribute is set to CLOSED, abort these steps.
    if (this.#readyState === CLOSED) return
    const policy = this.#init.reconnect
    // Extension: give up after maxRetries reconnections that delivered no event (none by default).
    if (++this.#failures > policy.maxRetries) {
      const attempts = this.#failures
      this.#failConnection(new ERR_EVENTSOURCE_RETRIES_EXHAUSTED(attempts, error.message,
        { status: error.status, statusText: error.statusText, headers: error.headers, url: error.url }, error))
      return
    }
    // The delay: the reconnection time, or what the backoff policy, Retry-After and the floor for
    // attempts that deliver nothing make of it (lib/eventsource/reconnect-policy.js).
    reconnectPolicy ??= require('./reconnect-policy')
    const delay = reconnectPolicy.reconnectDelay(this.#reconnectionTime, this.#failures, policy, error.retryAfter)
    // Step 2: set readyState to CONNECTING and fire an event named error.
    this.#setReadyState(CONNECTING)
    this.#publishError(error, delay)
    this.dispatchEvent(this.#init.errorEvent(error, delay))
    // A listener may have called close().
    if (this.#readyState !== CONNECTING) return
    // Steps 3-5: wait the reconnection time, then fetch again. By default the timer keeps the process
    // alive, as the open connection would: an EventSource that is not CLOSED has not ended. Extension
    // (init.keepAliveWhileReconnecting false, the `eventsource` package's choice): it does not.
    this.#timer = setTimeout(() => {
      this.#timer = null
      this.#connect()
    }, delay)
    // (A browser's timer is a number, and fake timers' may have no unref.)
    if (!this.#init.keepAliveWhileReconnecting) this.#timer.unref?.()
  }

  // HTML 9.2.6 "dispatch the event", step 7: the task that fires the MessageEvent.
  // Whether anyone listens is asked now, not when the event was parsed: a listener may have been added
  // by a continuation of the previous task.
  // `listeners`: how many listened for the type just before.
  #dispatchMessage (type, data, lastEventId, listeners) {
    // A queue that already spans many chunks gets strings of their own (see lib/eventsource/message-iterator.js).
    if (this.#iterators !== null && this.#anyIteratorKeepsChunks()) {
      type = unshared(type)
      data = unshared(data)
      lastEventId = unshared(lastEventId)
    }
    const event = new MessageEvent(type, { data, origin: this.#origin, lastEventId })
    this.#countMessage(type, data, lastEventId)
    this.dispatchEvent(event)
    // Written `!(now >= before)` rather than `now < before`: a count that is not known (NaN, where an
    // EventTarget cannot count its listeners: lib/platform/listeners-web.js) may have gone down.
    if (listeners !== 0 && !(listenerCount(this, type) >= listeners)) this.#checkpointDue = true
    if (this.#iterators === null || this.#readyState === CLOSED) return
    // (An iterator was made: lib/eventsource/message-iterator.js is loaded.)
    const cost = messageIterator.eventCost(event)
    for (const iterator of this.#iterators) iterator.push(event, cost, this.#chunks)
    if (this.#anyIteratorFull()) this.#connection?.pause()
  }

  // Every change of readyState but the first goes through here: the time spent OPEN is counted for
  // diagnostics.
  #setReadyState (state) {
    if (this.#readyState === OPEN) {
      this.#msOpen += performance.now() - this.#openSince
      this.#openSince = 0
    } else if (state === OPEN) {
      this.#openSince = performance.now()
    }
    this.#readyState = state
  }

  // A message dispatched (to listeners or to nobody), for diagnostics.
  #countMessage (type, data, lastEventId) {
    this.#events++
    if (messageChannel.hasSubscribers) messageChannel.publish({ source: this, type, lastEventId, dataLength: data.length })
  }

  #publishError (error, delay) {
    if (!errorChannel.hasSubscribers) return
    errorChannel.publish({
      source: this,
      error,
      code: error.code,
      status: error.status,
      // As the error event has it (lib/eventsource/error-event.js): the underlying error, else the error itself.
      cause: error.cause ?? error,
      willReconnect: delay !== undefined,
      delay
    })
  }

  // `reason`: 'close' (close()), 'abort' (the abort signal), 'failure' (the connection failed) or 'end'
  // (closeOnEnd).
  #publishClose (reason) {
    if (!closeChannel.hasSubscribers) return
    closeChannel.publish({
      source: this,
      reason,
      events: this.#events,
      bytes: this.#bytes,
      attempts: this.#attempts,
      msOpen: this.#msOpen
    })
  }

  #anyIteratorKeepsChunks () {
    for (const iterator of this.#iterators) if (iterator.keepsChunksBefore(this.#chunks)) return true
    return false
  }

  #anyIteratorFull () {
    if (this.#iterators === null) return false
    for (const iterator of this.#iterators) if (iterator.full) return true
    return false
  }

  #resumeIfDrained () {
    if (this.#connection !== null && !this.#anyIteratorFull()) this.#connection.resume()
  }
}

// The readyState constants, on the constructor and the prototype, read-only (WebIDL constants).
for (const [name, value] of [['CONNECTING', CONNECTING], ['OPEN', OPEN], ['CLOSED', CLOSED]]) {
  const descriptor = { value, enumerable: true, writable: false, configurable: false }
  Object.defineProperty(EventSource, name, descriptor)
  Object.defineProperty(EventSource.prototype, name, descriptor)
}

for (const slot of handlerSlots) defineEventHandler(EventSource.prototype, slot.type, brandCheck, slot)

Object.defineProperties(EventSource.prototype, {
  [Symbol.toStringTag]: { value: 'EventSource', configurable: true },
  url: { enumerable: true },
  withCredentials: { enumerable: true },
  readyState: { enumerable: true },
  close: { enumerable: true }
})

module.exports = { EventSource }
