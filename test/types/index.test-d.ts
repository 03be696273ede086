import { expectType, expectError, expectAssignable } from 'tsd'
import { Agent, fetch as undiciFetch } from 'undici'
import {
  EventSource,
  EventSourceParser,
  EventSourceStream,
  EventSourceParserStream,
  EventSourceErrorEvent,
  type ParsedEvent,
  type EventSourceInit,
  type EventSourceFetchInit,
  type ErrorCode,
  type Http2Options,
  type StandardEventSource,
  type ReconnectCause,
  type RequestChanges,
  type AttemptContext,
  type PreviousAttempt,
  type ErrorBodyOptions,
  type EventSourceError,
  type BatchedMessage
} from '../../types/index.js'

const source = new EventSource('http://127.0.0.1/events')
expectType<string>(source.url)
expectType<boolean>(source.withCredentials)
expectType<number>(source.readyState)
expectType<0>(EventSource.CONNECTING)
expectType<1>(source.OPEN)
expectType<2>(EventSource.CLOSED)
source.onmessage = (event) => { expectType<MessageEvent>(event) }
source.onopen = (event) => { expectType<Event>(event) }
// Each handler takes its event's type: onerror an EventSourceErrorEvent, as addEventListener('error').
source.onerror = function (event) {
  expectType<EventSourceErrorEvent>(event)
  expectType<ErrorCode | string | undefined>(event.code)
  expectType<boolean>(event.willReconnect)
  expectType<StandardEventSource>(this)
}
expectError(source.onerror = (event: MessageEvent) => event.data)
// Read back, it is lib.dom's type (see StandardEventSource's onerror).
expectType<((this: StandardEventSource, ev: Event) => any) | null>(source.onerror)
source.onerror = null
source.addEventListener('open', (event) => { expectType<Event>(event) })
source.addEventListener('message', (event) => { expectType<MessageEvent>(event) })
source.addEventListener('custom', (event) => { expectType<MessageEvent>(event) })
source.close()

new EventSource(new URL('http://127.0.0.1/'), { withCredentials: true })
new EventSource('http://127.0.0.1/', { dispatcher: new Agent(), reconnectionTime: 10, maxEventSize: Infinity })
new EventSource('http://127.0.0.1/', { node: { dispatcher: new Agent(), reconnectionTime: 10 } })
expectAssignable<EventSourceInit>({})
expectError(new EventSource())
expectError(new EventSource('http://127.0.0.1/', { reconnectionTime: '3s' }))
expectError(source.readyState = 1)

const parser = new EventSourceParser({
  onEvent (type, data, lastEventId) {
    expectType<string>(type)
    expectType<string>(data)
    expectType<string>(lastEventId)
  },
  onRetry (ms) { expectType<number>(ms) },
  maxEventSize: 1024
})
parser.write(new Uint8Array(1))
parser.end()
parser.reset()
expectType<string>(parser.lastEventId)
expectError(new EventSourceParser({}))
expectError(parser.write('data: x\n\n'))

const stream = new EventSourceStream({ maxEventSize: 1024 })
expectType<number | null>(stream.reconnectionTime)
stream.on('retry', (ms) => { expectType<number>(ms) })
stream.on('data', (event) => { expectType<ParsedEvent>(event) })

const web = new EventSourceParserStream({ onRetry: (ms) => { expectType<number>(ms) } })
expectAssignable<TransformStream<Uint8Array, ParsedEvent>>(web)
expectAssignable<TransformStream<string, ParsedEvent>>(web)

// Batches per chunk, and the end of the stream (issue 48).
new EventSourceParser({ onEvent () {}, incompleteEvent: 'dispatch' })
expectError(new EventSourceParser({ onEvent () {}, incompleteEvent: 'keep' }))
const batchedStream = new EventSourceStream({ batch: true, incompleteEvent: 'dispatch' })
batchedStream.on('data', (events) => { expectType<ParsedEvent[]>(events) })
expectAssignable<TransformStream<Uint8Array, ParsedEvent[]>>(new EventSourceParserStream({ batch: true }))
expectAssignable<TransformStream<Uint8Array, ParsedEvent>>(new EventSourceParserStream({ incompleteEvent: 'discard' }))

