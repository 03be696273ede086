// `whatwg-eventsource/server` in browsers and workers (Cloudflare, Vercel Edge, Deno Deploy bundles): the
// encoder, a writer whose body is a ReadableStream for the Response the worker returns, and the channel.

import { encodeEvent, encodeEvents, formatEvent } from '../server/encoder.js'
import { defineEventStreamWriter } from '../server/writer.js'
import { createWebSinkFor } from '../server/web-sink.js'
import { defineChannel } from '../server/channel.js'

const writer = defineEventStreamWriter({ createSinkFor: createWebSinkFor })
const { EventStreamWriter } = writer
const Channel = defineChannel(writer)

export { encodeEvent, encodeEvents, formatEvent, EventStreamWriter, Channel }
