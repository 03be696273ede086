// Type definitions for whatwg-eventsource.
// EventSource mirrors lib.dom's interface, so browser code type-checks unchanged; the Node
// extensions are typed on EventSourceInit and documented in docs/extensions.md.
//
// They compile with and without lib.dom (strict, skipLibCheck false; test/types/tsconfig*.json).
// Without it, the globals come from @types/node, which declares Event, EventTarget, MessageEvent,
// Headers, AbortSignal and TransformStream, but not EventInit, AddEventListenerOptions or the
// EventListener types (its own are module-scoped). Those are declared below with lib.dom's names and
// shapes (as the `eventsource` package does), exported rather than global so that they cannot clash
// with lib.dom's, and assignable to and from them where lib.dom is present.

/// <reference types="node" />

import type { Dispatcher } from 'undici'
import type { Transform } from 'node:stream'
import type { ConnectionOptions } from 'node:tls'

export interface EventSourceEventMap {
  error: EventSourceErrorEvent
  message: MessageEvent
  open: Event
  /** Extension, with `closeOnEnd` only: the server ended a 200 event stream, and the source is CLOSED. */
  end: Event
}

/** What `init.request` (and `init.headers` and `init.body` functions) are called with, once per attempt. */
export interface AttemptContext {
  /** 1 for the first request, then one more for each reconnection. */
  attempt: number
  /** The last event ID string, sent as Last-Event-ID when not empty. */
  lastEventId: string
  /** The URL requests go to now: the constructor's, or the URL the last open response came from (after a redirect, or a URL `init.request` returned). */
  url: string
  /** The method requests go with now: `init.method`, or the last open response's (a 303 turns it into GET). */
  method: string
  /** Why the previous attempt ended; null for the first. */
  previous: PreviousAttempt | null
}

/** Why an attempt ended, as the next attempt's `init.request` is told it. */
export interface PreviousAttempt {
  /** The error code: 'ERR_EVENTSOURCE_STREAM_ENDED' when the server ended the stream, 'ERR_EVENTSOURCE_NETWORK', 'ERR_EVENTSOURCE_BAD_STATUS'... */
  readonly code: ErrorCode | string | undefined
  /** The response's status: 200 for a stream that ended or dropped; undefined without a response. */
  readonly status: number | undefined
  /** The response's headers (a server may name the next URL or offset in them); undefined without a response. */
  readonly headers: Headers | undefined
  /** The text of the body of a response the source did not take (a status it retried), as `errorBody` let it be read. */
  readonly body: string | undefined
}

/** What `init.request` returns: what differs for this attempt. Each member is optional; undefined (or nothing returned) leaves the attempt as it would go. */
export interface RequestChanges {
  /** Where this attempt goes, resolved against the source's URL. Credentials (headers of `credentialHeaders`, Authorization, Cookie...) go only to the source URL's origin. */
  url?: string | URL
  /** The method of this attempt. */
  method?: string
  /** This attempt's headers, in place of `init.headers` (Accept and Last-Event-ID stay managed by EventSource). */
  headers?: HeadersInitLike
  /** This attempt's body, or null for none; not with GET or HEAD. Without it, `init.body` goes when the method is `init.method`. */
  body?: RequestBody | null
}

export type HeadersInitLike = Headers | Iterable<readonly [string, string]> | Record<string, string>
export type RequestBody = string | Uint8Array | ArrayBuffer | URLSearchParams

export interface ReconnectPolicy {
  /** The initial reconnection time in ms, replaced by the server's `retry:`. Default 3000. */
  delay?: number
  /** Each attempt in a row that delivers no event multiplies the delay by this. Default 1 (no backoff). */
  factor?: number
  /** Upper bound of the backoff delay in ms. Default Infinity. */
  maxDelay?: number
  /** 'full': wait a random time between 0 and the delay. Default 'none'. */
  jitter?: 'none' | 'full'
  /** Reconnections in a row without an event (an open alone does not count) before the connection fails. Default Infinity. */
  maxRetries?: number
  /** Statuses that reconnect instead of failing, e.g. [502, 503, 504, 429], waiting at least their Retry-After. */
  retryOnStatus?: number[]
  /**
   * Reconnection as code: called with the cause of every failure that may be retried; returns the delay
   * in ms before the next attempt, or 'stop' to fail the connection. Replaces factor, maxDelay, jitter,
   * maxRetries and retryOnStatus (not given with them, ERR_INVALID_ARG_VALUE). A throw, or a value that
   * is neither, fails the connection with ERR_EVENTSOURCE_RECONNECT_POLICY.
   */
  policy?: (cause: ReconnectCause) => number | 'stop'
  /**
   * The storm floor: after attempts in a row that delivered no event, the wait is at least 1, 2, 4 ... 512 ms,
   * then 1 s, whatever the delay. Default true; false lets a policy reconnect as fast as it says.
   */
  floor?: boolean
}

