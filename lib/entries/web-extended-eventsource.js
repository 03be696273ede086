// The EventSource of browsers and workers with every extension of the init dictionary and `for await`
// (`whatwg-eventsource/extensions`, and the `eventsource` package's drop-in, under the `browser` and
// `worker` conditions): Node's EventSource (./node-eventsource.js) but for what a browser has not, undici
// and diagnostics_channel. Every request is sent with a fetch (lib/transport/transport-web.js).

import { defineEventSource } from '../eventsource/eventsource.js'
import { createInitResolver } from '../eventsource/init.js'
import { resolveExtensions } from '../eventsource/init-extensions.js'
import { TaskQueue } from '../eventsource/task-queue.js'
import { decide } from '../eventsource/reconnect-policy.js'
import { MessageIterators, finishedIterator } from '../eventsource/message-iterator.js'
import { followSignal } from '../eventsource/abort-signal.js'
import { runtimeMessageEvent } from '../eventsource/message-event.js'
import { buildRequest, previousAttempt } from '../transport/request.js'
import { fetchTransport } from '../transport/transport-web.js'

const EventSource = defineEventSource({
  resolveInit: createInitResolver({ resolveExtensions }),
  TaskQueue,
  nextAttempt: decide,
  buildRequest,
  previousAttempt,
  transport: fetchTransport,
  iterators: { MessageIterators, finishedIterator },
  followSignal,
  Diagnostics: null,
  createMessageEvent: runtimeMessageEvent
})

export { EventSource }
