import { expectType, expectError, expectAssignable, expectNotAssignable } from 'tsd'
import { subscribe, tracingChannel } from 'node:diagnostics_channel'
import type {
  EventSource,
  DiagnosticsChannelMap,
  CreateDiagnostic,
  ConnectDiagnostic,
  OpenDiagnostic,
  MessageDiagnostic,
  ErrorDiagnostic,
  CloseDiagnostic,
  CloseReason,
  AttemptTraceContext,
  AttemptTracingChannelName,
  DiagnosticsHeaders
} from '../../types/index.js'

subscribe('whatwg-eventsource:open', (message) => {
  const open = message as DiagnosticsChannelMap['whatwg-eventsource:open']
  expectType<OpenDiagnostic>(open)
  expectType<EventSource>(open.source)
  expectType<number>(open.status)
  expectType<string>(open.url)
  expectType<number>(open.ms)
  expectType<DiagnosticsHeaders>(open.headers)
  expectError(open.status = 204)
})

declare const create: CreateDiagnostic
expectType<string>(create.url)
declare const connect: ConnectDiagnostic
expectType<number>(connect.attempt)
expectType<string>(connect.lastEventId)
expectType<string>(connect.headers['last-event-id'])
expectError(connect.headers.accept = 'x')
declare const message: MessageDiagnostic
expectType<number>(message.dataLength)
expectType<string>(message.type)
declare const error: ErrorDiagnostic
expectType<boolean>(error.willReconnect)
expectType<number | undefined>(error.delay)
expectType<number | undefined>(error.status)
expectType<Error>(error.cause)
expectAssignable<string | undefined>(error.code)
declare const close: CloseDiagnostic
expectType<CloseReason>(close.reason)
expectType<number>(close.events)
expectType<number>(close.bytes)
expectType<number>(close.attempts)
expectType<number>(close.msOpen)
expectAssignable<CloseReason>('abort')
expectNotAssignable<CloseReason>('closed')
expectType<DiagnosticsChannelMap['whatwg-eventsource:close']>(close)

const name: AttemptTracingChannelName = 'whatwg-eventsource:attempt'
const attempts = tracingChannel<unknown, AttemptTraceContext>(name)
attempts.subscribe({
  start (context) {
    expectType<number>(context.attempt)
    context.span = {}
  },
  end () {},
  asyncStart () {},
  asyncEnd (context) {
    expectType<(Error & { code?: string }) | undefined>(context.error)
  },
  error (context) {
    expectType<string>(context.url)
  }
})
