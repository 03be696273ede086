'use strict'

// The MessageEvents an EventSource dispatches are built without the runtime's WebIDL dictionary path
// (lib/eventsource/message-event.js), and must be the runtime's MessageEvents for everything code and
// the web-platform tests look at: instanceof, constructor, toString, the attributes and their
// descriptors, isTrusted, the Event methods, on* handlers with addEventListener, and a globalThis
// MessageEvent that a program replaced.

const t = require('tap')
const { EventSource } = require('../../')
const { serve, sse, record, closeAtTeardown } = require('../helpers/index.cjs')

async function firstMessage (t, body = 'id: 7\ndata: hello\n\n', init) {
  const srv = await serve(t, (req, res) => sse(res, body, { end: false }))
  const es = closeAtTeardown(t, new EventSource(srv.url('/'), init))
  const { event } = await record(es).wait('message')
  return { srv, es, event }
}

t.test('the runtime\'s MessageEvent, by every check', async (t) => {
  const { srv, es, event } = await firstMessage(t)
  t.ok(event instanceof MessageEvent, 'instanceof MessageEvent')
  t.ok(event instanceof Event, 'instanceof Event')
  t.equal(event.constructor, globalThis.MessageEvent, 'constructor')
  t.equal(Object.prototype.toString.call(event), Object.prototype.toString.call(new MessageEvent('x')), 'toString, as the runtime\'s')
  t.same([event.type, event.data, event.origin, event.lastEventId, event.source], ['message', 'hello', srv.origin, '7', null])
  t.same(event.ports, [], 'ports: empty')
  t.ok(Object.isFrozen(event.ports), 'ports: a frozen array')
  t.equal(event.isTrusted, false, 'isTrusted: false, as for any event made by script (browsers: true)')
  t.same([event.bubbles, event.cancelable, event.defaultPrevented, event.eventPhase], [false, false, false, Event.NONE])
  t.equal(event.target, es)
  t.same(Object.keys(event), [], 'no own enumerable property')
  t.same(Object.getOwnPropertyNames(event).filter((name) => name !== 'isTrusted'), [], 'no own property but what Event gives')
  for (const name of ['data', 'origin', 'lastEventId', 'source', 'ports']) {
    let descriptor
    for (let proto = Object.getPrototypeOf(event); proto !== null && descriptor === undefined; proto = Object.getPrototypeOf(proto)) {
      descriptor = Object.getOwnPropertyDescriptor(proto, name)
    }
    t.equal(typeof descriptor?.get, 'function', `${name}: a getter on the prototype`)
    t.equal(descriptor.set, undefined, `${name}: read-only`)
    t.equal(descriptor.enumerable, true, `${name}: enumerable, as a WebIDL attribute`)
    t.throws(() => descriptor.get.call({}), TypeError, `${name}: a foreign receiver throws`)
  }
  t.throws(() => { 'use strict'; event.data = 'x' }, TypeError, 'data cannot be assigned in strict code')
  t.equal(event.data, 'hello')
})

t.test('Event methods: composedPath, stopImmediatePropagation, an on* handler and listeners together', async (t) => {
  const srv = await serve(t, (req, res) => sse(res, 'data: 1\n\ndata: 2\n\n', { end: false }))
  const es = closeAtTeardown(t, new EventSource(srv.url('/')))
  const seen = []
  es.onmessage = (event) => {
    seen.push(['handler', event.data, event.composedPath().length === 1 && event.composedPath()[0] === es])
    if (event.data === '1') event.stopImmediatePropagation()
  }
  // The recorder after the handler, so that the handler is the first listener: what the handler stops,
  // the recorder does not see either.
  const rec = record(es)
  // (composedPath() is asked in the first listener only: Node's EventTarget answers [] from the second on,
  // whatever the event.)
  es.addEventListener('message', (event) => seen.push(['listener', event.data, event.target === es]))
  await rec.wait('message', 1)
  t.same(seen, [['handler', '1', true], ['handler', '2', true], ['listener', '2', true]],
    'the handler ran first; stopImmediatePropagation stopped the listeners after it for the first event only')
  t.same(rec.data(), ['2'], 'so the recorder, after the handler, saw the second only')
})

