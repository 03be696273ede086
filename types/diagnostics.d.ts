// The messages of whatwg-eventsource's diagnostics channels (lib/platform/channels-node.js;
// docs/diagnostics.md). node:diagnostics_channel types every message as `unknown`: a subscriber
// narrows it with these, e.g.
//
//   import { subscribe } from 'node:diagnostics_channel'
//   import type { DiagnosticsChannelMap } from 'whatwg-eventsource'
//   subscribe('whatwg-eventsource:open', (message) => {
//     const { url, status, ms } = message as DiagnosticsChannelMap['whatwg-eventsource:open']
//   })
//
// Every URL is shown without its user name and password. Messages are read-only: a subscriber that
// changes one changes nothing of the source, but may confuse the subscribers after it.

import type { EventSource, ErrorCode } from './index'

/** Request and response headers: lower-case names, repeated headers joined with ", ". */
export type DiagnosticsHeaders = Readonly<Record<string, string>>

/** `whatwg-eventsource:create`: a source was constructed (published by the constructor). */
export interface CreateDiagnostic {
  readonly source: EventSource
  /** The source's URL, without credentials. */
  readonly url: string
}

/** `whatwg-eventsource:connect`: an attempt starts, its request about to be sent. */
export interface ConnectDiagnostic {
  readonly source: EventSource
  /** 1 for the first request of the source, then one more for each. */
  readonly attempt: number
  /** Where the request goes: the source's URL, or after a redirect the last final URL. */
  readonly url: string
  readonly method: string
  /** The request's headers as the source sets them (the transport adds Cache-Control, Accept-Encoding, Host...). */
  readonly headers: DiagnosticsHeaders
  /** The last event ID string, sent as Last-Event-ID when not empty. */
  readonly lastEventId: string
}

/** `whatwg-eventsource:open`: a response was accepted (status 200, text/event-stream); `open` is about to fire. */
export interface OpenDiagnostic {
  readonly source: EventSource
  readonly attempt: number
  readonly status: number
  readonly statusText: string
  readonly headers: DiagnosticsHeaders
  /** The final URL, after redirects. */
  readonly url: string
  /** Milliseconds from the start of the attempt to the response head. */
  readonly ms: number
}

/** `whatwg-eventsource:message`: a MessageEvent is dispatched, to listeners or to nobody. */
export interface MessageDiagnostic {
  readonly source: EventSource
  readonly type: string
  readonly lastEventId: string
  /** The length of `data` in UTF-16 code units (`event.data.length`). */
  readonly dataLength: number
}

/** `whatwg-eventsource:error`: an `error` event is about to fire, with the same details. */
export interface ErrorDiagnostic {
  readonly source: EventSource
  readonly error: Error & {
    code?: ErrorCode | string
    status?: number
    statusText?: string
    headers?: DiagnosticsHeaders
    url?: string
    /** The text of the body of a response the source did not take (init.errorBody). */
    body?: string
    /** Whether that body was cut by a bound of init.errorBody, or by the connection's loss. */
    bodyTruncated?: boolean
  }
  readonly code: ErrorCode | string | undefined
  /** The response status, when a response arrived. */
  readonly status: number | undefined
  /** As the error event's `cause`: the underlying error, else the error itself. */
  readonly cause: Error
  /** True when the source reconnects (readyState CONNECTING); false when it closes. */
  readonly willReconnect: boolean
  /** In how many ms it reconnects, when it does. */
  readonly delay: number | undefined
}

/** Why a source closed: close() (the `for await` loop's break too), the abort signal, a failure, or (closeOnEnd) the end of the stream. */
export type CloseReason = 'close' | 'abort' | 'failure' | 'end'

/** `whatwg-eventsource:close`: the source is CLOSED, once, with its totals. */
export interface CloseDiagnostic {
  readonly source: EventSource
  readonly reason: CloseReason
  /** Messages dispatched, to listeners or to nobody. */
  readonly events: number
  /** Body bytes received over every attempt, after content decoding. */
  readonly bytes: number
  /** Requests started. */
  readonly attempts: number
  /** Milliseconds spent OPEN, over every connection. */
  readonly msOpen: number
}

/**
 * The context of the TracingChannel `whatwg-eventsource:attempt` (`tracing:whatwg-eventsource:attempt:start`,
 * `end`, `asyncStart`, `asyncEnd`, `error`): one object per attempt, the same on each of its events.
 * A subscriber may keep its own state on it (a span, say).
 */
export interface AttemptTraceContext extends ConnectDiagnostic {
  /** Set before `error` when the attempt ended in one (a clean end of the body is not one). */
  error?: Error & { code?: ErrorCode | string }
  [key: string | symbol]: unknown
}

/** Each channel's name and its message. */
export interface DiagnosticsChannelMap {
  'whatwg-eventsource:create': CreateDiagnostic
  'whatwg-eventsource:connect': ConnectDiagnostic
  'whatwg-eventsource:open': OpenDiagnostic
  'whatwg-eventsource:message': MessageDiagnostic
  'whatwg-eventsource:error': ErrorDiagnostic
  'whatwg-eventsource:close': CloseDiagnostic
}

/** The name of the attempt's TracingChannel, for `diagnostics_channel.tracingChannel()`. */
export type AttemptTracingChannelName = 'whatwg-eventsource:attempt'
