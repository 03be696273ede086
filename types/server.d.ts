// whatwg-eventsource/server: serving event streams (docs/server.md).

// The Node targets are described by what the writer uses of them, so that these types need no @types/node (a
// worker's project has none): node:http's ServerResponse and node:http2's Http2ServerResponse are
// NodeResponseLike, node:http2's ServerHttp2Stream is Http2StreamLike.

/**
 * One event of an event stream. At least one member must be set. `data` and `comment` may hold any line ends
 * (each line is written as a line of its own; a client gets LF for each); `event` and `id` may not hold CR or LF,
 * and `id` not NUL: those throw ERR_INVALID_ARG_VALUE rather than write another field.
 */
export interface ServerSentEvent {
  /** The event's data: what a client's MessageEvent has as `data`. */
  data?: string | undefined
  /** The event's type (a client dispatches `message` without it). */
  event?: string | undefined
  /** The event's id, sent back by a client that reconnects as Last-Event-ID; '' resets the client's. */
  id?: string | undefined
  /** The client's reconnection time, in ms: a non-negative integer. */
  retry?: number | undefined
  /** A comment, which clients ignore. */
  comment?: string | undefined
}

/** The bytes of one event (a Buffer on Node). */
export declare function encodeEvent (event: ServerSentEvent): Uint8Array
/** The bytes of several events, in one buffer; nothing is encoded unless every event is valid. */
export declare function encodeEvents (events: Iterable<ServerSentEvent>): Uint8Array
/** The text of one event. */
export declare function formatEvent (event: ServerSentEvent): string

/** A node:http ServerResponse or a node:http2 Http2ServerResponse (Express's and Fastify's `raw` too). */
export interface NodeResponseLike {
  writeHead (statusCode: number, headers?: any): unknown
  flushHeaders (): void
  write (chunk: Uint8Array): boolean
  end (): unknown
  once (event: 'close' | 'drain', listener: () => void): unknown
  off (event: 'drain', listener: () => void): unknown
  req?: { headers: Record<string, string | string[] | undefined> } | undefined
}

/** A node:http2 ServerHttp2Stream (server.on('stream')). */
export interface Http2StreamLike {
  respond (headers?: any): void
  pushStream (...args: any[]): void
  write (chunk: Uint8Array): boolean
  end (): unknown
  once (event: 'close' | 'drain', listener: () => void): unknown
  off (event: 'drain', listener: () => void): unknown
}

/** What an EventStreamWriter writes to: a Node response or stream, or a WHATWG Request's Response (or none). */
export type EventStreamTarget = NodeResponseLike | Http2StreamLike | Request | undefined | null

export interface EventStreamWriterOptions {
  /** A comment every this many ms, from one timer shared by every writer with the same interval; 0: none. Default 15000. */
  heartbeat?: number | undefined
  /** Bytes the client may leave unread before it is disconnected (ERR_EVENTSOURCE_CLIENT_TOO_SLOW). Default 4 MiB. */
  maxBufferedBytes?: number | undefined
  /** Sent first: the client's reconnection time, in ms. */
  retry?: number | undefined
  /** gzip when the request accepts it, flushed after each write (node:http and node:http2 responses only). Default false. */
  compress?: boolean | undefined
  /** More response headers. Connection, Transfer-Encoding, Keep-Alive, Upgrade and Content-Length are refused, and so is a value with CR, LF or NUL. */
  headers?: Record<string, string> | Iterable<[string, string]> | undefined
  /** The request's Last-Event-ID, where the target does not have it (an http2 stream of the core API). */
  lastEventId?: string | undefined
}

/** An event stream to one client. */
export declare class EventStreamWriter {
  constructor (target?: EventStreamTarget, options?: EventStreamWriterOptions)
  /** The Last-Event-ID the client sent: '' for none; null when it was too long to be one of this server's. */
  readonly lastEventId: string | null
  /** Sends events, written with the others of this tick. false: the client has not read what it had: await `ready`. */
  send (events: ServerSentEvent | Iterable<ServerSentEvent>): boolean
  /** Sends a comment. */
  comment (text?: string): boolean
  /** Resolves once the client has read what it was sent; rejects (ERR_EVENTSOURCE_WRITER_CLOSED) once closed. */
  readonly ready: Promise<void>
  /** Resolves once the stream is closed, whoever closed it. */
  readonly closed: Promise<void>
  /** Aborted once the stream is closed; its reason says why. */
  readonly signal: AbortSignal
  /** Writes what was sent and ends the response. */
  close (): void
  /** The body, for a writer made for a Request (or none). */
  readonly readable: ReadableStream<Uint8Array>
  /** The Response to answer with, for a writer made for a Request (or none). */
  response (init?: ResponseInit): Response
}

export interface ChannelOptions {
  /** Events kept for subscribers that resume or fall behind. Default 1000. */
  history?: number | undefined
  /** Bytes of events kept, at most (the newest event is always kept). Default 4 MiB. */
  historyBytes?: number | undefined
  /** The type of the event a subscriber gets when its Last-Event-ID is not in the history; null: none. Default 'gap'. */
  gapEvent?: string | null | undefined
  /** As EventStreamWriterOptions', for the writers subscribe() makes. */
  heartbeat?: number | undefined
  retry?: number | undefined
  maxBufferedBytes?: number | undefined
}

/** Fan-out: publish once, every subscriber receives; a bounded history for resumption. */
export declare class Channel {
  constructor (options?: ChannelOptions)
  /** Subscribers, reading or behind. */
  readonly size: number
  /** The id of the newest event published, '' before the first. */
  readonly lastEventId: string
  /** Publishes an event to every subscriber; returns its id (the event's own, or one the channel makes). */
  publish (event: ServerSentEvent): string
  /** Subscribes a client, resumed from its Last-Event-ID. */
  subscribe (target?: EventStreamTarget | EventStreamWriter, options?: EventStreamWriterOptions): EventStreamWriter
  /** Ends every subscriber's response; publish() and subscribe() throw from then on. */
  close (): void
}
