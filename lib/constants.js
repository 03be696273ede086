// Bytes the event-stream grammar cares about (HTML 9.2.5).
const LF = 0x0a
const CR = 0x0d
const SPACE = 0x20
const COLON = 0x3a
const NUL = 0x00
const DIGIT_0 = 0x30
const DIGIT_9 = 0x39

// The UTF-8 byte order mark: one leading occurrence is dropped from a stream.
const BOM = Object.freeze([0xef, 0xbb, 0xbf])

// EventSource readyState values (HTML 9.2.2).
const CONNECTING = 0
const OPEN = 1
const CLOSED = 2

// The kinds of task an EventSource queues (lib/eventsource/task-queue.js): each with up to three
// arguments.
const TASK_MESSAGE = 0 // type, data, lastEventId: "dispatch the event"
const TASK_ANNOUNCE = 1 // "announce the connection"
const TASK_REESTABLISH = 2 // error: "reestablish the connection"
const TASK_FAIL = 3 // error: "fail the connection"
const TASK_END = 4 // extension (closeOnEnd): the stream ended, close without reconnecting
const TASK_BATCH = 5 // messages: extension (init.onBatch), the messages of one chunk in one call

// What a Last-Event-ID header cannot hold: a control character other than tab (undici and Node's http
// refuse them in any header value); characters above U+007F are sent as their UTF-8 bytes. Such an
// init.lastEventId is refused (lib/validators/http.js); for such an ID from a server no header is sent.
// eslint-disable-next-line no-control-regex -- control characters are what it matches
const UNSENDABLE_LAST_EVENT_ID = /[\0-\x08\x0a-\x1f\x7f]/

// The default cap on the bytes buffered for one event: generous enough for any real event,
// small enough that a hostile server cannot take the process down.
const DEFAULT_MAX_EVENT_SIZE = 64 * 1024 * 1024

// The longest wait setTimeout takes (2^31 - 1 ms): it fires after 1 ms for anything larger, so a longer
// wait is capped here. A literal: a bundler keeps `2 ** 31 - 1` in bundles that never use it.
const MAX_TIMER_DELAY = 0x7fffffff

export {
  LF, CR, SPACE, COLON, NUL, DIGIT_0, DIGIT_9, BOM, CONNECTING, OPEN, CLOSED, TASK_MESSAGE, TASK_ANNOUNCE,
  TASK_REESTABLISH, TASK_FAIL, TASK_END, TASK_BATCH, UNSENDABLE_LAST_EVENT_ID, DEFAULT_MAX_EVENT_SIZE,
  MAX_TIMER_DELAY
}
