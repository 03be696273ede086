// tsd: the types of `whatwg-eventsource/eventsource` are the `eventsource` package's (versions 3 to 5), so
// code typed against that package compiles by changing the import; checked against the package's own
// declarations (eventsource 4, installed as a dev dependency) and against the MCP SDK, which uses them.
import { expectType, expectError, expectAssignable, expectNotAssignable } from 'tsd'
import {
  EventSource,
  ErrorEvent,
  type EventSourceConstructor,
  type EventSourceInit,
  type EventSourceFetchInit,
  type FetchLikeInit,
  type FetchLike,
  type FetchLikeResponse,
  type EventSourceEventMap
} from '../../types/eventsource.js'
import * as Original from 'eventsource'
import type { SSEClientTransportOptions } from '@modelcontextprotocol/sdk/client/sse.js'

const source = new EventSource('http://127.0.0.1/events')
expectType<EventSource>(new EventSource(new URL('http://127.0.0.1/'), { withCredentials: true, maxBufferSize: 1024 }))
expectType<EventSource>(new EventSource('http://127.0.0.1/', { keepAliveWhileReconnecting: true }))
expectType<number>(source.readyState)
expectType<string>(source.url)
expectType<boolean>(source.withCredentials)
expectType<0>(EventSource.CONNECTING)
expectType<1>(source.OPEN)
expectType<2>(EventSource.CLOSED)
expectError(new EventSource(123))
expectError(new EventSource('http://127.0.0.1/', { headers: {} }))

// The error event's extras; handlers see the source as `this`, as version 5 and lib.dom type them.
source.onerror = function (event) {
  expectType<ErrorEvent>(event)
  expectType<number | undefined>(event.code)
  expectType<string | undefined>(event.message)
  expectType<EventSource>(this)
}
source.addEventListener('error', (event) => { expectType<ErrorEvent>(event) })
source.addEventListener('message', (event) => { expectType<MessageEvent>(event) })
source.addEventListener('custom', (event) => { expectType<MessageEvent>(event) })
source.onmessage = null
expectType<ErrorEvent>({} as EventSourceEventMap['error'])
expectType<number | undefined>(new ErrorEvent('error', { code: 401, message: 'Non-200 status code (401)' }).code)

// The fetch contract: called with the URL and exactly the package's init; any fetch of the runtime fits.
const recording: FetchLike = async (url, init) => {
  expectType<string | URL>(url)
  expectType<EventSourceFetchInit>(init)
  expectType<'text/event-stream'>(init.headers.Accept)
  expectType<'error' | 'follow' | 'manual'>(init.redirect)
  return await fetch(url, { ...init, headers: { ...init.headers, authorization: 'Bearer token' } })
}
expectAssignable<EventSourceInit>({ fetch: recording })
expectAssignable<EventSourceInit>({ fetch: globalThis.fetch })
expectType<EventSourceFetchInit>({} as FetchLikeInit)
expectAssignable<FetchLikeResponse>({
  body: null, url: '', status: 200, redirected: false, headers: { get: () => null }
})

// Against the original's declarations: the init, the fetch and the constructor are interchangeable.
declare const originalInit: Original.EventSourceInit
declare const originalFetch: Original.FetchLike
declare const ourInit: EventSourceInit
expectAssignable<EventSourceInit>(originalInit)
expectAssignable<Original.EventSourceInit>(ourInit)
expectAssignable<FetchLike>(originalFetch)
expectAssignable<Original.FetchLike>(recording)
expectAssignable<EventSourceConstructor>(Original.EventSource)
expectAssignable<EventSource>(new Original.EventSource('http://127.0.0.1/'))
expectAssignable<Original.ErrorEvent>(new ErrorEvent('error'))
expectAssignable<ErrorEvent>(new Original.ErrorEvent('error'))
// A structural type: a mock is an EventSource (the original's class is nominal: its #private fields).
expectAssignable<EventSource>({
  CONNECTING: 0,
  OPEN: 1,
  CLOSED: 2,
  readyState: 1,
  url: 'http://127.0.0.1/',
  withCredentials: false,
  onerror: null,
  onmessage: null,
  onopen: null,
  addEventListener: () => {},
  removeEventListener: () => {},
  dispatchEvent: () => true,
  close: () => {}
} as const)
expectNotAssignable<EventSource>({ url: 'http://127.0.0.1/' })

// The MCP SDK types its SSE transport's eventSourceInit with the package's (version 3, nested in the SDK):
// an init written for it is one of ours. (Not the other way round: version 3 typed a hand-made body
// reader's last result narrower than TypeScript 5.9's lib.dom types a real reader's; version 4 widened
// it, and so do we.)
declare const sdkInit: NonNullable<SSEClientTransportOptions['eventSourceInit']>
expectAssignable<EventSourceInit>(sdkInit)
expectAssignable<SSEClientTransportOptions>({ eventSourceInit: { withCredentials: true } satisfies EventSourceInit })

// Subclasses keep working.
class Wrapped extends EventSource {
  reconnects = 0
  override close (): void {
    super.close()
  }
}
expectAssignable<EventSource>(new Wrapped('http://127.0.0.1/'))
