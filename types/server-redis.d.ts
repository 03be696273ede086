// whatwg-eventsource/server/redis: a channel shared by many processes through a Redis stream
// (docs/server-redis.md). Needs node-redis (the `redis` package, 5 or 6), an optional peer dependency.

import type { EventStreamTarget, EventStreamWriter, EventStreamWriterOptions, ServerSentEvent } from './server.js'

/**
 * What a RedisChannel uses of a node-redis client (`createClient()` of the `redis` package), described here so that
 * these types do not need node-redis's: a RedisClientType is one.
 */
export interface RedisClientLike {
  readonly isOpen: boolean
  readonly isReady: boolean
  connect (): Promise<unknown>
  duplicate (overrides?: any): RedisClientLike
  xAdd (...args: any[]): Promise<string>
  xRange (...args: any[]): Promise<unknown>
  xRevRange (...args: any[]): Promise<unknown>
  xRead (...args: any[]): Promise<unknown>
  on (event: 'error', listener: (error: Error) => void): unknown
  close (): Promise<unknown>
  destroy (): unknown
}

interface RedisChannelCommonOptions {
  /** The key of the stream: every process that makes a RedisChannel on it shares its events. */
  stream: string
  /**
   * The retention bound: how many entries the stream keeps (XADD's MAXLEN), so how far back a client that
   * reconnects can resume; one that missed more gets the gap event. Infinity: the stream is never trimmed.
   */
  maxLength: number
  /** Trim to exactly maxLength (MAXLEN =) rather than at least maxLength (MAXLEN ~, much cheaper). Default false. */
  exactLength?: boolean | undefined
  /** The `retry:` each subscriber is sent, in ms, before the jitter. Default 1000. */
  retry?: number | undefined
  /**
   * Each subscriber's `retry:` is drawn from [retry, retry + retryJitter] ms, so that the clients of a process
   * that dies do not all reconnect in the same instant. Default 2000.
   */
  retryJitter?: number | undefined
  /**
   * Events each process keeps in memory (loaded from the stream at start), from which reconnecting clients are
   * resumed without a read from Redis. Default 1000, as a Channel's.
   */
  history?: number | undefined
  /** Bytes of events kept in memory, at most (the newest event is always kept). Default 4 MiB. */
  historyBytes?: number | undefined
  /** The type of the event a subscriber gets when its Last-Event-ID is not in the stream any more; null: none. Default 'gap'. */
  gapEvent?: string | null | undefined
  /** As EventStreamWriterOptions', for the writers subscribe() makes. */
  heartbeat?: number | undefined
  maxBufferedBytes?: number | undefined
  /**
   * Called with what goes wrong out of any caller's sight: the reader's connection lost (node-redis reconnects it
   * by itself), a read Redis refused, an entry of the stream that is not an event (skipped), a subscriber that
   * could not be resumed from the stream (disconnected: its client reconnects).
   */
  onError?: ((error: Error) => void) | undefined
}

export type RedisChannelOptions = RedisChannelCommonOptions & (
  /** A node-redis client: connected here if it is not yet; the channel reads with a duplicate of it. */
  | { client: RedisClientLike, url?: undefined }
  /** A Redis URL (redis://host:port): the channel makes its client, and closes it on close(). */
  | { url: string, client?: undefined }
)

/**
 * A channel shared by every process that makes one on the same Redis stream: an event published on any of them
 * reaches the subscribers of all, with the stream entry's ID as its id, so a client resumes wherever it reconnects.
 */
export declare class RedisChannel {
  constructor (options: RedisChannelOptions)
  /** The stream's key. */
  readonly stream: string
  /** Resolves once the channel follows the stream: its history loaded, its reader reading. */
  readonly ready: Promise<void>
  /** Subscribers, reading, behind, or being resumed. */
  readonly size: number
  /** The ID of the newest entry this process has delivered, '' before the first. */
  readonly lastEventId: string
  /**
   * Appends an event to the stream (`id` is the entry's: leave it out); resolves with the entry ID. Rejects with
   * ERR_EVENTSOURCE_REDIS_UNAVAILABLE when the client has no connection (nothing was sent), and with
   * ERR_EVENTSOURCE_PUBLISH_UNCONFIRMED when the connection was lost before Redis answered (it may have been
   * appended).
   */
  publish (event: ServerSentEvent): Promise<string>
  /** Subscribes a client, resumed from its Last-Event-ID here or from the stream. */
  subscribe (target?: EventStreamTarget | EventStreamWriter, options?: EventStreamWriterOptions): EventStreamWriter
  /** Ends every subscriber's response and stops reading (and closes the client made from `url`). */
  close (): Promise<void>
}
