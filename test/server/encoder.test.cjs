'use strict'

// The encoder (lib/server/encoder.js): the exact bytes of each field, the values the format cannot carry refused
// with nothing written, the injections that the peers' encoders let through (issue 49) as vectors, and the same
// bytes from the web side of #bytes (workers). Decoding is test/server/encoder-roundtrip.test.cjs's.

const t = require('tap')
const { encodeEvent, encodeEvents, formatEvent } = require('../../lib/entries/server.js')
const { EventSourceParser } = require('../../lib/entries/index.js')
const { importBrowserBuild } = require('../helpers/bundle.cjs')

const text = (bytes) => Buffer.from(bytes).toString('utf8')

// Decodes with this package's parser: [type, data, lastEventId] per event.
function decode (bytes) {
  const events = []
  const parser = new EventSourceParser({ onEvent: (type, data, id) => events.push([type, data, id]) })
  parser.write(bytes)
  return events
}

const VECTORS = [
  ['plain data', { data: 'hello' }, 'data: hello\n\n'],
  ['LF in data: a line each', { data: 'a\nb' }, 'data: a\ndata: b\n\n'],
  ['CRLF and CR in data, and a trailing line end', { data: 'a\r\nb\rc\n' }, 'data: a\ndata: b\ndata: c\ndata: \n\n'],
  ['a lone CR', { data: '\r' }, 'data: \ndata: \n\n'],
  ['empty data: one empty line, which a client dispatches', { data: '' }, 'data: \n\n'],
  ['a leading space kept', { data: ' lead', event: ' x', id: ' 1' }, 'event:  x\nid:  1\ndata:  lead\n\n'],
  ['every field, in order', { comment: 'c', event: 'e', id: '7', retry: 1500, data: 'd' }, ': c\nevent: e\nid: 7\nretry: 1500\ndata: d\n\n'],
  ['an empty id, which resets the last event ID, is written', { id: '', data: 'x' }, 'id: \ndata: x\n\n'],
  ['retry 0', { retry: 0 }, 'retry: 0\n\n'],
  ['a comment of several lines stays comments', { comment: 'one\ntwo\r\nthree' }, ': one\n: two\n: three\n\n'],
  ['an empty comment', { comment: '' }, ': \n\n'],
  ['multi-byte characters', { data: 'é😀€', event: 'ü' }, 'event: ü\ndata: é😀€\n\n'],
  ['a BOM in a value is a character, and never the first bytes of a stream', { data: '\ufeffx' }, 'data: \ufeffx\n\n'],
  ['NUL in data and event is a character', { data: 'a\0b', event: '\0' }, 'event: \0\ndata: a\0b\n\n'],
  // better-sse with `serializer: String` drops the second line of `a\nb`.
  ['a multi-line value keeps its every line', { data: 'a\nb' }, 'data: a\ndata: b\n\n'],
  // @fastify/sse and fastify-sse-v2 split on LF only: a CR in data injects a field.
  ['a CR in data injects nothing', { data: 'x\revent: evil' }, 'data: x\ndata: event: evil\n\n']
]

t.test('each field as the standard reads it', async (t) => {
  for (const [name, event, expected] of VECTORS) {
    t.equal(text(encodeEvent(event)), expected, name)
    t.equal(formatEvent(event), expected, `${name} (formatEvent)`)
  }
  t.equal(text(encodeEvents(VECTORS.map(([, event]) => event))), VECTORS.map(([, , expected]) => expected).join(''),
    'a batch is the events one after the other')
  t.equal(text(encodeEvents(new Set([{ data: 'a' }, { data: 'b' }]))), 'data: a\n\ndata: b\n\n', 'any iterable')
  t.equal(encodeEvents([]).length, 0, 'no events, no bytes')
  t.ok(Buffer.isBuffer(encodeEvent({ data: 'x' })), 'a Buffer on Node')
})

t.test('what a client sees of the vectors that carry an injection attempt', async (t) => {
  t.same(decode(encodeEvent({ data: 'x\revent: evil' })), [['message', 'x\nevent: evil', '']], 'one message event, data intact')
  t.same(decode(encodeEvent({ data: 'a\nb' })), [['message', 'a\nb', '']])
  t.same(decode(encodeEvent({ data: '  two spaces' })), [['message', '  two spaces', '']], 'durable-streams loses the space')
  t.same(decode(encodeEvent({ data: '' })), [['message', '', '']], 'an empty data value is an event')
})

