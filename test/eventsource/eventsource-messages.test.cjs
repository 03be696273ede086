'use strict'

// The events EventSource dispatches from a real stream: MessageEvent fields, types, order, the
// last event ID, and what is not dispatched. The parser's grammar has its own suites (test/parser/);
// this file checks what reaches listeners through the network path.
// https://html.spec.whatwg.org/multipage/server-sent-events.html#dispatchMessage

const t = require('tap')
const { EventSource } = require('../../')
const { serve, sse, record } = require('../helpers/index.cjs')

// Serves `chunks` on one open response, one write each, and waits for `count` events of the types.
async function collect (t, chunks, { types = ['message'], count = 1, host } = {}) {
  const srv = await serve(t, (req, res) => {
    sse(res)
    for (const chunk of chunks) res.write(chunk)
  }, { host })
  const es = srv.eventSource('/')
  const rec = record(es, [...new Set(['open', 'error', ...types])])
  await rec.wait(types[types.length - 1], count)
  return { srv, es, rec }
}

t.test('a message is a MessageEvent with data, origin and lastEventId', async (t) => {
  const { srv, es, rec } = await collect(t, ['id: 1\ndata: hello\n\n'])
  const { event } = await rec.wait('message')
  t.ok(event instanceof MessageEvent, 'instanceof MessageEvent (the Node global)')
  t.equal(event.constructor, globalThis.MessageEvent)
  t.equal(event.type, 'message')
  t.equal(event.data, 'hello')
  t.equal(event.origin, srv.origin)
  t.equal(event.lastEventId, '1')
  t.equal(event.source, null)
  t.same(event.ports, [])
  t.equal(event.bubbles, false)
  t.equal(event.cancelable, false)
  t.equal(event.target, es)
})

t.test('origin is the serialized origin of the URL', async (t) => {
  const { srv, rec } = await collect(t, ['data: x\n\n'], { host: 'localhost' })
  t.equal((await rec.wait('message')).origin, `http://localhost:${srv.port}`)
})

t.test('events are dispatched in stream order, with their types', async (t) => {
  const types = ['message', 'add', 'remove', 'open', 'error', 'Message']
  const body = 'data: m1\n\nevent: add\ndata: a1\n\nevent: remove\ndata: r1\n\nevent: open\ndata: fake-open\n\n' +
    'event: error\ndata: fake-error\n\nevent: Message\ndata: M\n\nevent: add\ndata: a2\n\nevent:\ndata: m2\n\n'
  const { es, rec } = await collect(t, [body], { types })
  await rec.wait('message', 2)
  t.same(rec.events.map((e) => `${e.type}:${e.data}`), [
    'open:undefined', 'message:m1', 'add:a1', 'remove:r1', 'open:fake-open', 'error:fake-error',
    'Message:M', 'add:a2', 'message:m2'
  ], 'an empty event name means message; names are case-sensitive; any name may be used')
  t.ok(rec.events[4].event instanceof MessageEvent, 'an event named open from the stream is a MessageEvent')
  t.equal(es.readyState, EventSource.OPEN, 'a fake error event changes nothing')
  t.same(rec.events.map((e) => e.readyState), Array(9).fill(EventSource.OPEN))
})

t.test('onmessage sees only events of type message', async (t) => {
  const srv = await serve(t, (req, res) => sse(res, 'event: other\ndata: 1\n\ndata: 2\n\n', { end: false }))
  const es = srv.eventSource('/')
  const seen = []
  es.onmessage = (e) => seen.push(e.data)
  await record(es).wait('message')
  t.same(seen, ['2'])
})

t.test('data lines are joined with LF; a final LF is removed', async (t) => {
  const { rec } = await collect(t, ['data: a\ndata:b\ndata:  c\ndata\ndata:\n\n', 'data\n\n', 'data:\ndata:\n\n'], { count: 3 })
  t.same(rec.data(), ['a\nb\n c\n\n', '', '\n'])
})