/** What a reconnection policy (`init.reconnect.policy`) is given. */
export interface ReconnectCause {
  /** The failure. */
  readonly error: Error
  /** Its code: 'ERR_EVENTSOURCE_STREAM_ENDED', 'ERR_EVENTSOURCE_NETWORK', 'ERR_EVENTSOURCE_BAD_STATUS'... */
  readonly code: ErrorCode | string | undefined
  /** The response's status, when there was one that failed. */
  readonly status: number | undefined
  /** The text of that response's body, as `errorBody` let it be read (the error's `body`). */
  readonly body: string | undefined
  /** The response's Retry-After in ms, when it had a valid one. */
  readonly retryAfter: number | undefined
  /** Events the attempt that failed delivered (0 when it did not open). */
  readonly events: number
  /** The reconnection time in ms: the server's last `retry:`, else the initial delay. */
  readonly retry: number
  /** Failures in a row without an event, this one included (1 for the first). */
  readonly failures: number
  /** Requests made so far, this one included. */
  readonly attempts: number
  /** ms since the first of the failures in a row (0 for the first). */
  readonly elapsed: number
  /** The standard fails the connection here (a status other than 200, a Content-Type other than text/event-stream): 'stop' fails it with this error; a delay retries anyway. */
  readonly failsConnection: boolean
}

/** init.errorBody as an object: how much of the body of a response the source does not take is read for its error. */
export interface ErrorBodyOptions {
  /**
   * Bytes of the body (after Content-Encoding is undone) kept at most; past them the body is cut (`bodyTruncated`)
   * and not read further. Default 65536 (64 KiB).
   */
  maxBytes?: number
  /** ms the error waits at most for the body to end; then it goes with what came (`bodyTruncated`). Default 1000. */
  timeout?: number
}

/**
 * What the errors of a connection hold (`for await` throws one when the connection fails; the `error` event's
 * properties are read from one): each is an Error (TypeError, RangeError) with a code, and, when a response
 * caused it, what is known of the response.
 */
export interface EventSourceError extends Error {
  readonly code: ErrorCode | string
  readonly status?: number
  readonly statusText?: string
  /** The response headers: lower-case names, repeated headers joined with ", ". */
  readonly headers?: Readonly<Record<string, string>>
  /** The URL of the response, without credentials. */
  readonly url?: string
  /** The text of the body of a response the source did not take, as `errorBody` let it be read. */
  readonly body?: string
  /** Whether `body` stops before the body's end: cut at `errorBody.maxBytes` or `.timeout`, or the connection lost. */
  readonly bodyTruncated?: boolean
}

/** init.http2 as an object: sources given the same object share sessions (read when the first of them connects). */
export interface Http2Options {
  /**
   * TLS options for the sessions' connections (undici's `connect`): `ca`, `cert`, `key`, `rejectUnauthorized`, `servername`...;
   * `timeout` in ms (default 10000); `socketPath`, a Unix socket to connect to instead of the URL's host and port.
   */
  connect?: ConnectionOptions & { timeout?: number, socketPath?: string }
  /** Speak HTTP/2 on http: URLs from the first byte (h2c with prior knowledge). Default false: http: is HTTP/1.1, as in browsers. */
  priorKnowledge?: boolean
  /** ms between PINGs on a session with open streams; 0 for none. Default 60000. */
  pingInterval?: number
  /** ms a PING may go unanswered before the session is taken for lost (ERR_EVENTSOURCE_HTTP2_PING_TIMEOUT) and every source on it reconnects. Default 20000. */
  pingTimeout?: number
}

/**
 * What `init.fetch` is called with, once per request (each redirect followed, each answer to a 401):
 * the URL without its credentials, and this init.
 */