// EventSource.fromReadableStream() and its members (whatwg/html PR #12272)
const fromStream = EventSource.fromReadableStream(new ReadableStream<Uint8Array>())
expectType<EventSource>(fromStream)
expectType<string>(fromStream.lastEventId)
expectType<number>(fromStream.reconnectionTime)
expectType<void>(fromStream.reset())
EventSource.fromReadableStream(new ReadableStream<Uint8Array>(), {
  closeOnEnd: true,
  incompleteEvent: 'dispatch',
  onBatch (messages) {
    expectType<BatchedMessage[]>(messages)
    expectType<string>(messages[0].origin)
    expectType<EventSource>(this)
  },
  signal: AbortSignal.timeout(1000)
})
expectError(EventSource.fromReadableStream(new ReadableStream<Uint8Array>(), { headers: { a: 'b' } }))
expectError(EventSource.fromReadableStream('data: x\n\n'))
expectError(new EventSource('http://127.0.0.1/', { onBatch: 'yes' }))

// Extensions
new EventSource('http://127.0.0.1/', {
  headers: async ({ attempt, lastEventId, url }) => ({ authorization: `Bearer ${attempt}${lastEventId}${url}` }),
  method: 'POST',
  body: () => new URLSearchParams({ q: '1' }),
  lastEventId: '42',
  reconnect: { delay: 100, factor: 2, maxDelay: 30_000, jitter: 'full', maxRetries: 5, retryOnStatus: [502, 503] },
  idleTimeout: 45_000,
  connectTimeout: 10_000,
  signal: AbortSignal.timeout(1000),
  highWaterMark: 10,
  closeOnEnd: true,
  highWaterMarkBytes: 1024 * 1024,
  keepAliveWhileReconnecting: false
})
expectError(new EventSource('http://127.0.0.1/', { keepAliveWhileReconnecting: 'no' }))
source.addEventListener('end', (event) => {
  expectType<Event>(event)
})
expectError(new EventSource('http://127.0.0.1/', { highWaterMarkBytes: '1M' }))
expectAssignable<ErrorCode>('ERR_EVENTSOURCE_TOO_MANY_CODINGS')
new EventSource('http://127.0.0.1/', { headers: [['x-a', '1']] })
new EventSource('http://127.0.0.1/', { headers: new Headers({ 'x-a': '1' }) })
expectError(new EventSource('http://127.0.0.1/', { reconnect: { jitter: 'half' } }))