t.test('what the format cannot carry is refused, and nothing is written', async (t) => {
  const refused = [
    [{ id: '1\n\ndata: injected' }, 'ERR_INVALID_ARG_VALUE', /"event.id" property must not contain a line end/],
    [{ id: 'a\rb', data: 'x' }, 'ERR_INVALID_ARG_VALUE', /line end/],
    [{ event: 'x\ndata: y', data: 'z' }, 'ERR_INVALID_ARG_VALUE', /"event.event" property must not contain a line end/],
    [{ event: 'x\r' }, 'ERR_INVALID_ARG_VALUE', /line end/],
    [{ id: 'a\0', data: 'x' }, 'ERR_INVALID_ARG_VALUE', /must not contain NUL/],
    [{ retry: -1 }, 'ERR_OUT_OF_RANGE', /non-negative integer/],
    [{ retry: 1.5 }, 'ERR_OUT_OF_RANGE', /non-negative integer/],
    [{ retry: Infinity }, 'ERR_OUT_OF_RANGE', /non-negative integer/],
    [{ retry: '10' }, 'ERR_INVALID_ARG_TYPE', /"event.retry" property must be of type number/],
    [{ data: 5 }, 'ERR_INVALID_ARG_TYPE', /"event.data" property must be of type string/],
    [{ data: { a: 1 } }, 'ERR_INVALID_ARG_TYPE', /of type string/],
    [{ comment: null }, 'ERR_INVALID_ARG_TYPE', /"event.comment"/],
    [{ event: 1, data: 'x' }, 'ERR_INVALID_ARG_TYPE', /"event.event"/],
    [{ id: 1, data: 'x' }, 'ERR_INVALID_ARG_TYPE', /"event.id"/],
    [{}, 'ERR_INVALID_ARG_VALUE', /has none of data, event, id, retry and comment/],
    [{ date: 'typo' }, 'ERR_INVALID_ARG_VALUE', /has none of/],
    [null, 'ERR_INVALID_ARG_TYPE', /"event" argument must be of type object/],
    ['data: x', 'ERR_INVALID_ARG_TYPE', /of type object/]
  ]
  for (const [event, code, message] of refused) {
    t.throws(() => encodeEvent(event), { code, message }, `${JSON.stringify(event)}: ${code}`)
    t.throws(() => formatEvent(event), { code }, 'formatEvent too')
  }
  t.throws(() => encodeEvents([{ data: 'fine' }, { id: 'x\n' }]), { code: 'ERR_INVALID_ARG_VALUE', message: /"events\[1\].id"/ },
    'a batch names the event, and encodes none of it')
  t.throws(() => encodeEvents(42), { code: 'ERR_INVALID_ARG_TYPE', message: /iterable of events/ })
  t.throws(() => encodeEvents(null), { code: 'ERR_INVALID_ARG_TYPE' })
})

t.test('long values of many lines: linear, exact', async (t) => {
  const lines = Array.from({ length: 20000 }, (_, i) => `line ${i} é`)
  const data = lines.join('\r\n')
  const bytes = encodeEvent({ data })
  t.equal(text(bytes), lines.map((line) => `data: ${line}\n`).join('') + '\n')
  t.same(decode(bytes), [['message', lines.join('\n'), '']])
  // Only LFs, and no CR anywhere: the search for a CR must not start over at each line.
  const lf = 'x\n'.repeat(100000)
  t.equal(encodeEvent({ data: lf }).length, 100000 * 8 + 7 + 1)
})

t.test('the web side of #bytes (workers) writes the same bytes', async (t) => {
  const { exports, modules } = await importBrowserBuild(t, "export * from './lib/entries/server.browser.js'")
  const { encodeEvent: webEncodeEvent, encodeEvents: webEncodeEvents } = exports
  t.ok(modules.includes('lib/platform/bytes-web.js'), 'the web side of #bytes')
  const events = [...VECTORS.map(([, event]) => event), { data: 'lone \ud800 surrogate\r\n😀' }, { comment: 'x\ny', data: 'é'.repeat(3000) }]
  for (const event of events) {
    const web = webEncodeEvent(event)
    t.notOk(Buffer.isBuffer(web), 'a plain Uint8Array')
    t.same(Buffer.from(web), encodeEvent(event), JSON.stringify(event).slice(0, 40))
  }
  t.same(Buffer.from(webEncodeEvents(events)), encodeEvents(events), 'a batch')
})
