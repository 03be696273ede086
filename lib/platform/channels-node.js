// What EventSources do, published on diagnostics_channel, the way Node core and undici publish HTTP, so
// that APM tools and logs observe every source without wrapping user code. docs/diagnostics.md lists every
// channel and its message, and the attempt's TracingChannel; types/diagnostics.d.ts types them.
//
// The TracingChannel's stores run around sending the request, so the transport's own I/O, undici's or
// fetch's, happens in the subscriber's context: an attempt span becomes the parent of the HTTP spans.

// (process.getBuiltinModule: lib/platform/bytes-node.js says why.)
const dc = process.getBuiltinModule('node:diagnostics_channel')

const createChannel = dc.channel('whatwg-eventsource:create')
const connectChannel = dc.channel('whatwg-eventsource:connect')
const openChannel = dc.channel('whatwg-eventsource:open')
const messageChannel = dc.channel('whatwg-eventsource:message')
const errorChannel = dc.channel('whatwg-eventsource:error')
const closeChannel = dc.channel('whatwg-eventsource:close')
const attemptChannel = dc.tracingChannel('whatwg-eventsource:attempt')

function tracingAttempts () {
  return attemptChannel.hasSubscribers
}

// The context whose transport is starting, and whether its attempt ended during start(): a transport
// may report at once (an unsupported scheme fails in start()), and a TracingChannel's subscribers
// expect `end` before `asyncStart`, as Node's own traceCallback and tracePromise publish them.
let starting = null
let endedWhileStarting = false

// Starts the transport of an attempt inside the attempt's tracing context, the attempt's message.
function traceAttemptStart (context, start) {
  starting = context
  endedWhileStarting = false
  attemptChannel.start.runStores(context, () => {
    try {
      start()
    } finally {
      starting = null
      attemptChannel.end.publish(context)
    }
  })
  if (endedWhileStarting) {
    endedWhileStarting = false
    publishAttemptEnd(context)
  }
}

// The attempt is over; `error` is why, when it ended in one (a clean end of the body is not).
function traceAttemptEnd (context, error) {
  if (error !== null) context.error = error
  if (context === starting) endedWhileStarting = true
  else publishAttemptEnd(context)
}

function publishAttemptEnd (context) {
  if (context.error !== undefined) attemptChannel.error.publish(context)
  attemptChannel.asyncStart.publish(context)
  attemptChannel.asyncEnd.publish(context)
}

export {
  createChannel, connectChannel, openChannel, messageChannel, errorChannel, closeChannel, tracingAttempts,
  traceAttemptStart, traceAttemptEnd
}
