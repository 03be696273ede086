'use strict'

// The shape WebIDL gives the EventSource interface, property by property, as browser code (and
// feature detection) sees it. The interface, from the HTML standard:
// https://html.spec.whatwg.org/multipage/server-sent-events.html#the-eventsource-interface
//
//   [Exposed=(Window,Worker)]
//   interface EventSource : EventTarget {
//     constructor(USVString url, optional EventSourceInit eventSourceInitDict = {});
//
//     readonly attribute USVString url;
//     readonly attribute boolean withCredentials;
//
//     // ready state
//     const unsigned short CONNECTING = 0;
//     const unsigned short OPEN = 1;
//     const unsigned short CLOSED = 2;
//     readonly attribute unsigned short readyState;
//
//     // networking
//     attribute EventHandler onopen;
//     attribute EventHandler onmessage;
//     attribute EventHandler onerror;
//     undefined close();
//   };
//
// and the members whatwg/html PR #12272 (a proposal: EventSource.fromReadableStream()) adds:
//
//     [NewObject] static EventSource fromReadableStream(ReadableStream stream);
//     readonly attribute DOMString lastEventId;
//     readonly attribute unsigned long long reconnectionTime;
//     undefined reset();
//
// WebIDL (https://webidl.spec.whatwg.org/#es-interfaces): an attribute is an accessor property
// { get, set (none when readonly), enumerable: true, configurable: true } whose functions are named
// "get <name>" and "set <name>"; an operation a data property { writable, enumerable, configurable:
// true }; a constant { writable: false, enumerable: true, configurable: false } on both the interface
// object and the prototype; @@toStringTag { writable: false, enumerable: false, configurable: true };
// the constructor's length is the number of its required arguments. Beyond the IDL, the prototype has
// only our documented extension, [Symbol.asyncIterator], with the descriptor WebIDL gives an async
// iterable's.

const t = require('tap')
const { EventSource } = require('../../')

const attribute = (name, { readOnly }) => ({ name, kind: 'attribute', readonly: readOnly })
const IDL_MEMBERS = [
  attribute('url', { readOnly: true }),
  attribute('withCredentials', { readOnly: true }),
  { name: 'CONNECTING', kind: 'const', value: 0 },
  { name: 'OPEN', kind: 'const', value: 1 },
  { name: 'CLOSED', kind: 'const', value: 2 },
  attribute('readyState', { readOnly: true }),
  attribute('onopen', { readOnly: false }),
  attribute('onmessage', { readOnly: false }),
  attribute('onerror', { readOnly: false }),
  { name: 'close', kind: 'operation', length: 0 },
  attribute('lastEventId', { readOnly: true }),
  attribute('reconnectionTime', { readOnly: true }),
  { name: 'reset', kind: 'operation', length: 0 }
]

/** A descriptor as comparable data: functions by name and length. */
function describe (descriptor) {
  const shown = { ...descriptor }
  for (const key of ['get', 'set', 'value']) {
    if (typeof shown[key] === 'function') shown[key] = `function ${shown[key].name}/${shown[key].length}`
  }
  return shown
}

/** The descriptor WebIDL gives a member, in the form of describe(). */
function expectedDescriptor (member) {
  switch (member.kind) {
    case 'attribute':
      return {
        get: `function get ${member.name}/0`,
        set: member.readonly ? undefined : `function set ${member.name}/1`,
        enumerable: true,
        configurable: true
      }
    case 'const':
      return { value: member.value, writable: false, enumerable: true, configurable: false }
    case 'operation':
      return { value: `function ${member.name}/${member.length}`, writable: true, enumerable: true, configurable: true }
  }
}

t.test('the prototype\'s own properties are the interface\'s, with WebIDL\'s descriptors', async (t) => {
  const expected = new Map(IDL_MEMBERS.map((m) => [m.name, expectedDescriptor(m)]))
  expected.set('constructor', { value: 'function EventSource/1', writable: true, enumerable: false, configurable: true })
  expected.set(Symbol.toStringTag, { value: 'EventSource', writable: false, enumerable: false, configurable: true })
  expected.set(Symbol.asyncIterator, {
    value: 'function [Symbol.asyncIterator]/0', writable: true, enumerable: false, configurable: true
  })

  const keys = Reflect.ownKeys(EventSource.prototype)
  t.same(keys.map(String).sort(), [...expected.keys()].map(String).sort(), 'no other own property (no addEventListener)')
  for (const [key, descriptor] of expected) {
    t.same(describe(Object.getOwnPropertyDescriptor(EventSource.prototype, key)), descriptor, String(key))
  }
})

t.test('the interface object', async (t) => {
  t.same(Reflect.ownKeys(EventSource).map(String).sort(),
    ['CLOSED', 'CONNECTING', 'OPEN', 'fromReadableStream', 'length', 'name', 'prototype'])
  t.same(describe(Object.getOwnPropertyDescriptor(EventSource, 'fromReadableStream')),
    expectedDescriptor({ name: 'fromReadableStream', kind: 'operation', length: 1 }), 'the static operation')
  t.same(Object.getOwnPropertyDescriptor(EventSource, 'length'), { value: 1, writable: false, enumerable: false, configurable: true })
  t.same(Object.getOwnPropertyDescriptor(EventSource, 'name'),
    { value: 'EventSource', writable: false, enumerable: false, configurable: true })
  t.same(describe(Object.getOwnPropertyDescriptor(EventSource, 'prototype')),
    { value: EventSource.prototype, writable: false, enumerable: false, configurable: false })
  for (const member of IDL_MEMBERS.filter((m) => m.kind === 'const')) {
    t.same(Object.getOwnPropertyDescriptor(EventSource, member.name), expectedDescriptor(member), member.name)
  }
  t.equal(Object.getPrototypeOf(EventSource), EventTarget, 'inherits from EventTarget')
  t.equal(Object.getPrototypeOf(EventSource.prototype), EventTarget.prototype)
})

t.test('EventTarget\'s methods are EventTarget\'s own', async (t) => {
  const es = new EventSource('http://127.0.0.1:1/')
  es.close()
  for (const name of ['addEventListener', 'removeEventListener', 'dispatchEvent']) {
    t.equal(es[name], EventTarget.prototype[name], name)
  }
  t.equal(Object.prototype.toString.call(es), '[object EventSource]')
  t.equal(Object.prototype.toString.call(EventSource.prototype), '[object EventSource]')
})

t.test('every accessor and operation checks its receiver', async (t) => {
  for (const member of IDL_MEMBERS.filter((m) => m.kind !== 'const')) {
    const descriptor = Object.getOwnPropertyDescriptor(EventSource.prototype, member.name)
    for (const receiver of [EventSource.prototype, new EventTarget(), {}, undefined]) {
      const call = member.kind === 'operation'
        ? () => descriptor.value.call(receiver)
        : () => descriptor.get.call(receiver)
      t.throws(call, TypeError, `${member.name} on ${Object.prototype.toString.call(receiver)}`)
      if (descriptor.set) t.throws(() => descriptor.set.call(receiver, null), TypeError, `set ${member.name}`)
    }
  }
})