export interface EventSourceFetchInit {
  method: string
  /** Lower-case names: Accept, Last-Event-ID, the user's headers (after the redirect rules), Origin. */
  headers: Record<string, string>
  /** A string, or the bytes of a Buffer, Uint8Array or ArrayBuffer body, as an ArrayBuffer of their own. */
  body: string | ArrayBuffer | null
  /** Aborted when the attempt ends early: close(), the init signal, connectTimeout, idleTimeout. */
  signal: AbortSignal
  /** 'manual': EventSource follows redirects itself; 'follow' where the fetch hides them (browsers). */
  redirect: 'manual' | 'follow'
  mode: 'cors'
  cache: 'no-store'
  /** 'include' with withCredentials. */
  credentials: 'same-origin' | 'include'
}

/** What `init.fetch` resolves with: a fetch Response, or anything of its shape that EventSource reads. */
export interface EventSourceFetchResponse {
  readonly status: number
  readonly statusText?: string
  readonly headers: Iterable<[string, string]>
  /** Read through getReader(); null for a response without a body. */
  readonly body: { getReader(): { read(): Promise<{ done: boolean, value?: Uint8Array }>, cancel(reason?: unknown): Promise<void> } } | null
  readonly type?: string
  readonly url?: string
  readonly redirected?: boolean
}

