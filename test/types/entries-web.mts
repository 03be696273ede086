// Compiled by test/types/tsconfig.worker.json (`npm run test:types`): lib.webworker, neither lib.dom nor
// @types/node, skipLibCheck false. The entries that need no Node types compile with only the web
// globals a worker (or Deno) declares.
import 'whatwg-eventsource/polyfill'
import { EventSource as ExtendedEventSource } from 'whatwg-eventsource/extensions'
import { EventSource, ErrorEvent, type EventSourceInit } from 'whatwg-eventsource/eventsource'
import { createParser, type EventSourceMessage } from 'whatwg-eventsource/parser'
import { EventSourceParserStream } from 'whatwg-eventsource/parser/stream'

const init: EventSourceInit = { withCredentials: true, fetch: async (url, init) => await fetch(url, init) }
const source = new EventSource('https://example.com/events', init)
source.onerror = function (ev) {
  const code: number | undefined = ev.code
  const message: string | undefined = ev.message
  const same: ErrorEvent = ev
  void [code, message, same, this.readyState === this.CLOSED]
}
source.onmessage = (ev) => { void ev.data }
source.onopen = (ev) => { void ev.type }
source.addEventListener('error', (ev) => { void ev.code }, { once: true })
source.addEventListener('custom', (ev) => { void ev.lastEventId }, { signal: new AbortController().signal })
source.addEventListener('open', { handleEvent (ev) { void ev.type } })
source.close()

createParser({ onEvent (event: EventSourceMessage) { void event.data } }).feed('data: x\n\n')
declare const text: ReadableStream<string>
const messages: ReadableStream<EventSourceMessage> = text.pipeThrough(new EventSourceParserStream({ onError: 'terminate' }))

// A worker's own EventSource and ours are interchangeable.
const native: globalThis.EventSource = source
const ours: EventSource = new globalThis.EventSource('/events')
void [messages, native, ours]

// whatwg-eventsource/extensions: an EventSource whose init takes the extensions.
const extended = new ExtendedEventSource('/events', { headers: { authorization: 'Bearer t' }, closeOnEnd: true })
void extended.readyState

// whatwg-eventsource/server in a worker: a Response whose body is the writer's, and a channel.
import { Channel as WorkerChannel, EventStreamWriter as WorkerWriter } from 'whatwg-eventsource/server'

export function handle (request: Request): Response {
  const writer = new WorkerWriter(request, { heartbeat: 15_000 })
  writer.send({ data: 'hello' })
  new WorkerChannel().subscribe(writer)
  return writer.response()
}
