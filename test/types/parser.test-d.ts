// tsd: whatwg-eventsource/parser and whatwg-eventsource/parser/stream have eventsource-parser's types:
// each of ours is checked against eventsource-parser's own declarations, both ways, so code typed
// against either compiles with the other.
import { expectType, expectAssignable, expectError } from 'tsd'
import {
  createParser,
  ParseError,
  type ErrorType,
  type EventSourceMessage,
  type EventSourceParser,
  type ParserCallbacks,
  type ParserConfig
} from '../../types/parser.js'
import { EventSourceParserStream, ParseError as StreamParseError, type StreamOptions } from '../../types/parser-stream.js'
import * as esp from 'eventsource-parser'
import * as espStream from 'eventsource-parser/dist/stream'

// createParser and what it returns.
const parser = createParser({
  onEvent (event) {
    expectType<EventSourceMessage>(event)
    expectType<string | undefined>(event.id)
    expectType<string | undefined>(event.event)
    expectType<string>(event.data)
  },
  onId (id) { expectType<string>(id) },
  onRetry (ms) { expectType<number>(ms) },
  onComment (text) { expectType<string>(text) },
  onError (error) {
    expectType<ParseError>(error)
    expectType<ErrorType>(error.type)
    expectType<string | undefined>(error.field)
    expectType<string | undefined>(error.value)
    expectType<string | undefined>(error.line)
  },
  maxBufferSize: 1024
})
expectType<EventSourceParser>(parser)
expectType<void>(parser.feed('data: x\n\n'))
expectType<void>(parser.reset())
expectType<void>(parser.reset({ consume: true }))
expectError(parser.feed(new Uint8Array(1)))
expectError(createParser({ onEvent: (e: string) => e }))
expectAssignable<ErrorType>('max-buffer-size-exceeded')
expectError<ErrorType>('unknown')
expectAssignable<Error>(new ParseError('m', { type: 'unknown-field', field: 'f', value: 'v', line: 'f: v' }))

// The same as eventsource-parser's, both ways.
expectAssignable<typeof esp.createParser>(createParser)
expectAssignable<typeof createParser>(esp.createParser)
expectAssignable<esp.ParserConfig>({} as ParserConfig)
expectAssignable<ParserConfig>({} as esp.ParserConfig)
expectAssignable<esp.ParserCallbacks>({} as ParserCallbacks)
expectAssignable<ParserCallbacks>({} as esp.ParserCallbacks)
expectAssignable<esp.EventSourceMessage>({} as EventSourceMessage)
expectAssignable<EventSourceMessage>({} as esp.EventSourceMessage)
expectAssignable<esp.EventSourceParser>(parser)
expectAssignable<EventSourceParser>(esp.createParser({}))
expectAssignable<esp.ErrorType>('' as ErrorType)
expectAssignable<ErrorType>('' as esp.ErrorType)
expectAssignable<esp.ParseError>(new ParseError('m', { type: 'invalid-retry' }))
expectAssignable<ParseError>(new esp.ParseError('m', { type: 'invalid-retry' }))

// The stream form.
const stream = new EventSourceParserStream({ onError: 'terminate', onRetry: (ms) => expectType<number>(ms), maxBufferSize: 10 })
expectAssignable<TransformStream<string, EventSourceMessage>>(stream)
new EventSourceParserStream({ onError: (error) => expectType<Error>(error), onComment: (c) => expectType<string>(c), onId: (id) => expectType<string>(id) })
new EventSourceParserStream()
expectError(new EventSourceParserStream({ onError: 'ignore-all' }))
expectType<typeof ParseError>(StreamParseError)
expectAssignable<typeof espStream.EventSourceParserStream>(EventSourceParserStream)
expectAssignable<typeof EventSourceParserStream>(espStream.EventSourceParserStream)
expectAssignable<espStream.StreamOptions>({} as StreamOptions)
expectAssignable<StreamOptions>({} as espStream.StreamOptions)
declare const text: ReadableStream<string>
expectType<ReadableStream<EventSourceMessage>>(text.pipeThrough(new EventSourceParserStream()))