export interface EventSourceInit {
  /** Standard member. Coerced to a boolean; Node has no cookie jar, so it changes no request. */
  withCredentials?: boolean
  /** The undici Dispatcher for every request (proxies, TLS options, unix sockets). Default: undici's global dispatcher. Redirects stay EventSource's: one that follows them itself fails the connection (ERR_EVENTSOURCE_DISPATCHER_REDIRECT). */
  dispatcher?: Dispatcher
  /**
   * Make every request with this fetch (the fetch transport), e.g. `globalThis.fetch` or a wrapper of
   * it, instead of an undici Dispatcher. Not with `dispatcher` (ERR_INVALID_ARG_VALUE): give a
   * dispatcher to the fetch instead. Default: the Dispatcher transport on Node; `globalThis.fetch`
   * where there is no usable undici dispatcher (Bun, browsers, workers). It is called once per attempt
   * with `redirect: 'follow'` and follows redirects by its own rules (what a wrapper adds goes only
   * where the fetch sends it; its own redirect mode wins); a request with Cookie, Proxy-Authorization
   * or a `credentialHeaders` header gets `redirect: 'manual'` and is redirected within its origin only.
   */
  fetch?: (input: string, init: EventSourceFetchInit) => Promise<EventSourceFetchResponse>
  /** The initial reconnection time in ms (same as reconnect.delay). Default 3000. */
  reconnectionTime?: number
  /** What one event may hold in memory (its data, event type and ID buffer, at their cost in memory, and the line being read) before the connection fails with ERR_EVENTSOURCE_EVENT_TOO_LARGE. Default: the dispatcher's `eventSource.maxEventSize` (undici's `new Agent({ eventSource: { maxEventSize } })`), else 64 MiB; Infinity disables. */
  maxEventSize?: number
  /** Request headers, or a function (sync or async) called before every attempt (shorthand for `request` returning `{ headers }`). Last-Event-ID stays managed by EventSource. */
  headers?: HeadersInitLike | ((context: AttemptContext) => HeadersInitLike | Promise<HeadersInitLike>)
  /**
   * The request method. Default 'GET'. A method RFC 9110 does not call idempotent (POST, PATCH, any but GET,
   * HEAD, OPTIONS, PUT, DELETE) is never sent again without `idempotent: true` or a `request` function: a
   * failure that would reconnect fails the connection instead.
   */
  method?: string
  /**
   * The request body (not with GET or HEAD), or a function returning one per attempt (shorthand for
   * `request` returning `{ body }`). Sent with each attempt that goes: see `idempotent`.
   */
  body?: RequestBody | ((context: AttemptContext) => RequestBody | Promise<RequestBody>)
  /**
   * The request of each attempt as code: called (sync or async) before every attempt, it returns what
   * differs: URL, method, headers, body. A POST resumed by a GET, a position in the URL's query, a URL
   * the server named. What it throws reconnects (ERR_EVENTSOURCE_REQUEST_INIT); a result that cannot be
   * sent fails the connection. Not with a headers or body function (ERR_INVALID_ARG_VALUE).
   */
  request?: (context: AttemptContext) => RequestChanges | undefined | void | Promise<RequestChanges | undefined | void>
  /**
   * Whether the request may be sent again after a failure (undici's dispatch option of the same name).
   * Default: true when the method of the next attempt is idempotent (GET, HEAD, OPTIONS, PUT, DELETE) or
   * with a `request` function (it decides what each attempt sends), false otherwise (POST, PATCH...). A
   * source whose request may not be repeated fails where it would reconnect: readyState CLOSED, one
   * `error` with the failure's own code (ERR_EVENTSOURCE_NETWORK...), `willReconnect` false. `true`: a
   * POST reconnects as a GET does (a subscription that is safe to repeat); `false`: even a GET is one-shot.
   */
  idempotent?: boolean
  /** The last event ID to start from: sent as Last-Event-ID on the very first request. */
  lastEventId?: string
  /** Backoff, jitter, giving up, and retrying chosen statuses, or a policy function. The defaults are the standard's behaviour. */
  reconnect?: ReconnectPolicy
  /** Treat an open connection that receives no byte for this many ms as dropped, and reconnect. Default: none. */
  idleTimeout?: number
  /** Treat a request without a response head after this many ms as a network error, and reconnect. Default 30000; 0 for none. */
  connectTimeout?: number
  /** Closes the EventSource when aborted. */
  signal?: AbortSignal
  /** More request headers that carry credentials: like Authorization, Cookie and Proxy-Authorization, they are not sent to another origin after a redirect. Any case; trimmed; HTTP tokens (else ERR_INVALID_HTTP_TOKEN). */
  credentialHeaders?: string[]
  /** Follow a redirect from https: to http:. Default false: such a redirect fails the connection (ERR_EVENTSOURCE_INSECURE_REDIRECT). */
  allowInsecureRedirect?: boolean
  /** Whether the wait before a reconnection keeps the Node.js process alive, as an open connection does. Default true (false in `whatwg-eventsource/eventsource`, as the `eventsource` package). */
  keepAliveWhileReconnecting?: boolean
  /** Events queued for `for await` before reading from the socket (and decoding) pauses. Default 1000. */
  highWaterMark?: number
  /**
   * The end of a 200 event stream is the end of the answer (an LLM-style POST): the source closes
   * without reconnecting and fires `end`, not `error`; `for await` ends normally. Default false.
   */
  closeOnEnd?: boolean
  /**
   * What becomes of an event the stream ended without its closing blank line: 'discard' (the default), as the
   * standard says, or 'dispatch', as for an LLM answer whose server stops after its last token. 'dispatch' only
   * with `closeOnEnd`, or on `EventSource.fromReadableStream()`: a source that reconnects may be sent that event
   * again whole. Only a clean end dispatches it: a cut connection or an errored stream does not.
   */
  incompleteEvent?: 'discard' | 'dispatch'
  /**
   * Called once for each network chunk that completed any message, with those messages in order, after their
   * `message` events: one update of a UI store per chunk rather than per message. Listeners still see every
   * event as the standard dispatches it. The array is a new one each time, yours to keep. `this` is the source.
   */
  onBatch? (this: EventSource, messages: BatchedMessage[]): void
  /** Bytes of events queued for `for await` (data, type and last event ID at two bytes per UTF-16 unit, plus 512 per event) before reading from the socket (and decoding) pauses. Default 16 MiB. */
  highWaterMarkBytes?: number
  /**
   * Share HTTP/2 sessions per origin with the other sources given the same value (true: every source
   * given true), as browsers do; HTTP/1.1 when the server does not choose h2. A `dispatcher` wins over it.
   * Default false.
   */
  http2?: boolean | Http2Options
  /**
   * How much of the body of a response the source does not take (a status other than 200, a Content-Type other
   * than text/event-stream) is read, as text, for its error's `body`; the error waits for it within these
   * bounds. false: none, and the error comes as the head does. Default `{ maxBytes: 65536, timeout: 1000 }`.
   */
  errorBody?: boolean | ErrorBodyOptions
  /** undici's (Node's built-in EventSource) shape, accepted as is. */
  node?: {
    dispatcher?: Dispatcher
    reconnectionTime?: number
  }
}

/** lib.dom's EventListenerOptions. */
export interface EventListenerOptions {
  capture?: boolean
}

/** lib.dom's AddEventListenerOptions. */
export interface AddEventListenerOptions extends EventListenerOptions {
  once?: boolean
  passive?: boolean
  signal?: AbortSignal
}

/** lib.dom's EventListener. */
export interface EventListener {
  (evt: Event): void
}

