// whatwg-eventsource/parser: a drop-in for eventsource-parser (version 4). The same names and shapes
// as eventsource-parser's own declarations, so code typed against it compiles unchanged.

/** What went wrong, on a ParseError. */
export type ErrorType = 'invalid-retry' | 'unknown-field' | 'max-buffer-size-exceeded'

/** Handed to `onError`; what the stream form errors with. */
export declare class ParseError extends Error {
  /** What went wrong. */
  type: ErrorType
  /** The field name of an unknown field. */
  field?: string | undefined
  /** The value of an unknown field, or of an invalid `retry`. */
  value?: string | undefined
  /** The line that was not understood. */
  line?: string | undefined
  constructor (message: string, options: { type: ErrorType, field?: string, value?: string, line?: string })
}

/** An event, as eventsource-parser reports it. */
export interface EventSourceMessage {
  /** The type the block named; undefined when it named none or an empty one (never "message" by default). */
  event?: string | undefined
  /** The ID this block set; undefined when it set none (IDs do not carry over from event to event). */
  id?: string | undefined
  /** The data lines, joined by LF. */
  data: string
}

/** What createParser() returns. */
export interface EventSourceParser {
  /** Parses the next piece of the stream; callbacks run before it returns. Throws after an overflow of maxBufferSize, until reset(). */
  feed (chunk: string): void
  /** Starts a new stream. With `consume: true`, the incomplete line is first parsed as a complete one. */
  reset (options?: { consume?: boolean }): void
}

export interface ParserCallbacks {
  /** At the end of each block that set an ID (with or without data), before its event. */
  onId?: ((id: string) => void) | undefined
  /** For each event. */
  onEvent?: ((event: EventSourceMessage) => void) | undefined
  /** For each `retry` line of digits only. */
  onRetry?: ((retry: number) => void) | undefined
  /** For each comment line: the text after the colon, one leading space removed. */
  onComment?: ((comment: string) => void) | undefined
  /** For unknown fields, invalid `retry` values, and an overflow of maxBufferSize. */
  onError?: ((error: ParseError) => void) | undefined
}

export interface ParserConfig extends ParserCallbacks {
  /** Characters the incomplete line and the event's data may hold together; past it, onError and a terminated parser. Default: no limit. */
  maxBufferSize?: number | undefined
}

export declare function createParser (config: ParserConfig): EventSourceParser
