'use strict'

// The encoder is the parser's inverse (issue 49 item 1): for any events (any Unicode, any line ends, leading
// spaces, NUL, colons), this package's byte parser, eventsource-parser and undici's EventSourceStream each
// decode exactly what was encoded, where the one thing a value does not keep is its kind of line end (a client
// joins data lines with LF). Property-tested with fast-check, and every chunking for ours.

const t = require('tap')
const fc = require('fast-check')
const { encodeEvents } = require('../../lib/entries/server.js')
const { EventSourceParser } = require('../../lib/entries/index.js')
const { createParser } = require('eventsource-parser')
const { EventSourceStream: UndiciEventSourceStream } = require('undici/lib/web/eventsource/eventsource-stream.js')

const NUM_RUNS = 300

// Characters that matter to the format, and the rest of Unicode (astral included).
const piece = fc.oneof(
  fc.constantFrom('\n', '\r', '\r\n', ' ', ':', '\0', '\ufeff', 'data: ', 'id:', 'event: x', '\n\n'),
  fc.string({ unit: 'binary', maxLength: 8 })
)
const value = fc.array(piece, { maxLength: 12 }).map((pieces) => pieces.join(''))
const singleLine = value.map((v) => v.replace(/[\r\n]/g, ''))

const event = fc.record({
  data: fc.option(value, { nil: undefined }),
  event: fc.option(singleLine, { nil: undefined }),
  id: fc.option(singleLine.map((v) => v.replaceAll('\0', '')), { nil: undefined }),
  retry: fc.option(fc.nat(), { nil: undefined }),
  comment: fc.option(value, { nil: undefined })
}, { requiredKeys: [] }).filter((e) => Object.values(e).some((v) => v !== undefined))

// What a standard client dispatches for these events: [type, data, lastEventId], and the retries it takes.
// eventsource-parser gives each event its own block's id instead (`blockIds`).
function expected (events, { blockIds = false } = {}) {
  const dispatched = []
  const retries = []
  let lastEventId = ''
  for (const e of events) {
    if (e.id !== undefined) lastEventId = e.id
    if (e.retry !== undefined) retries.push(e.retry)
    if (e.data !== undefined) {
      dispatched.push([e.event || 'message', e.data.replace(/\r\n|\r/g, '\n'), blockIds ? e.id : lastEventId])
    }
  }
  return { dispatched, retries }
}

function decodeOurs (bytes, cuts) {
  const dispatched = []
  const retries = []
  const parser = new EventSourceParser({
    onEvent: (type, data, id) => dispatched.push([type, data, id]),
    onRetry: (ms) => retries.push(ms)
  })
  let from = 0
  for (const cut of [...cuts, bytes.length]) {
    parser.write(bytes.subarray(from, cut))
    from = cut
  }
  return { dispatched, retries }
}

function decodeEventsourceParser (bytes) {
  const dispatched = []
  const retries = []
  const parser = createParser({
    onEvent: ({ event, data, id }) => dispatched.push([event || 'message', data, id]),
    onRetry: (ms) => retries.push(ms)
  })
  parser.feed(new TextDecoder().decode(bytes))
  return { dispatched, retries }
}

async function decodeUndici (bytes) {
  const dispatched = []
  const settings = { lastEventId: '', origin: 'http://localhost', reconnectionTime: 3000 }
  const stream = new UndiciEventSourceStream({
    eventSourceSettings: settings,
    // (null: the end of the stream, which Transform pushes)
    push: (e) => e !== null && dispatched.push([e.type, e.options.data, e.options.lastEventId])
  })
  await new Promise((resolve, reject) => stream.end(Buffer.from(bytes), (error) => error ? reject(error) : resolve()))
  return { dispatched, reconnectionTime: settings.reconnectionTime }
}

t.test('any events: what is encoded is what three parsers decode', async (t) => {
  let events = 0
  await fc.assert(fc.asyncProperty(fc.array(event, { minLength: 1, maxLength: 8 }), fc.array(fc.nat(), { maxLength: 6 }),
    async (list, rawCuts) => {
      const bytes = encodeEvents(list)
      const want = expected(list)
      events += want.dispatched.length
      const cuts = rawCuts.map((c) => c % (bytes.length + 1)).sort((a, b) => a - b)
      const ours = decodeOurs(bytes, cuts)
      if (JSON.stringify(ours) !== JSON.stringify(want)) throw new Error(`ours: ${JSON.stringify(ours)} != ${JSON.stringify(want)}`)
      const esp = decodeEventsourceParser(bytes)
      const wantBlocks = expected(list, { blockIds: true })
      if (JSON.stringify(esp) !== JSON.stringify(wantBlocks)) throw new Error(`eventsource-parser: ${JSON.stringify(esp)}`)
      const undici = await decodeUndici(bytes)
      if (JSON.stringify(undici.dispatched) !== JSON.stringify(want.dispatched)) {
        throw new Error(`undici: ${JSON.stringify(undici.dispatched)}`)
      }
      const retry = want.retries.at(-1) ?? 3000
      if (undici.reconnectionTime !== retry) throw new Error(`undici retry ${undici.reconnectionTime} != ${retry}`)
    }), { numRuns: NUM_RUNS, seed: 49 })
  t.ok(events > NUM_RUNS, `${events} dispatched events compared, in ${NUM_RUNS} streams`)
})

t.test('the issue\'s injection vectors decode as one event each, in all three', async (t) => {
  const vectors = [
    { data: 'x\revent: evil' },
    { data: 'a\nb' },
    { data: 'x\r\n\r\ndata: injected' },
    { data: ' leading space', id: ' id with a space' },
    { data: 'x', comment: 'c\nevent: evil\ndata: y' }
  ]
  for (const vector of vectors) {
    const bytes = encodeEvents([vector])
    const want = expected([vector])
    t.same(decodeOurs(bytes, []), want, `ours: ${JSON.stringify(vector)}`)
    t.same(decodeEventsourceParser(bytes), expected([vector], { blockIds: true }), 'eventsource-parser')
    t.same((await decodeUndici(bytes)).dispatched, want.dispatched, 'undici')
  }
})