t.test('a program that replaced globalThis.MessageEvent before the first event: its class', async (t) => {
  const Runtime = globalThis.MessageEvent
  class ReplacedMessageEvent extends Runtime {}
  globalThis.MessageEvent = ReplacedMessageEvent
  t.teardown(() => { globalThis.MessageEvent = Runtime })
  const { event } = await firstMessage(t)
  t.ok(event instanceof ReplacedMessageEvent, 'instanceof the replacement')
  t.ok(event instanceof Runtime, 'and of the runtime\'s, which it extends')
  t.equal(event.constructor, ReplacedMessageEvent)
  t.equal(event.data, 'hello')
  globalThis.MessageEvent = Runtime
  const { event: after } = await firstMessage(t)
  t.equal(after.constructor, Runtime, 'put back: the runtime\'s again')
  t.notOk(after instanceof ReplacedMessageEvent)
})

t.test('initMessageEvent, the legacy initializer: before dispatch, not during it', async (t) => {
  const { event } = await firstMessage(t)
  event.initMessageEvent('other', false, false, 'new data', 'http://o.example', '9')
  t.same([event.type, event.data, event.origin, event.lastEventId], ['other', 'new data', 'http://o.example', '9'])
  const srv = await serve(t, (req, res) => sse(res, 'data: kept\n\n', { end: false }))
  const es = closeAtTeardown(t, new EventSource(srv.url('/')))
  const during = await new Promise((resolve) => {
    es.onmessage = (e) => {
      e.initMessageEvent('changed', false, false, 'changed')
      resolve([e.type, e.data])
    }
  })
  t.same(during, ['message', 'kept'], 'no change while it is dispatched')
})

// Browsers and workers get the runtime's own MessageEvent (lib/entries/web-eventsource.js): made by the
// global constructor of the moment, with the dictionary's members.
t.test('runtimeMessageEvent: the runtime\'s own MessageEvent, with data, origin and lastEventId', async (t) => {
  const { runtimeMessageEvent } = require('../../lib/eventsource/message-event.js')
  const event = runtimeMessageEvent('update', 'hello', 'http://127.0.0.1:1', '7')
  t.equal(Object.getPrototypeOf(event), MessageEvent.prototype, 'made by the global MessageEvent itself')
  t.same([event.type, event.data, event.origin, event.lastEventId], ['update', 'hello', 'http://127.0.0.1:1', '7'])
  t.same(Object.keys(event), [], 'no own enumerable property')
})

// Cloudflare's workerd before cloudflare/workerd#6995 read only `data` from the dictionary, and gives every
// MessageEvent origin (null) and lastEventId ('') as configurable, read-only own properties. A global
// MessageEvent made the same way stands for it here.
t.test('runtimeMessageEvent: a MessageEvent constructor that reads only data gets origin and lastEventId set', async (t) => {
  const { runtimeMessageEvent } = require('../../lib/eventsource/message-event.js')
  const Runtime = globalThis.MessageEvent
  class DataOnlyMessageEvent extends Runtime {
    constructor (type, init) {
      super(type, { data: init.data })
      Object.defineProperty(this, 'origin', { get: () => null, enumerable: true, configurable: true })
      Object.defineProperty(this, 'lastEventId', { get: () => '', enumerable: true, configurable: true })
    }
  }
  globalThis.MessageEvent = DataOnlyMessageEvent
  t.teardown(() => { globalThis.MessageEvent = Runtime })
  const event = runtimeMessageEvent('message', 'hello', 'http://127.0.0.1:1', '7')
  t.ok(event instanceof DataOnlyMessageEvent, 'the runtime\'s MessageEvent')
  t.same([event.data, event.origin, event.lastEventId], ['hello', 'http://127.0.0.1:1', '7'])
  t.throws(() => { 'use strict'; event.origin = 'x' }, TypeError, 'origin stays read-only')
  t.same(Object.keys(event), ['origin', 'lastEventId'], 'own enumerable properties, as that runtime has them')
})
