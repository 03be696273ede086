// Compiled by `tsc -p test/types/tsconfig.json` with lib.dom: the `eventsource` package's own type test
// (its test/type-compatible.ts: what code written for that package does), rewritten against
// `whatwg-eventsource/eventsource`. Our EventSource, the native one and that package's are used
// interchangeably.
import {
  type EventSourceConstructor,
  EventSource as DropIn,
  type EventSourceInit,
  type FetchLike
} from '../../types/eventsource.js'

declare const native: globalThis.EventSource

function useConstructor (Ctor: EventSourceConstructor): void {
  const es = new Ctor('https://example.com/events', { withCredentials: true }) satisfies globalThis.EventSource

  es.onmessage = function (event) {
    console.log(event.data, event.lastEventId, this === es)
  }
  function onMessage (this: DropIn, event: MessageEvent): void {
    console.log(event.data, this.url)
  }
  es.addEventListener('message', onMessage)
  es.removeEventListener('message', onMessage)
  es.addEventListener('message', function (event) {
    console.log(this.url, event.data)
  })

  es.onerror = function (event) {
    console.log(event.type === 'error', this === es)
  }
  function onError (this: DropIn, event: Event): void {
    console.log(event.type, this.readyState)
  }
  es.addEventListener('error', onError)
  es.removeEventListener('error', onError)
  // The package's extras survive on the listener's event.
  es.addEventListener('error', (event) => {
    console.log(event.code === 401, event.message)
  })

  es.onopen = function (event) {
    console.log(event.type === 'open', this === es)
  }
  console.log(es.readyState === es.CONNECTING || es.readyState === es.OPEN || es.readyState === es.CLOSED)
  console.log(es.url, es.withCredentials)
  es.close()
}

useConstructor(DropIn)
useConstructor(globalThis.EventSource)

// Structural: the native EventSource, and its constructor, fit ours and the other way round.
const nativeAsDropIn: DropIn = native
const nativeCtor: EventSourceConstructor = globalThis.EventSource
const dropInCtor: typeof globalThis.EventSource = DropIn

// Subclasses are both.
class Wrapped extends DropIn {
  reconnects = 0
  override close (): void {
    super.close()
  }
}
const wrapped = new Wrapped('https://example.com/events', { withCredentials: true })

// Any fetch of lib.dom fits the fetch contract, and so does a wrapper returning a Response-like object.
const globalFetchInit: EventSourceInit = { fetch: globalThis.fetch }
const wrappingFetch: FetchLike = async (url, init) => {
  const response = await globalThis.fetch(url, init)
  const body: ReadableStream<Uint8Array<ArrayBufferLike>> | null = response.body
  return { body, url: response.url, status: response.status, redirected: response.redirected, headers: response.headers }
}

new DropIn('https://example.com/events', { maxBufferSize: 1024, fetch: wrappingFetch }).close()
void [nativeAsDropIn, nativeCtor, dropInCtor, wrapped satisfies DropIn, wrapped satisfies globalThis.EventSource, globalFetchInit]