// The request of each attempt as code; reconnection as code.
new EventSource('http://127.0.0.1/', {
  method: 'POST',
  body: '{}',
  request: ({ attempt, lastEventId, url, method, previous }) => {
    expectType<number>(attempt)
    expectType<string>(lastEventId)
    expectType<string>(url)
    expectType<string>(method)
    expectType<ErrorCode | string | undefined>(previous?.code)
    expectType<number | undefined>(previous?.status)
    expectType<Headers | undefined>(previous?.headers)
    expectType<string | undefined>(previous?.body)
    if (attempt === 1) return undefined
    return { method: 'GET', url: new URL('/next', url), headers: { 'x-a': '1' }, body: null }
  }
})
new EventSource('http://127.0.0.1/', { request: async () => ({ url: '?offset=1' }) })
// A POST that may be sent again (a subscription), and a GET that may not.
new EventSource('http://127.0.0.1/', { method: 'POST', body: '{"query":"subscription { tick }"}', idempotent: true })
new EventSource('http://127.0.0.1/', { idempotent: false })
expectError(new EventSource('http://127.0.0.1/', { method: 'POST', idempotent: 'yes' }))
new EventSource('http://127.0.0.1/', { request: () => {} })
expectError(new EventSource('http://127.0.0.1/', { request: () => ({ url: 1 }) }))
expectError(new EventSource('http://127.0.0.1/', { request: () => ({ headers: 'x' }) }))
new EventSource('http://127.0.0.1/', {
  reconnect: {
    delay: 1000,
    floor: false,
    policy: (cause: ReconnectCause) => {
      expectType<Error>(cause.error)
      expectType<number | undefined>(cause.retryAfter)
      expectType<boolean>(cause.failsConnection)
      expectType<string | undefined>(cause.body)
      return cause.failures > 5 ? 'stop' : cause.retry * cause.failures + cause.events + cause.attempts + cause.elapsed
    }
  }
})
expectError(new EventSource('http://127.0.0.1/', { reconnect: { policy: () => 'later' } }))
expectError(new EventSource('http://127.0.0.1/', { reconnect: { policy: async () => 5 } }))
expectAssignable<ErrorCode>('ERR_EVENTSOURCE_RECONNECT_POLICY')
expectAssignable<ErrorCode>('ERR_EVENTSOURCE_EXTENSION_NOT_LOADED')
const changes: RequestChanges = { url: 'http://127.0.0.1/' }
const context: AttemptContext | undefined = undefined
const previous: PreviousAttempt | null = null
void [changes, context, previous]
source.addEventListener('error', (event) => {
  expectType<EventSourceErrorEvent>(event)
  expectType<number | undefined>(event.status)
  expectType<Headers | undefined>(event.headers)
  expectType<string | undefined>(event.body)
  expectType<boolean | undefined>(event.bodyTruncated)
  expectType<boolean>(event.willReconnect)
})
// The body of a response the source does not take: read within bounds, or not at all.
new EventSource('http://127.0.0.1/', { errorBody: { maxBytes: 1024, timeout: 500 } })
new EventSource('http://127.0.0.1/', { errorBody: false })
new EventSource('http://127.0.0.1/', { errorBody: {} })
expectError(new EventSource('http://127.0.0.1/', { errorBody: { maxBytes: '1 KiB' } }))
expectError(new EventSource('http://127.0.0.1/', { errorBody: 1024 }))
const bounds: ErrorBodyOptions = { timeout: 100 }
expectAssignable<EventSourceInit>({ errorBody: bounds })
expectType<boolean | undefined>(new EventSourceErrorEvent('error', { body: '{}', bodyTruncated: false }).bodyTruncated)
async function failed (): Promise<void> {
  try {
    for await (const event of source) void event
  } catch (err) {
    const error = err as EventSourceError
    expectType<string | undefined>(error.body)
    expectType<boolean | undefined>(error.bodyTruncated)
    expectType<number | undefined>(error.status)
    expectType<ErrorCode | string>(error.code)
  }
}
void failed
expectAssignable<ErrorCode>('ERR_EVENTSOURCE_DISPATCHER_REDIRECT')
new EventSource('https://127.0.0.1/', { http2: true })
new EventSource('https://127.0.0.1/', { http2: { connect: { ca: 'PEM', rejectUnauthorized: true }, pingInterval: 30_000, pingTimeout: 5000 } })
new EventSource('http://127.0.0.1/', { http2: { priorKnowledge: true } })
new EventSource('http://localhost/', { http2: { priorKnowledge: true, connect: { socketPath: '/run/sse.sock', timeout: 5000 } } })
expectError(new EventSource('http://localhost/', { http2: { connect: { socketPath: 1 } } }))
expectError(new EventSource('https://127.0.0.1/', { http2: 'h2' }))
expectError(new EventSource('https://127.0.0.1/', { http2: { pingTimeout: '5s' } }))
expectAssignable<ErrorCode>('ERR_EVENTSOURCE_HTTP2_PING_TIMEOUT')
const shared: Http2Options = { connect: { ca: 'PEM' } }
expectAssignable<EventSourceInit>({ http2: shared })
expectError<ErrorCode>('ERR_EVENTSOURCE_DISPATCHER_REDIRECTS')
async function iterate (): Promise<void> {
  for await (const event of source) expectType<MessageEvent>(event)
}
void iterate

// The fetch transport: the runtime's fetch, undici's, a user's wrapper (whose arguments are typed).
new EventSource('http://127.0.0.1/', { fetch })
new EventSource('http://127.0.0.1/', { fetch: undiciFetch })
new EventSource('http://127.0.0.1/', { fetch: (input, init) => undiciFetch(input, { ...init, dispatcher: new Agent() }) })
new EventSource('http://127.0.0.1/', {
  fetch: async (input, init) => {
    expectType<string>(input)
    expectType<EventSourceFetchInit>(init)
    expectType<'manual' | 'follow'>(init.redirect)
    expectType<'same-origin' | 'include'>(init.credentials)
    expectType<AbortSignal>(init.signal)
    expectType<Record<string, string>>(init.headers)
    return fetch(input, init)
  },
  withCredentials: true
})
expectError(new EventSource('http://127.0.0.1/', { fetch: 'https://example.com' }))
expectError(new EventSource('http://127.0.0.1/', { fetch: async () => 'data: x\n\n' }))
