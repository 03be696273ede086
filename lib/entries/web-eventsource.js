// The EventSource of browsers and workers (`whatwg-eventsource`, and its polyfill, under the `browser` and
// `worker` conditions): the standard's and nothing more. Its init takes withCredentials alone; any other
// member, and `for await`, throws ERR_EVENTSOURCE_EXTENSION_NOT_LOADED, naming what to import instead
// (./web-extended-eventsource.js, `whatwg-eventsource/extensions`). Its bundle holds no extension: every
// request is the standard's GET, sent with the runtime's fetch, and nothing is published.

import { defineEventSource } from '../eventsource/eventsource.js'
import { createInitResolver } from '../eventsource/init.js'
import { TaskQueue } from '../eventsource/task-queue.js'
import { nextAttempt } from '../eventsource/reconnect.js'
import { runtimeMessageEvent } from '../eventsource/message-event.js'
import { standardRequest } from '../transport/request.js'
import { standardTransport } from '../transport/transport-web.js'

const EventSource = defineEventSource({
  resolveInit: createInitResolver(),
  TaskQueue,
  nextAttempt,
  buildRequest: standardRequest,
  previousAttempt: null,
  transport: standardTransport,
  iterators: null,
  followSignal: null,
  Diagnostics: null,
  createMessageEvent: runtimeMessageEvent
})

export { EventSource }
