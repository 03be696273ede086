// `whatwg-eventsource/server` on Node, Bun and Deno: serving event streams. The encoder, a writer for a
// node:http or node:http2 response, an http2 stream or a WHATWG Request (./server.browser.js is the same
// without the Node responses), and the channel over those writers.

import { encodeEvent, encodeEvents, formatEvent } from '../server/encoder.js'
import { defineEventStreamWriter } from '../server/writer.js'
import { createNodeSinkFor } from '../server/node-sinks.js'
import { createWebSinkFor } from '../server/web-sink.js'
import { defineChannel } from '../server/channel.js'

const EventStreamWriter = /* @__PURE__ */ defineEventStreamWriter({
  createSinkFor (hooks) {
    const nodeSinkFor = createNodeSinkFor(hooks)
    const webSinkFor = createWebSinkFor(hooks)
    return (target, compress) => nodeSinkFor(target, compress) ?? webSinkFor(target, compress)
  }
})
const Channel = /* @__PURE__ */ defineChannel(EventStreamWriter)

export { encodeEvent, encodeEvents, formatEvent, EventStreamWriter, Channel }