t.test('events without data are not dispatched but set the last event ID', async (t) => {
  const { rec } = await collect(t, ['id: 1\n\nevent: x\n\nid: 2\nevent: y\n\n: comment\n\ndata: after\n\n'],
    { types: ['x', 'y', 'message'] })
  t.same(rec.types, ['open', 'message'])
  t.equal(rec.events[1].lastEventId, '2')
  t.equal(rec.events[1].data, 'after')
})

t.test('the event type does not leak into the next event', async (t) => {
  const { rec } = await collect(t, ['event: x\n\ndata: plain\n\n'], { types: ['x', 'message'] })
  t.same(rec.types, ['open', 'message'])
})

t.test('lastEventId persists across events until changed or reset', async (t) => {
  const { rec } = await collect(t, ['id: a\ndata: 1\n\ndata: 2\n\nid:\ndata: 3\n\nid: b\ndata: 4\n\ndata: 5\n\n'], { count: 5 })
  t.same(rec.events.filter((e) => e.type === 'message').map((e) => [e.data, e.lastEventId]),
    [['1', 'a'], ['2', 'a'], ['3', ''], ['4', 'b'], ['5', 'b']])
})

t.test('UTF-8 data, split anywhere between writes', async (t) => {
  const text = 'héllo ☃ 😀 \u{10FFFF}'
  const bytes = Buffer.from(`data: ${text}\nid: ☃\n\n`)
  const { rec } = await collect(t, [...bytes].map((b) => Buffer.from([b])))
  const message = await rec.wait('message')
  t.equal(message.data, text)
  t.equal(message.lastEventId, '☃')
})

t.test('invalid UTF-8 becomes U+FFFD', async (t) => {
  const { rec } = await collect(t, [Buffer.from([0x64, 0x61, 0x74, 0x61, 0x3a, 0x20, 0x61, 0xff, 0xc3, 0x62, 0x0a, 0x0a])])
  t.equal((await rec.wait('message')).data, 'a\ufffd\ufffdb')
})

t.test('a charset parameter does not change the decoding', async (t) => {
  const srv = await serve(t, (req, res) => {
    sse(res, undefined, { headers: { 'content-type': 'text/event-stream; charset=iso-8859-1' } })
    res.write(Buffer.from('data: é\n\n', 'utf8'))
  })
  t.equal((await record(srv.eventSource('/')).wait('message')).data, 'é', 'always UTF-8')
})

t.test('line endings CR, LF and CRLF, also split between writes', async (t) => {
  const { rec } = await collect(t, ['data: a\r', '\ndata: b\r\r', 'data: c\n', '\n', 'data: d\r\n\r', '\n'], { count: 3 })
  t.same(rec.data(), ['a\nb', 'c', 'd'])
})

t.test('a leading BOM is dropped, a later one is data', async (t) => {
  const { rec } = await collect(t, [Buffer.from([0xef]), Buffer.from([0xbb, 0xbf]), 'data: 1\n\n\ufeffdata: 2\n\ndata: \ufeff3\n\n'], { count: 2 })
  t.same(rec.data(), ['1', '\ufeff3'], 'the second BOM makes an unknown field name')
})

t.test('comments and unknown fields are ignored', async (t) => {
  const { rec } = await collect(t, [': ping\n:\ndata: x\nfoo: bar\nDATA: y\n data: z\n\n'])
  t.same(rec.data(), ['x'])
})

t.test('many events in one chunk and one event over many chunks', async (t) => {
  const many = Array.from({ length: 500 }, (_, i) => `data: ${i}\n\n`).join('')
  const big = 'z'.repeat(100_000)
  const pieces = []
  for (let i = 0; i < big.length; i += 7000) pieces.push(big.slice(i, i + 7000))
  const { rec } = await collect(t, [many, 'data: ', ...pieces, '\n\n'], { count: 501 })
  const data = rec.data()
  t.same(data.slice(0, 500), Array.from({ length: 500 }, (_, i) => String(i)))
  t.equal(data[500], big)
})