/** lib.dom's EventListenerObject. */
export interface EventListenerObject {
  handleEvent (object: Event): void
}

/** lib.dom's EventListenerOrEventListenerObject. */
export type EventListenerOrEventListenerObject = EventListener | EventListenerObject

/** The second argument of `new EventSourceErrorEvent()`: lib.dom's EventInit members and the event's own. */
export interface EventSourceErrorEventInit extends Partial<Omit<EventSourceErrorEvent, keyof Event>> {
  bubbles?: boolean
  cancelable?: boolean
  composed?: boolean
}

/** The `error` event: a plain Event for browser code, with the reasons for Node code. */
export declare class EventSourceErrorEvent extends Event {
  constructor (type: string, init?: EventSourceErrorEventInit)
  readonly message: string | undefined
  readonly code: ErrorCode | string | undefined
  /** The underlying error: ECONNREFUSED, a TLS error, the parser's too-large error, a timeout... */
  readonly cause: Error | undefined
  readonly status: number | undefined
  readonly statusText: string | undefined
  readonly headers: Headers | undefined
  /**
   * The text of the body of a response the source did not take (a status other than 200, a Content-Type other
   * than text/event-stream), decoded as its charset says, as far as `errorBody` let it be read: '' for an empty
   * body; undefined without such a response, or with `errorBody: false`.
   */
  readonly body: string | undefined
  /** With `body`: whether it stops before the body's end (cut at `errorBody.maxBytes` or `.timeout`, or the connection lost). */
  readonly bodyTruncated: boolean | undefined
  /** True when readyState is CONNECTING and a reconnection is scheduled. */
  readonly willReconnect: boolean
  /** In how many ms, when willReconnect. */
  readonly reconnectDelay: number | undefined
}

/**
 * The standard interface, member for member as lib.dom declares it, so that each is assignable to the
 * other and browser code type-checks unchanged; `onerror` is given an EventSourceErrorEvent, as an
 * `error` listener is.
 */
export interface StandardEventSource extends EventTarget {
  readonly url: string
  readonly withCredentials: boolean
  /** 0 (CONNECTING), 1 (OPEN) or 2 (CLOSED). Typed `number`, as lib.dom types it. */
  readonly readyState: number
  readonly CONNECTING: 0
  readonly OPEN: 1
  readonly CLOSED: 2
  onopen: ((this: StandardEventSource, ev: Event) => any) | null
  onmessage: ((this: StandardEventSource, ev: MessageEvent) => any) | null
  /*
   * A get/set pair, so that the two directions differ. Set: a handler of the EventSourceErrorEvent it
   * is called with, so that `source.onerror = (ev) => ev.code` compiles under strict. Read: lib.dom's
   * type, so that our EventSource stays a lib.dom EventSource (test/types/dom-compat.ts). TypeScript
   * compares a property by its read type, and under strictFunctionTypes compares the parameters of a
   * function type contravariantly: a plain property taking an EventSourceErrorEvent is not assignable
   * to lib.dom's `(ev: Event) => any` (an Event has no `code`). Method-style bivariance does not help
   * here: it applies when the target is a method, and lib.dom's `onerror` is a property of a function
   * type. The getter's type is assignable to the setter's, as TypeScript before 5.1 requires. The
   * cost: a handler read back is typed as taking any Event, so one called by hand with a plain Event
   * compiles, the hole lib.dom's `addEventListener` overloads (methods, bivariant) already have.
   */
  get onerror (): ((this: StandardEventSource, ev: Event) => any) | null
  set onerror (handler: ((this: StandardEventSource, ev: EventSourceErrorEvent) => any) | null)
  close (): void
  addEventListener<K extends keyof EventSourceEventMap>(type: K, listener: (this: StandardEventSource, ev: EventSourceEventMap[K]) => any, options?: boolean | AddEventListenerOptions): void
  addEventListener (type: string, listener: (this: StandardEventSource, event: MessageEvent) => any, options?: boolean | AddEventListenerOptions): void
  addEventListener (type: string, listener: EventListenerOrEventListenerObject, options?: boolean | AddEventListenerOptions): void
  removeEventListener<K extends keyof EventSourceEventMap>(type: K, listener: (this: StandardEventSource, ev: EventSourceEventMap[K]) => any, options?: boolean | EventListenerOptions): void
  removeEventListener (type: string, listener: (this: StandardEventSource, event: MessageEvent) => any, options?: boolean | EventListenerOptions): void
  removeEventListener (type: string, listener: EventListenerOrEventListenerObject, options?: boolean | EventListenerOptions): void
}

