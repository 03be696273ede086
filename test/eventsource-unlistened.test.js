'use strict'

// A message of a type nobody listens for is not created at all (firing it would have no observable
// effect); every type someone listens for still gets its MessageEvent, in order.

const t = require('tap')
const { EventSource } = require('../')
const { createServer, sse, Recorder } = require('./helpers/sse-server')

// Counts the MessageEvents EventSource creates, by type, while the test runs.
function countMessageEvents (t) {
  const Original = globalThis.MessageEvent
  const created = []
  globalThis.MessageEvent = class CountingMessageEvent extends Original {
    constructor (type, init) {
      super(type, init)
      created.push(type)
    }
  }
  t.teardown(() => { globalThis.MessageEvent = Original })
  return created
}

const STREAM = 'event: other\ndata: 1\n\ndata: 2\n\nevent: other\ndata: 3\n\nevent: late\ndata: 4\n\nevent: done\ndata: 5\n\n'

t.test('only listened-for types are created', async (t) => {
  const created = countMessageEvents(t)
  const srv = await createServer(t, (req, res) => sse(res, STREAM, { end: false }))
  const es = srv.eventSource('/')
  const rec = new Recorder(es, ['message', 'done'])
  await rec.wait('done')
  t.same(rec.events.map((e) => [e.type, e.data]), [['message', '2'], ['done', '5']])
  t.same(created, ['message', 'done'], 'no MessageEvent for "other" and "late"')
})

t.test('a type becomes listened-for when a listener is added, also through on* and with once', async (t) => {
  const created = countMessageEvents(t)
  const srv = await createServer(t, (req, res) => sse(res, STREAM, { end: false }))
  const es = srv.eventSource('/')
  const seen = []
  es.onmessage = (event) => seen.push(['onmessage', event.data])
  es.addEventListener('other', (event) => seen.push(['other', event.data]), { once: true })
  await new Promise((resolve) => es.addEventListener('done', resolve))
  t.same(seen, [['other', '1'], ['onmessage', '2']], 'the once listener ran once')
  // After the once listener went, "other" is still created: dropping it would need to know that the
  // listener is gone, which EventTarget does not tell.
  t.same(created, ['other', 'message', 'other', 'done'])
})

t.test('for await receives every type, listened-for or not', async (t) => {
  const created = countMessageEvents(t)
  const srv = await createServer(t, (req, res) => sse(res, STREAM, { end: false }))
  const es = srv.eventSource('/')
  const types = []
  for await (const event of es) {
    types.push(event.type)
    if (event.type === 'done') break
  }
  t.same(types, ['other', 'message', 'other', 'late', 'done'])
  t.same(created, types)
})

t.test('addEventListener keeps EventTarget\'s behaviour and checks its receiver', async (t) => {
  const es = new EventSource('http://127.0.0.1:1/')
  es.close()
  const calls = []
  const listener = (event) => calls.push(event.type)
  es.addEventListener('x', listener)
  es.addEventListener('x', listener) // a duplicate is ignored, as EventTarget does
  es.addEventListener('x', null) // null is allowed and does nothing
  es.dispatchEvent(new Event('x'))
  t.same(calls, ['x'])
  t.throws(() => EventSource.prototype.addEventListener.call(new EventTarget(), 'x', listener), TypeError)
})
