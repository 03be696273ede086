// whatwg-eventsource/parser/stream: a drop-in for eventsource-parser/stream (version 4).

import type { EventSourceMessage } from './parser'

export { ParseError, type ErrorType, type EventSourceMessage } from './parser'

export interface StreamOptions {
  /** At the end of each block that set an ID, before its event is enqueued. */
  onId?: ((id: string) => void) | undefined
  /** A function: called with each parse error, and parsing goes on. 'terminate': the first one errors the stream. Otherwise ignored. */
  onError?: ('terminate' | ((error: Error) => void)) | undefined
  /** For each `retry` line of digits only. */
  onRetry?: ((retry: number) => void) | undefined
  /** For each comment line. */
  onComment?: ((comment: string) => void) | undefined
  /** As createParser's; an overflow always errors the stream. */
  maxBufferSize?: number | undefined
}

/** Strings in (`.pipeThrough(new TextDecoderStream())`), eventsource-parser's messages out. */
export declare class EventSourceParserStream extends TransformStream<string, EventSourceMessage> {
  constructor (options?: StreamOptions)
}
