'use strict'

// A message of a type nobody listens for is not created at all (firing it would have no observable
// effect); every type someone listens for still gets its MessageEvent, in order. Whether anyone
// listens is asked of EventTarget itself, for each event (lib/platform/listeners-node.js): EventSource has no
// addEventListener of its own.

const t = require('tap')
const { EventSource } = require('../../')
const { serve, sse, record, closeAtTeardown, onceBounded } = require('../helpers/index.cjs')

// Counts the MessageEvents EventSource creates, by type, while the test runs. They are not made by the
// global MessageEvent's constructor (lib/eventsource/message-event.js) but by a class that extends the
// global Event: counting Events that are MessageEvents counts them. A new global MessageEvent makes the
// package build that class again, on the counting Event.
function countMessageEvents (t) {
  const { Event: OriginalEvent, MessageEvent: OriginalMessageEvent } = globalThis
  const created = []
  globalThis.Event = class CountingEvent extends OriginalEvent {
    constructor (type, init) {
      super(type, init)
      if (this instanceof OriginalMessageEvent) created.push(type)
    }
  }
  globalThis.MessageEvent = class extends OriginalMessageEvent {}
  t.teardown(() => {
    globalThis.Event = OriginalEvent
    globalThis.MessageEvent = OriginalMessageEvent
  })
  return created
}

const STREAM = 'event: other\ndata: 1\n\ndata: 2\n\nevent: other\ndata: 3\n\nevent: late\ndata: 4\n\nevent: done\ndata: 5\n\n'

t.test('only listened-for types are created', async (t) => {
  const created = countMessageEvents(t)
  const srv = await serve(t, (req, res) => sse(res, STREAM, { end: false }))
  const es = srv.eventSource('/')
  const rec = record(es, ['message', 'done'])
  await rec.wait('done')
  t.same(rec.events.map((e) => [e.type, e.data]), [['message', '2'], ['done', '5']])
  t.same(created, ['message', 'done'], 'no MessageEvent for "other" and "late"')
})

t.test('a type is listened-for while it has a listener: on*, once', async (t) => {
  const created = countMessageEvents(t)
  const srv = await serve(t, (req, res) => sse(res, STREAM, { end: false }))
  const es = srv.eventSource('/')
  const seen = []
  es.onmessage = (event) => seen.push(['onmessage', event.data])
  es.addEventListener('other', (event) => seen.push(['other', event.data]), { once: true })
  await onceBounded(es, 'done')
  t.same(seen, [['other', '1'], ['onmessage', '2']], 'the once listener ran once')
  t.same(created, ['other', 'message', 'done'], 'once the once listener went, "other" is not created')
})

t.test('listeners added or removed by any path count', async (t) => {
  const created = countMessageEvents(t)
  const srv = await serve(t, (req, res) => sse(res, STREAM, { end: false }))
  const es = srv.eventSource('/')
  const seen = []
  // EventTarget's own method, not through the instance.
  EventTarget.prototype.addEventListener.call(es, 'late', (event) => seen.push(['late', event.data]))
  // A listener removed by its signal before the event.
  const controller = new AbortController()
  es.addEventListener('other', (event) => seen.push(['other', event.data]), { signal: controller.signal })
  controller.abort()
  const listener = (event) => seen.push(['removed', event.data])
  es.addEventListener('other', listener)
  es.removeEventListener('other', listener)
  await onceBounded(es, 'done')
  t.same(seen, [['late', '4']])
  t.same(created, ['late', 'done'], 'only the listened-for types')
})

t.test('a listeners() method of a subclass or an expando changes nothing', async (t) => {
  // Node's EventTarget is asked directly (getEventListeners() would call such a method instead).
  class WithListeners extends EventSource {
    listeners () { return [] }
  }
  for (const [name, make] of [
    ['a subclass', (url) => new WithListeners(url, { reconnectionTime: 10 })],
    ['an expando', (url) => Object.assign(new EventSource(url, { reconnectionTime: 10 }), { listeners: () => [] })]
  ]) {
    const created = countMessageEvents(t)
    const srv = await serve(t, (req, res) => sse(res, STREAM, { end: false }))
    const es = closeAtTeardown(t, make(srv.url('/')))
    const seen = []
    es.addEventListener('late', (event) => seen.push(event.data))
    await onceBounded(es, 'done')
    t.same(seen, ['4'], `${name}: listened-for types are dispatched`)
    t.same(created, ['late', 'done'], `${name}: the others are not created`)
    es.close()
  }
})

t.test('for await receives every type, listened-for or not', async (t) => {
  const created = countMessageEvents(t)
  const srv = await serve(t, (req, res) => sse(res, STREAM, { end: false }))
  const es = srv.eventSource('/')
  const types = []
  for await (const event of es) {
    types.push(event.type)
    if (event.type === 'done') break
  }
  t.same(types, ['other', 'message', 'other', 'late', 'done'])
  t.same(created, types)
})

t.test('addEventListener is EventTarget\'s', async (t) => {
  t.equal(EventSource.prototype.addEventListener, EventTarget.prototype.addEventListener)
  t.notOk(Object.hasOwn(EventSource.prototype, 'addEventListener'))
})