export interface EventSource extends StandardEventSource {
  /** Extension: every MessageEvent, whatever its type; breaking out of the loop closes the source. */
  [Symbol.asyncIterator] (): AsyncIterableIterator<MessageEvent>
  /** whatwg/html PR #12272 (a proposal): the last event ID string, what a reconnection's Last-Event-ID says. */
  readonly lastEventId: string
  /** PR #12272: the reconnection time in ms: the default (3000, or `init.reconnectionTime`), or the last `retry:`. */
  readonly reconnectionTime: number
  /**
   * PR #12272: discards what the parser holds of an event not yet dispatched (its data, event type, a partial
   * line), so that the bytes that follow read as a fresh stream (a leading BOM dropped again). The last event ID
   * and the reconnection time are kept.
   */
  reset (): void
}

/** A message as `init.onBatch` is given it: a MessageEvent's own members, in a plain object. */
export interface BatchedMessage extends ParsedEvent {
  origin: string
}

/**
 * What `EventSource.fromReadableStream()` takes beside the stream (an extension): the members of EventSourceInit
 * that do not say how to request a stream (those throw ERR_INVALID_ARG_VALUE there: the application made the request).
 */
export type FromReadableStreamInit = Pick<EventSourceInit, 'closeOnEnd' | 'incompleteEvent' | 'onBatch' |
'maxEventSize' | 'lastEventId' | 'reconnectionTime' | 'signal' | 'highWaterMark' | 'highWaterMarkBytes'>

// eslint-disable-next-line @typescript-eslint/no-redeclare -- the value of the interface's name, as lib.dom declares it
export declare const EventSource: {
  prototype: EventSource
  new (url: string | URL, eventSourceInitDict?: EventSourceInit): EventSource
  /**
   * whatwg/html PR #12272 (a proposal): a source that reads `stream` (a fetch's body, an SDK's response) with the
   * standard's parsing and dispatch: url "about:event-stream", origin "null", no request and no reconnection; the
   * end of the stream or its error fails it (readyState CLOSED, one `error`), close() cancels the stream. Throws a
   * TypeError when `stream` is not a ReadableStream (ERR_INVALID_ARG_TYPE) or is locked.
   */
  fromReadableStream (stream: ReadableStream<Uint8Array>, init?: FromReadableStreamInit): EventSource
  readonly CONNECTING: 0
  readonly OPEN: 1
  readonly CLOSED: 2
}

/** An event as the parser and its stream forms report it. */
export interface ParsedEvent {
  type: string
  data: string
  lastEventId: string
}

export interface EventSourceParserOptions {
  /** Called for each dispatched event, in stream order. `type` is "message" when the stream named none. */
  onEvent (type: string, data: string, lastEventId: string): void
  /** Called as soon as a `retry:` line with only ASCII digits is parsed. May be very large, or Infinity. */
  onRetry? (ms: number): void
  /** Called with the text after `:` of a comment line, one leading space removed. */
  onComment? (text: string): void
  /** Limit on what one event holds in memory: its data so far (value bytes + 1 per data line), its event type and ID buffer (their value bytes; a value that is not ASCII counts two bytes per UTF-16 unit when V8 stores it so), plus the raw bytes of the line being read. Default 64 MiB; Infinity disables. */
  maxEventSize?: number
  /** The last event ID string to start from. Default "". */
  lastEventId?: string
  /** What end() does with an event the stream ended without its blank line: 'discard' (default) or 'dispatch'. */
  incompleteEvent?: 'discard' | 'dispatch'
}

export declare class EventSourceParser {
  constructor (options: EventSourceParserOptions)
  /** The last event ID string as of the last dispatch; survives reset(). */
  readonly lastEventId: string
  /** Parses the next bytes. Throws ERR_INVALID_ARG_TYPE, ERR_EVENTSOURCE_WRITE_AFTER_END or ERR_EVENTSOURCE_EVENT_TOO_LARGE. */
  write (chunk: Uint8Array): void
  /** Ends the stream: an unfinished event is discarded (or dispatched: options.incompleteEvent). */
  end (): void
  /** Starts a new stream (as on reconnection); the last event ID is kept. */
  reset (): void
}

