// `whatwg-eventsource/server` in browsers and workers (Cloudflare, Vercel Edge, Deno Deploy bundles): the
// encoder, a writer whose body is a ReadableStream for the Response the worker returns, and the channel.

import { encodeEvent, encodeEvents, formatEvent } from '../server/encoder.js'
import { defineEventStreamWriter } from '../server/writer.js'
import { createWebSinkFor } from '../server/web-sink.js'
import { defineChannel } from '../server/channel.js'

const EventStreamWriter = /* @__PURE__ */ defineEventStreamWriter({ createSinkFor: createWebSinkFor })
const Channel = /* @__PURE__ */ defineChannel(EventStreamWriter)

export { encodeEvent, encodeEvents, formatEvent, EventStreamWriter, Channel }
