'use strict'

// onopen / onmessage / onerror with the HTML event handler semantics.
// https://html.spec.whatwg.org/multipage/webappapis.html#event-handler-attributes
// Synthetic events are dispatched on closed instances (no network); the last test checks the
// handlers against events from a real server.

const t = require('tap')
const { EventSource } = require('../../')
const { serve, sse, record } = require('../helpers/index.cjs')

function inert () {
  const es = new EventSource('http://127.0.0.1:1/')
  es.close()
  return es
}

const TYPES = ['open', 'message', 'error']

t.test('handlers start as null', async (t) => {
  const es = inert()
  for (const type of TYPES) t.equal(es[`on${type}`], null, `on${type}`)
})

t.test('a function handler is returned by the getter and called with the event and this', async (t) => {
  for (const type of TYPES) {
    const es = inert()
    const calls = []
    const handler = function (event) { calls.push([this, event]) }
    es[`on${type}`] = handler
    t.equal(es[`on${type}`], handler, `on${type} getter`)
    const event = new Event(type)
    es.dispatchEvent(event)
    t.equal(calls.length, 1, `on${type} called once`)
    t.equal(calls[0][0], es, 'this is the EventSource')
    t.equal(calls[0][1], event, 'the event is passed')
    es.dispatchEvent(new Event(type === 'open' ? 'message' : 'open'))
    t.equal(calls.length, 1, 'not called for other types')
  }
})

// Node 20's EventTarget clears event.currentTarget after the first listener has run (it resets the
// event's dispatch flag after every listener), so a handler must not take its `this` from there.
t.test('this is the EventSource also when other listeners run first', async (t) => {
  for (const type of TYPES) {
    const es = inert()
    const seen = []
    es.addEventListener(type, () => {})
    es[`on${type}`] = function () { seen.push(this) }
    es.dispatchEvent(new Event(type))
    t.equal(seen.length, 1, `on${type} called`)
    t.equal(seen[0], es, `on${type}: this is the EventSource`)
  }
})

t.test('reassignment keeps the handler at its place among the listeners', async (t) => {
  const es = inert()
  const order = []
  es.addEventListener('message', () => order.push('A'))
  es.onmessage = () => order.push('H1')
  es.addEventListener('message', () => order.push('B'))
  es.onmessage = () => order.push('H2')
  es.dispatchEvent(new MessageEvent('message'))
  t.same(order, ['A', 'H2', 'B'])
})

t.test('null removes the handler; setting one again registers it at the end', async (t) => {
  const es = inert()
  const order = []
  es.addEventListener('message', () => order.push('A'))
  es.onmessage = () => order.push('H')
  es.addEventListener('message', () => order.push('B'))
  es.onmessage = null
  t.equal(es.onmessage, null)
  es.dispatchEvent(new MessageEvent('message'))
  t.same(order, ['A', 'B'], 'removed')
  order.length = 0
  es.onmessage = () => order.push('H')
  es.dispatchEvent(new MessageEvent('message'))
  t.same(order, ['A', 'B', 'H'], 'registered anew, last')
  es.onmessage = null
  es.onmessage = null // removing twice is harmless
  t.equal(es.onmessage, null)
})

t.test('non-object values are treated as null', async (t) => {
  for (const value of [undefined, 0, 1, '', 'alert(1)', true, false, Symbol('s'), 1n]) {
    const es = inert()
    let called = 0
    es.onerror = () => called++
    es.onerror = value
    t.equal(es.onerror, null, `${typeof value} becomes null`)
    es.dispatchEvent(new Event('error'))
    t.equal(called, 0, `${typeof value} removes the previous handler`)
  }
})

t.test('non-callable objects are kept but not called', async (t) => {
  const es = inert()
  const order = []
  const object = { handleEvent () { order.push('handleEvent') } }
  es.addEventListener('open', () => order.push('A'))
  es.onopen = object
  es.addEventListener('open', () => order.push('B'))
  t.equal(es.onopen, object, 'the getter returns the object itself')
  es.dispatchEvent(new Event('open'))
  t.same(order, ['A', 'B'], 'neither called nor handleEvent() used')
  // The object still holds the handler's place: a function assigned later runs there.
  es.onopen = () => order.push('H')
  order.length = 0
  es.dispatchEvent(new Event('open'))
  t.same(order, ['A', 'H', 'B'])
  // And a function can be replaced by an object again.
  const array = []
  es.onopen = array
  t.equal(es.onopen, array)
  order.length = 0
  es.dispatchEvent(new Event('open'))
  t.same(order, ['A', 'B'])
})

t.test('a handler returning false cancels the event', async (t) => {
  const es = inert()
  es.onerror = () => false
  const cancelable = new Event('error', { cancelable: true })
  t.equal(es.dispatchEvent(cancelable), false, 'dispatchEvent reports the cancellation')
  t.equal(cancelable.defaultPrevented, true)

  for (const value of [undefined, 0, '', null, true, 'false']) {
    es.onerror = () => value
    const event = new Event('error', { cancelable: true })
    es.dispatchEvent(event)
    t.equal(event.defaultPrevented, false, `returning ${JSON.stringify(value)} does not cancel`)
  }
  es.onerror = () => false
  const notCancelable = new Event('error')
  es.dispatchEvent(notCancelable)
  t.equal(notCancelable.defaultPrevented, false, 'a non-cancelable event stays uncancelled')
})

t.test('handlers are per instance and per type', async (t) => {
  const a = inert()
  const b = inert()
  const calls = []
  a.onmessage = () => calls.push('a')
  t.equal(b.onmessage, null, 'other instance unaffected')
  t.equal(a.onopen, null, 'other type unaffected')
  b.dispatchEvent(new MessageEvent('message'))
  a.dispatchEvent(new Event('open'))
  t.same(calls, [])
  a.dispatchEvent(new MessageEvent('message'))
  t.same(calls, ['a'])
})

t.test('a handler added inside a dispatch does not run for that event', async (t) => {
  const es = inert()
  const calls = []
  es.addEventListener('message', () => { es.onmessage = () => calls.push('late') })
  es.dispatchEvent(new MessageEvent('message'))
  t.same(calls, [], 'EventTarget snapshots the listeners')
  es.dispatchEvent(new MessageEvent('message'))
  t.same(calls, ['late'])
})

t.test('handlers run for real events, in order with addEventListener listeners', async (t) => {
  const srv = await serve(t, (req, res) => sse(res, 'data: one\n\n'))
  const es = srv.eventSource('/')
  const order = []
  for (const type of TYPES) {
    es.addEventListener(type, () => order.push(`${type}:listener-before`))
    es[`on${type}`] = (event) => {
      order.push(`${type}:handler:${es.readyState}${event.data === undefined ? '' : `:${event.data}`}`)
    }
    es.addEventListener(type, () => order.push(`${type}:listener-after`))
  }
  const rec = record(es)
  await rec.wait('error')
  es.close()
  t.same(order, [
    'open:listener-before', 'open:handler:1', 'open:listener-after',
    'message:listener-before', 'message:handler:1:one', 'message:listener-after',
    // The body ended: reestablish the connection (readyState CONNECTING).
    'error:listener-before', 'error:handler:0', 'error:listener-after'
  ])
})
