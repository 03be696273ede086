// The EventSource of Node, Bun and Deno, which every entry point there exports: the standard's, with
// every extension of the init dictionary and `for await`, its requests sent by undici or a fetch
// (lib/transport/transport-node.js) and its life published on diagnostics_channel.

import { defineEventSource } from '../eventsource/eventsource.js'
import { createInitResolver } from '../eventsource/init.js'
import { resolveExtensions } from '../eventsource/init-extensions.js'
import { sharedInit } from '../eventsource/shared-init.js'
import { TaskQueue } from '../eventsource/task-queue.js'
import { decide } from '../eventsource/reconnect-policy.js'
import { MessageIterators, finishedIterator } from '../eventsource/message-iterator.js'
import { followSignal } from '../eventsource/abort-signal.js'
import { createMessageEvent } from '../eventsource/message-event.js'
import { SourceDiagnostics } from '../eventsource/diagnostics-node.js'
import { buildRequest, previousAttempt } from '../transport/request.js'
import { nodeTransport } from '../transport/transport-node.js'

const EventSource = defineEventSource({
  // Sources opened with the same options share their resolved dictionary: a server holds thousands.
  resolveInit: createInitResolver({ resolveExtensions, share: sharedInit }),
  TaskQueue,
  nextAttempt: decide,
  buildRequest,
  previousAttempt,
  transport: nodeTransport,
  iterators: { MessageIterators, finishedIterator },
  followSignal,
  Diagnostics: SourceDiagnostics,
  createMessageEvent
})

export { EventSource }