export interface EventSourceStreamOptions<Batch extends boolean = boolean> {
  maxEventSize?: number
  lastEventId?: string
  /** Events (or batches) buffered on the readable side. */
  highWaterMark?: number
  /** At the end of the input: 'discard' (default) or 'dispatch' an event without its blank line. */
  incompleteEvent?: 'discard' | 'dispatch'
  /** One array of events for each chunk written that completed any, instead of one object per event. */
  batch?: Batch
}

export declare class EventSourceStream<Batch extends boolean = false> extends Transform {
  constructor (options?: EventSourceStreamOptions<Batch>)
  /** The latest valid `retry:` value, or null. Each change is also emitted as 'retry'. */
  reconnectionTime: number | null
  readonly lastEventId: string
  on (event: 'retry', listener: (ms: number) => void): this
  on (event: 'data', listener: (event: Batch extends true ? ParsedEvent[] : ParsedEvent) => void): this
  on (event: string | symbol, listener: (...args: any[]) => void): this
}

export interface EventSourceParserStreamOptions<Batch extends boolean = boolean> {
  maxEventSize?: number
  lastEventId?: string
  onRetry? (ms: number): void
  /** At the end of the input: 'discard' (default) or 'dispatch' an event without its blank line. */
  incompleteEvent?: 'discard' | 'dispatch'
  /** One array of events for each chunk written that completed any, instead of one object per event. */
  batch?: Batch
}

/** Bytes in, or strings (encoded as UTF-8; a surrogate pair cut by a chunk boundary is kept whole). */
export declare class EventSourceParserStream<Batch extends boolean = false>
  extends TransformStream<Uint8Array | string, Batch extends true ? ParsedEvent[] : ParsedEvent> {
  constructor (options?: EventSourceParserStreamOptions<Batch>)
}

/** Error codes of this package, on `error.code`. */
export type ErrorCode =
  | 'ERR_INVALID_ARG_TYPE'
  | 'ERR_INVALID_ARG_VALUE'
  | 'ERR_OUT_OF_RANGE'
  | 'ERR_EVENTSOURCE_EVENT_TOO_LARGE'
  | 'ERR_EVENTSOURCE_WRITE_AFTER_END'
  | 'ERR_EVENTSOURCE_HTTP2_PING_TIMEOUT'
  | 'ERR_EVENTSOURCE_PARSER_TERMINATED'
  | 'ERR_EVENTSOURCE_UNSUPPORTED_SCHEME'
  | 'ERR_EVENTSOURCE_BAD_STATUS'
  | 'ERR_EVENTSOURCE_BAD_CONTENT_TYPE'
  | 'ERR_EVENTSOURCE_INVALID_REDIRECT'
  | 'ERR_EVENTSOURCE_TOO_MANY_REDIRECTS'
  | 'ERR_EVENTSOURCE_INSECURE_REDIRECT'
  | 'ERR_EVENTSOURCE_DISPATCHER_REDIRECT'
  | 'ERR_EVENTSOURCE_INVALID_BODY'
  | 'ERR_EVENTSOURCE_NETWORK'
  | 'ERR_EVENTSOURCE_DECODING'
  | 'ERR_EVENTSOURCE_TOO_MANY_CODINGS'
  | 'ERR_EVENTSOURCE_STREAM_ENDED'
  | 'ERR_EVENTSOURCE_CONNECT_TIMEOUT'
  | 'ERR_EVENTSOURCE_IDLE_TIMEOUT'
  | 'ERR_EVENTSOURCE_RETRIES_EXHAUSTED'
  | 'ERR_EVENTSOURCE_REQUEST_INIT'
  | 'ERR_EVENTSOURCE_RECONNECT_POLICY'
  | 'ERR_EVENTSOURCE_EXTENSION_NOT_LOADED'
  | 'ERR_EVENTSOURCE_REDIS_UNAVAILABLE'
  | 'ERR_EVENTSOURCE_PUBLISH_UNCONFIRMED'
  | 'ERR_INVALID_HTTP_TOKEN'
  | 'ERR_INVALID_CHAR'
  | 'ERR_EVENTSOURCE_WRITER_CLOSED'
  | 'ERR_EVENTSOURCE_CLIENT_TOO_SLOW'
  | 'ERR_EVENTSOURCE_CHANNEL_CLOSED'

/** The messages of the diagnostics channels (types/diagnostics.d.ts). */
export * from './diagnostics'
