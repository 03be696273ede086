'use strict'

// The parser's two extensions for streams that end where their producer stopped, and for consumers that take a
// network chunk at a time: options.incompleteEvent ('dispatch': end() dispatches an event without its blank line,
// its unterminated last line read as a line), on EventSourceParser and both stream forms; and `batch: true` on the
// stream forms (one array of events per chunk written). Off by default, as the standard reads.

const t = require('tap')
const { Readable } = require('node:stream')
const { EventSourceParser, EventSourceStream, EventSourceParserStream } = require('../../')
const { everySplit, toBytes, readableStreamOf } = require('../helpers/index.cjs')

function parseWith (options, chunks) {
  const events = []
  const parser = new EventSourceParser({ ...options, onEvent: (type, data, id) => events.push([type, data, id]) })
  for (const chunk of chunks) parser.write(chunk)
  parser.end()
  return events
}

t.test('EventSourceParser: end() dispatches the incomplete event at every split of the stream', async (t) => {
  const stream = 'data: a\n\nid: 5\nevent: x\ndata: b\ndata: c'
  for (const { name, chunks } of everySplit(toBytes(stream))) {
    t.same(parseWith({ incompleteEvent: 'dispatch' }, chunks), [['message', 'a', ''], ['x', 'b\nc', '5']], name)
  }
  t.same(parseWith({}, [toBytes(stream)]), [['message', 'a', '']], 'discarded by default')
  t.same(parseWith({ incompleteEvent: 'discard' }, [toBytes(stream)]), [['message', 'a', '']])
})

t.test('what counts as the incomplete event', async (t) => {
  const cases = [
    ['data: a\n\n', [['message', 'a', '']], 'a complete stream: nothing more'],
    ['data: a\n\ndata: b\r', [['message', 'a', ''], ['message', 'b', '']], 'a last line end of CR'],
    ['id: 1\n', [], 'an id alone dispatches nothing (it sets the last event ID)'],
    ['data', [['message', '', '']], 'a name alone: an empty data line'],
    [': comment', [], 'a comment'],
    ['\ufeffdata: x', [['message', 'x', '']], 'after a BOM'],
    ['\xef\xbb', [], 'half a BOM']
  ]
  for (const [stream, expected, name] of cases) {
    const bytes = name === 'half a BOM' ? new Uint8Array([0xef, 0xbb]) : toBytes(stream)
    t.same(parseWith({ incompleteEvent: 'dispatch' }, [bytes]), expected, name)
  }
})

t.test('end() from a callback of end() does not dispatch twice', async (t) => {
  const events = []
  const parser = new EventSourceParser({
    incompleteEvent: 'dispatch',
    onEvent (type, data) { events.push(data); parser.end() }
  })
  parser.write(toBytes('data: a'))
  parser.end()
  t.same(events, ['a'])
})

t.test('options.incompleteEvent is checked', async (t) => {
  for (const value of ['yes', true, null]) {
    t.throws(() => new EventSourceParser({ onEvent () {}, incompleteEvent: value }), { code: 'ERR_INVALID_ARG_VALUE' })
    t.throws(() => new EventSourceParserStream({ incompleteEvent: value }), { code: 'ERR_INVALID_ARG_VALUE' })
    t.throws(() => new EventSourceStream({ incompleteEvent: value }), { code: 'ERR_INVALID_ARG_VALUE' })
  }
})

// The chunks a stream form yields, read to its end.
async function readAll (readable) {
  const out = []
  for await (const chunk of readable) out.push(chunk)
  return out
}

t.test('EventSourceParserStream: incompleteEvent at flush, batch per chunk', async (t) => {
  const chunks = ['data: a\n\ndata: b\n\n', ': nothing\n\n', 'data: c\n\ndata: d']
  t.same(await readAll(readableStreamOf(chunks).pipeThrough(new EventSourceParserStream({ batch: true, incompleteEvent: 'dispatch' }))), [
    [{ type: 'message', data: 'a', lastEventId: '' }, { type: 'message', data: 'b', lastEventId: '' }],
    [{ type: 'message', data: 'c', lastEventId: '' }],
    [{ type: 'message', data: 'd', lastEventId: '' }]
  ], 'no empty array for a chunk without an event; the last event at flush')
  t.same((await readAll(readableStreamOf(chunks).pipeThrough(new EventSourceParserStream()))).map((e) => e.data),
    ['a', 'b', 'c'], 'one object per event, the incomplete one discarded, by default')
  const strings = new ReadableStream({
    start (controller) { controller.enqueue('data: s1\n\ndata: s2\n\n'); controller.close() }
  })
  t.same((await readAll(strings.pipeThrough(new EventSourceParserStream({ batch: true })))).map((b) => b.length), [2],
    'string chunks are batched too')
})

t.test('EventSourceStream (node:stream): incompleteEvent at flush, batch per chunk', async (t) => {
  const chunks = ['data: a\n\ndata: b\n\n', 'data: c\n\ndata: d'].map((c) => Buffer.from(c))
  const batched = await readAll(Readable.from(chunks).pipe(new EventSourceStream({ batch: true, incompleteEvent: 'dispatch' })))
  t.same(batched.map((batch) => batch.map((e) => e.data)), [['a', 'b'], ['c'], ['d']])
  const plain = await readAll(Readable.from(chunks).pipe(new EventSourceStream()))
  t.same(plain.map((e) => e.data), ['a', 'b', 'c'])
})
