// Type definitions for whatwg-eventsource.
// EventSource mirrors lib.dom's interface, so browser code type-checks unchanged; the Node
// extensions are typed on EventSourceInit and documented in the README.

/// <reference types="node" />

import type { Dispatcher } from 'undici'
import type { Transform } from 'node:stream'

export interface EventSourceEventMap {
  error: Event
  message: MessageEvent
  open: Event
}

export interface EventSourceInit {
  /** Standard member. Coerced to a boolean; Node has no cookie jar, so it changes no request. */
  withCredentials?: boolean
  /** The undici Dispatcher for every request (proxies, TLS options, unix sockets). Default: undici's global dispatcher. */
  dispatcher?: Dispatcher
  /** The reconnection time in ms until the server sends `retry:`. Default 3000. */
  reconnectionTime?: number
  /** Bytes buffered for one event before the connection fails with ERR_EVENTSOURCE_EVENT_TOO_LARGE. Default 64 MiB; Infinity disables. */
  maxEventSize?: number
  /** undici's (Node's built-in EventSource) shape, accepted as is. */
  node?: {
    dispatcher?: Dispatcher
    reconnectionTime?: number
  }
}

export interface EventSource extends EventTarget {
  readonly url: string
  readonly withCredentials: boolean
  /** 0 (CONNECTING), 1 (OPEN) or 2 (CLOSED). Typed `number`, as lib.dom types it, so the two stay interchangeable. */
  readonly readyState: number
  readonly CONNECTING: 0
  readonly OPEN: 1
  readonly CLOSED: 2
  onopen: ((this: EventSource, ev: Event) => any) | null
  onmessage: ((this: EventSource, ev: MessageEvent) => any) | null
  onerror: ((this: EventSource, ev: Event) => any) | null
  close (): void
  addEventListener<K extends keyof EventSourceEventMap>(type: K, listener: (this: EventSource, ev: EventSourceEventMap[K]) => any, options?: boolean | AddEventListenerOptions): void
  addEventListener (type: string, listener: (this: EventSource, event: MessageEvent) => any, options?: boolean | AddEventListenerOptions): void
  addEventListener (type: string, listener: EventListenerOrEventListenerObject, options?: boolean | AddEventListenerOptions): void
  removeEventListener<K extends keyof EventSourceEventMap>(type: K, listener: (this: EventSource, ev: EventSourceEventMap[K]) => any, options?: boolean | EventListenerOptions): void
  removeEventListener (type: string, listener: (this: EventSource, event: MessageEvent) => any, options?: boolean | EventListenerOptions): void
  removeEventListener (type: string, listener: EventListenerOrEventListenerObject, options?: boolean | EventListenerOptions): void
}

export declare const EventSource: {
  prototype: EventSource
  new (url: string | URL, eventSourceInitDict?: EventSourceInit): EventSource
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
  /** Bytes buffered for one event, pending line included. Default 64 MiB; Infinity disables. */
  maxEventSize?: number
  /** The last event ID string to start from. Default "". */
  lastEventId?: string
}

export declare class EventSourceParser {
  constructor (options: EventSourceParserOptions)
  /** The last event ID string as of the last dispatch; survives reset(). */
  readonly lastEventId: string
  /** Parses the next bytes. Throws ERR_INVALID_ARG_TYPE, ERR_EVENTSOURCE_WRITE_AFTER_END or ERR_EVENTSOURCE_EVENT_TOO_LARGE. */
  write (chunk: Uint8Array): void
  /** Ends the stream: an unfinished event is discarded. */
  end (): void
  /** Starts a new stream (as on reconnection); the last event ID is kept. */
  reset (): void
}

export interface EventSourceStreamOptions {
  maxEventSize?: number
  lastEventId?: string
  /** Events buffered on the readable side. */
  highWaterMark?: number
}

export declare class EventSourceStream extends Transform {
  constructor (options?: EventSourceStreamOptions)
  /** The latest valid `retry:` value, or null. Each change is also emitted as 'retry'. */
  reconnectionTime: number | null
  readonly lastEventId: string
  on (event: 'retry', listener: (ms: number) => void): this
  on (event: 'data', listener: (event: ParsedEvent) => void): this
  on (event: string | symbol, listener: (...args: any[]) => void): this
}

export interface EventSourceParserStreamOptions {
  maxEventSize?: number
  lastEventId?: string
  onRetry? (ms: number): void
}

export declare class EventSourceParserStream extends TransformStream<Uint8Array, ParsedEvent> {
  constructor (options?: EventSourceParserStreamOptions)
}

/** Error codes of this package, on `error.code`. */
export type ErrorCode =
  | 'ERR_INVALID_ARG_TYPE'
  | 'ERR_INVALID_ARG_VALUE'
  | 'ERR_OUT_OF_RANGE'
  | 'ERR_MISSING_ARGS'
  | 'ERR_EVENTSOURCE_EVENT_TOO_LARGE'
  | 'ERR_EVENTSOURCE_WRITE_AFTER_END'
  | 'ERR_EVENTSOURCE_UNSUPPORTED_SCHEME'
  | 'ERR_EVENTSOURCE_BAD_STATUS'
  | 'ERR_EVENTSOURCE_BAD_CONTENT_TYPE'
  | 'ERR_EVENTSOURCE_INVALID_REDIRECT'
  | 'ERR_EVENTSOURCE_TOO_MANY_REDIRECTS'
  | 'ERR_EVENTSOURCE_NETWORK'
  | 'ERR_EVENTSOURCE_DECODING'
