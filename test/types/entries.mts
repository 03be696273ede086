// Compiled by test/types/tsconfig.json, tsconfig.dom-libcheck.json, tsconfig.nodom.json and
// tsconfig.nodom-libcheck.json (`npm run test:types`): with and without lib.dom, with skipLibCheck true
// and false, strict. It imports the types of every entry through the exports map and uses each `on*`
// handler, so a Node project without lib.dom compiles them as a browser-typed one does.
import {
  EventSource,
  EventSourceErrorEvent,
  EventSourceParser,
  EventSourceStream,
  EventSourceParserStream,
  type DiagnosticsChannelMap,
  type ErrorCode,
  type EventSourceInit,
  type ParsedEvent
} from 'whatwg-eventsource'
import 'whatwg-eventsource/polyfill'
import { EventSource as ExtendedEventSource } from 'whatwg-eventsource/extensions'
import { EventSource as DropIn, ErrorEvent as DropInErrorEvent } from 'whatwg-eventsource/eventsource'
import { createParser, type EventSourceMessage } from 'whatwg-eventsource/parser'
import { EventSourceParserStream as DropInParserStream } from 'whatwg-eventsource/parser/stream'

const init: EventSourceInit = { withCredentials: false, reconnect: { delay: 100 } }
const source = new EventSource('http://127.0.0.1/events', init)

// The README's "Errors" example: each handler gets its own event's type, not a plain Event. (`headers`
// is undefined when no response arrived: under strict, `ev.headers?.get(...)`.)
source.onerror = (ev) => console.log(ev.code)
source.onerror = (ev) => {
  const code: ErrorCode | string | undefined = ev.code
  const status: number | undefined = ev.status
  const statusText: string | undefined = ev.statusText
  const header: string | null | undefined = ev.headers?.get('www-authenticate')
  const cause: Error | undefined = ev.cause
  const willReconnect: boolean = ev.willReconnect
  const reconnectDelay: number | undefined = ev.reconnectDelay
  void [code, status, statusText, header, cause, willReconnect, reconnectDelay]
}
source.onerror = function (ev) {
  const same: EventSourceErrorEvent = ev
  void same
  this.close()
}
source.onmessage = (ev) => {
  const data: string = ev.data
  const lastEventId: string = ev.lastEventId
  void [data, lastEventId]
}
source.onopen = function (ev) {
  const type: string = ev.type
  void [type, this.readyState === this.OPEN]
}
source.onerror = null
source.addEventListener('error', (ev) => { void ev.willReconnect }, { once: true })
source.addEventListener('message', (ev) => { void ev.data }, { signal: AbortSignal.timeout(1000) })
source.addEventListener('custom', (ev) => { void ev.data }, true)
source.addEventListener('open', { handleEvent (ev) { void ev.type } })
source.removeEventListener('open', { handleEvent () {} }, { capture: true })
source.dispatchEvent(new EventSourceErrorEvent('error', { code: 'ERR_EVENTSOURCE_NETWORK', willReconnect: true }))
source.close()

async function iterate (): Promise<void> {
  for await (const event of source) void event.data
}
void iterate

// The parser, and its Node and WHATWG stream forms.
const parser = new EventSourceParser({ onEvent (type, data, lastEventId) { void [type, data, lastEventId] } })
parser.write(new Uint8Array(0))
new EventSourceStream().on('data', (event: ParsedEvent) => { void event.data })
const web: TransformStream<Uint8Array | string, ParsedEvent> = new EventSourceParserStream()

// The diagnostics messages.
declare const open: DiagnosticsChannelMap['whatwg-eventsource:open']
const ms: number = open.ms

// whatwg-eventsource/eventsource: the `eventsource` package's handlers, its ErrorEvent on onerror.
const dropIn = new DropIn('http://127.0.0.1/events', { fetch: async (url, init) => await fetch(url, init) })
dropIn.onerror = function (ev) {
  const code: number | undefined = ev.code
  const message: string | undefined = ev.message
  const same: DropInErrorEvent = ev
  void [code, message, same, this.url]
}
dropIn.onmessage = (ev) => { void ev.data }
dropIn.onopen = (ev) => { void ev.type }
dropIn.addEventListener('error', (ev) => { void ev.code })
dropIn.close()

// whatwg-eventsource/parser and /parser/stream.
createParser({ onEvent (event: EventSourceMessage) { void event.data } }).feed('data: x\n\n')
const dropInStream: TransformStream<string, EventSourceMessage> = new DropInParserStream({ onError: 'terminate' })

void [web, ms, dropInStream]

// The EventSource of whatwg-eventsource/extensions is the main entry's class.
const extended: typeof EventSource = ExtendedEventSource
void extended

// whatwg-eventsource/server: a node:http response, a Request, a channel.
import { createServer } from 'node:http'
import { Channel, EventStreamWriter, encodeEvent, encodeEvents, formatEvent, type ServerSentEvent } from 'whatwg-eventsource/server'

const serverEvent: ServerSentEvent = { data: 'hello', event: 'greeting', id: '1', retry: 1000, comment: 'note' }
const bytes: Uint8Array = encodeEvents([serverEvent, { data: 'x' }])
const text: string = formatEvent(serverEvent)
const channel = new Channel({ history: 100, gapEvent: null })
createServer((req, res) => {
  const writer = new EventStreamWriter(res, { heartbeat: 0, headers: { 'access-control-allow-origin': '*' } })
  const ok: boolean = writer.send(serverEvent)
  const id: string | null = writer.lastEventId
  writer.signal.addEventListener('abort', () => {})
  void writer.ready.then(() => writer.close())
  const subscriber: EventStreamWriter = channel.subscribe(res)
  const published: string = channel.publish({ data: String(ok) + id + text + encodeEvent(serverEvent).length + bytes.length })
  void subscriber.closed.then(() => published)
})
const webWriter = new EventStreamWriter(new Request('http://localhost/'))
const response: Response = webWriter.response({ headers: { 'x-a': 'b' } })
void response
