// Types of `whatwg-eventsource/eventsource`: the `eventsource` package's API, versions 3 to 5, so that code
// written against that package type-checks by changing the import. Where its versions typed something
// differently, these take the wider type, so that what compiled against any of them compiles here; the
// `on*` handlers type `this` as version 5 and lib.dom do. `EventSource` is a structural interface plus a
// constructor value (as in version 5): a native EventSource, the original, or a mock is assignable to it.

/**
 * The `error` event: an Event with two extra properties, `code` (the HTTP status, when a response caused
 * the error) and `message`.
 */
export declare class ErrorEvent extends Event {
  /** The HTTP status, when a response caused the error (`Non-200 status code (401)`: 401). */
  code?: number | undefined
  /** Why: `Non-200 status code (503)`, `TypeError: fetch failed: connect ECONNREFUSED ...`; none when the stream ended. */
  message?: string | undefined
  constructor (type: string, errorEventInitDict?: { message?: string | undefined, code?: number | undefined })
}

/** The second argument of each call of the `fetch` init member. */
export interface EventSourceFetchInit {
  /** Aborted when the EventSource is closed. Typed loosely, as AbortSignal polyfills differ. */
  signal: { aborted: boolean } | any
  /** `Accept`, and `Last-Event-ID` (its UTF-8 bytes, one character each) on a reconnection after an event with an ID. */
  headers: {
    [key: string]: string
    Accept: 'text/event-stream'
  }
  mode: 'cors' | 'no-cors' | 'same-origin'
  /** Only where `window` exists: `'include'` with `withCredentials`, else `'same-origin'`. */
  credentials?: 'include' | 'omit' | 'same-origin'
  cache: 'no-store'
  /** `'follow'`: the fetch follows redirects by its own rules. */
  redirect: 'error' | 'follow' | 'manual'
}

/** @deprecated version 3's name for EventSourceFetchInit. */
export type FetchLikeInit = EventSourceFetchInit

/** What the body of a FetchLikeResponse must give: a reader of Uint8Array, DataView or ArrayBuffer chunks. */
export interface ReaderLike {
  read (): Promise<{ done: false, value: unknown } | { done: true, value?: unknown }>
  cancel (): Promise<void>
}

/** The part of a fetch Response that is read. */
export interface FetchLikeResponse {
  readonly body: { getReader (): ReaderLike } | Response['body'] | null
  readonly url: string
  readonly status: number
  readonly redirected: boolean
  readonly headers: { get (name: string): string | null }
}

/** A fetch, called once per attempt with the EventSource's URL (as a URL) and an EventSourceFetchInit. */
export type FetchLike = (url: string | URL, init: EventSourceFetchInit) => Promise<FetchLikeResponse>

export interface EventSourceEventMap {
  error: ErrorEvent
  message: MessageEvent
  open: Event
}

export interface EventSourceInit {
  /** The credentials mode of the requests: `'include'` rather than `'same-origin'`. Default false. */
  withCredentials?: boolean
  /** The fetch to make each attempt with (headers, proxies, TLS, mocks). Default: globalThis.fetch, as it is at construction. */
  fetch?: FetchLike
  /** The limit on one event, in bytes: over it the connection fails, without reconnecting. Default 100 MiB. */
  maxBufferSize?: number
  /** Ours: whether the wait before a reconnection keeps the Node.js process alive. Default false, as that package unrefs its timer. */
  keepAliveWhileReconnecting?: boolean
}

// The same listener options as the main entry's (lib.dom's, declared there without the DOM lib).
export type { EventListenerOptions, AddEventListenerOptions } from './index'
import type { EventListenerOptions, AddEventListenerOptions } from './index'

export interface EventListener {
  (evt: Event | MessageEvent): void
}

export interface EventListenerObject {
  handleEvent (object: Event): void
}

export type EventListenerOrEventListenerObject = EventListener | EventListenerObject

export interface EventSource extends EventTarget {
  readonly CONNECTING: 0
  readonly OPEN: 1
  readonly CLOSED: 2
  /** 0 (CONNECTING), 1 (OPEN) or 2 (CLOSED); typed `number`, as lib.dom types it. */
  readonly readyState: number
  /** The URL given, after redirects too. */
  readonly url: string
  readonly withCredentials: boolean
  // A plain property, unlike the accessor pair of types/index.d.ts: ErrorEvent's own members are
  // optional, so an Event is an ErrorEvent, and this type and lib.dom's `(ev: Event) => any` are
  // assignable both ways under strictFunctionTypes (test/types/eventsource-dom-compat.ts).
  onerror: ((this: EventSource, ev: ErrorEvent) => unknown) | null
  onmessage: ((this: EventSource, ev: MessageEvent) => unknown) | null
  onopen: ((this: EventSource, ev: Event) => unknown) | null
  addEventListener<K extends keyof EventSourceEventMap>(type: K, listener: (this: EventSource, ev: EventSourceEventMap[K]) => unknown, options?: boolean | AddEventListenerOptions): void
  addEventListener (type: string, listener: (this: EventSource, event: MessageEvent) => unknown, options?: boolean | AddEventListenerOptions): void
  addEventListener (type: string, listener: EventListenerOrEventListenerObject, options?: boolean | AddEventListenerOptions): void
  removeEventListener<K extends keyof EventSourceEventMap>(type: K, listener: (this: EventSource, ev: EventSourceEventMap[K]) => unknown, options?: boolean | EventListenerOptions): void
  removeEventListener (type: string, listener: (this: EventSource, event: MessageEvent) => unknown, options?: boolean | EventListenerOptions): void
  removeEventListener (type: string, listener: EventListenerOrEventListenerObject, options?: boolean | EventListenerOptions): void
  close (): void
}

export interface EventSourceConstructor {
  readonly prototype: EventSource
  /** Starts connecting. `url`: a string (resolved against document.baseURI) or a URL; anything else throws a SyntaxError. */
  new (url: string | URL, eventSourceInitDict?: EventSourceInit): EventSource
  readonly CONNECTING: 0
  readonly OPEN: 1
  readonly CLOSED: 2
}

// eslint-disable-next-line @typescript-eslint/no-redeclare -- the value of the interface's name, as lib.dom declares it
export declare const EventSource: EventSourceConstructor
