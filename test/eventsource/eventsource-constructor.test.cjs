'use strict'

// The WebIDL surface of EventSource: constructor arguments, the URL, attributes, constants, brand
// checks. Instances here are closed right after construction, so no request is ever sent.
// https://html.spec.whatwg.org/multipage/server-sent-events.html#the-eventsource-interface

const t = require('tap')
const { EventSource } = require('../../')

// An EventSource that never connects: close() right after `new` cancels the first fetch.
function inert (url = 'http://127.0.0.1:1/', init) {
  const es = new EventSource(url, init)
  es.close()
  return es
}

t.test('the constructor needs at least one argument', async (t) => {
  t.throws(() => new EventSource(), { name: 'TypeError' })
  t.throws(() => EventSource('http://127.0.0.1:1/'), TypeError, 'cannot be called without new')
  t.equal(EventSource.length, 1)
  t.equal(EventSource.name, 'EventSource')
})

t.test('url is converted to a string (USVString)', async (t) => {
  t.equal(inert(new URL('http://127.0.0.1:1/a?b#c')).url, 'http://127.0.0.1:1/a?b#c', 'URL object')
  t.equal(inert({ toString: () => 'http://127.0.0.1:1/obj' }).url, 'http://127.0.0.1:1/obj', 'toString() is used')
  t.throws(() => new EventSource(Symbol('url')), TypeError, 'a Symbol cannot be converted')
  t.throws(() => new EventSource({ toString () { throw new RangeError('boom') } }), RangeError,
    'an exception from toString() propagates')
  // A lone surrogate becomes U+FFFD, percent-encoded as UTF-8 by the URL parser.
  t.equal(inert('http://127.0.0.1:1/\uD800').url, 'http://127.0.0.1:1/%EF%BF%BD')
})

t.test('url is the serialized, parsed URL', async (t) => {
  t.equal(inert('HTTP://127.0.0.1:1/a b/../c?q=1#frag').url, 'http://127.0.0.1:1/c?q=1#frag',
    'scheme lower-cased, path normalised and escaped, fragment kept')
  t.equal(inert('http://127.0.0.1:80/').url, 'http://127.0.0.1/', 'default port dropped')
  t.equal(inert('ftp://127.0.0.1/feed').url, 'ftp://127.0.0.1/feed', 'any scheme parses (it fails later)')
})

t.test('an invalid URL throws a SyntaxError DOMException', async (t) => {
  for (const url of ['', 'not a url', '/relative', 'http://[::1', 'http://exa mple.com/']) {
    let error
    try {
      new EventSource(url) // eslint-disable-line no-new
    } catch (err) {
      error = err
    }
    t.ok(error instanceof DOMException, `${JSON.stringify(url)}: DOMException`)
    t.equal(error?.name, 'SyntaxError', `${JSON.stringify(url)}: name`)
    t.equal(error?.code, 12, 'legacy SYNTAX_ERR code')
    t.ok(error?.message.includes(`'${url}'`), 'the message names the input')
    t.type(error?.cause, TypeError, 'the URL parser error is the cause')
    // Node's built-in EventSource's whole message is the parser's error: "TypeError: Invalid URL".
    t.ok(error?.message.endsWith(': TypeError: Invalid URL'), 'the message ends with the URL parser\'s reason')
  }
})

t.test('a relative URL is resolved against globalThis.location when there is one', async (t) => {
  t.teardown(() => { delete globalThis.location })
  globalThis.location = { href: 'http://127.0.0.1:1/dir/page.html?x#y' }
  t.equal(inert('stream?id=1').url, 'http://127.0.0.1:1/dir/stream?id=1')
  t.equal(inert('/root').url, 'http://127.0.0.1:1/root')
  t.equal(inert('//127.0.0.2:2/other').url, 'http://127.0.0.2:2/other', 'scheme-relative')
  t.equal(inert('http://127.0.0.3/abs').url, 'http://127.0.0.3/abs', 'absolute URLs ignore the base')
  // location.href may itself be an object with a string form (a URL).
  globalThis.location = { href: new URL('http://127.0.0.1:9/base/') }
  t.equal(inert('x').url, 'http://127.0.0.1:9/base/x')
  globalThis.location = { href: 'http://127.0.0.1:1/' }
  t.throws(() => new EventSource('http://[bad'), { name: 'SyntaxError' }, 'still invalid with a base')
})

t.test('the init dictionary', async (t) => {
  t.equal(inert(undefined, undefined).withCredentials, false, 'undefined is an empty dictionary')
  t.equal(inert(undefined, null).withCredentials, false, 'null is an empty dictionary')
  t.equal(inert(undefined, {}).withCredentials, false, 'withCredentials defaults to false')
  const fn = () => {}
  fn.withCredentials = true
  t.equal(inert(undefined, fn).withCredentials, true, 'a function is an object, so a dictionary')
  for (const value of [0, 1, 'x', true, Symbol('s'), 10n]) {
    t.throws(() => new EventSource('http://127.0.0.1:1/', value), { name: 'TypeError' },
      `${typeof value} is not a dictionary`)
  }
})

t.test('withCredentials is coerced to a boolean', async (t) => {
  const cases = [[true, true], [1, true], ['yes', true], [{}, true], [[], true], [Symbol('x'), true],
    [false, false], [0, false], ['', false], [null, false], [undefined, false], [NaN, false]]
  for (const [value, expected] of cases) {
    t.equal(inert(undefined, { withCredentials: value }).withCredentials, expected, String(value))
  }
  // The getter reads the value fixed at construction, whatever happens to the dictionary later.
  const init = { withCredentials: true }
  const es = inert(undefined, init)
  init.withCredentials = false
  t.equal(es.withCredentials, true)
})

t.test('readyState is CONNECTING right after construction and CLOSED after close()', async (t) => {
  const es = new EventSource('http://127.0.0.1:1/')
  t.equal(es.readyState, EventSource.CONNECTING)
  es.close()
  t.equal(es.readyState, EventSource.CLOSED)
})

t.test('the readyState constants', async (t) => {
  const es = inert()
  for (const [name, value] of [['CONNECTING', 0], ['OPEN', 1], ['CLOSED', 2]]) {
    for (const [where, object] of [['constructor', EventSource], ['prototype', EventSource.prototype]]) {
      t.same(Object.getOwnPropertyDescriptor(object, name),
        { value, writable: false, enumerable: true, configurable: false }, `${where}.${name}`)
      t.throws(() => { object[name] = 42 }, TypeError, `${where}.${name} is read-only`)
    }
    t.equal(es[name], value, `instance.${name} is inherited`)
    t.notOk(Object.hasOwn(es, name), `instance.${name} is not an own property`)
  }
})

t.test('attributes are enumerable accessors on the prototype', async (t) => {
  const proto = EventSource.prototype
  for (const name of ['url', 'withCredentials', 'readyState']) {
    const d = Object.getOwnPropertyDescriptor(proto, name)
    t.type(d.get, 'function', `${name} has a getter`)
    t.equal(d.set, undefined, `${name} is read-only`)
    t.equal(d.enumerable, true, `${name} is enumerable`)
    t.equal(d.configurable, true, `${name} is configurable`)
  }
  for (const name of ['onopen', 'onmessage', 'onerror']) {
    const d = Object.getOwnPropertyDescriptor(proto, name)
    t.ok(d.get && d.set && d.enumerable && d.configurable, `${name} is an enumerable accessor pair`)
  }
  const d = Object.getOwnPropertyDescriptor(proto, 'close')
  t.ok(d.enumerable && d.writable && d.configurable, 'close is an enumerable method')
  t.equal(proto.close.length, 0)

  const es = inert('http://127.0.0.1:1/x', { withCredentials: true })
  t.same(Object.keys(es), [], 'no own enumerable state on instances')
  t.same(Object.getOwnPropertyNames(es), [], 'no own state at all')
  const enumerated = []
  for (const key in es) enumerated.push(key)
  for (const key of ['url', 'withCredentials', 'readyState', 'onopen', 'onmessage', 'onerror', 'close',
    'CONNECTING', 'OPEN', 'CLOSED']) {
    t.ok(enumerated.includes(key), `for-in sees ${key}`)
  }
  t.throws(() => { es.readyState = 1 }, TypeError, 'assigning a getter-only attribute throws in strict mode')
  t.equal(es.readyState, EventSource.CLOSED)
})

t.test('brand checks: foreign receivers throw TypeError', async (t) => {
  const proto = EventSource.prototype
  const receivers = [{}, null, undefined, 1, 'x', new EventTarget(), Object.create(proto)]
  for (const name of ['url', 'withCredentials', 'readyState', 'onopen', 'onmessage', 'onerror']) {
    const { get } = Object.getOwnPropertyDescriptor(proto, name)
    for (const receiver of receivers) {
      t.throws(() => get.call(receiver), TypeError, `get ${name} on ${String(receiver)}`)
    }
  }
  for (const name of ['onopen', 'onmessage', 'onerror']) {
    const { set } = Object.getOwnPropertyDescriptor(proto, name)
    t.throws(() => set.call({}, () => {}), TypeError, `set ${name} on a plain object`)
    t.throws(() => set.call(null, null), TypeError, `set ${name} on null`) // eslint-disable-line no-useless-call -- `this` is null
  }
  for (const receiver of receivers) {
    t.throws(() => proto.close.call(receiver), TypeError, `close() on ${String(receiver)}`)
  }
  t.throws(() => proto.url, TypeError, 'the prototype itself is not an EventSource')
})

t.test('class shape', async (t) => {
  const es = inert()
  t.ok(es instanceof EventTarget, 'an EventTarget')
  t.equal(Object.getPrototypeOf(EventSource), EventTarget, 'extends EventTarget')
  t.equal(Object.prototype.toString.call(es), '[object EventSource]')
  t.equal(Object.getOwnPropertyDescriptor(EventSource.prototype, Symbol.toStringTag).value, 'EventSource')

  // Subclasses keep the brand.
  class Sub extends EventSource {}
  const sub = new Sub('http://127.0.0.1:1/sub')
  sub.close()
  t.equal(sub.url, 'http://127.0.0.1:1/sub')
  t.equal(sub.readyState, EventSource.CLOSED)
  t.equal(Object.prototype.toString.call(sub), '[object EventSource]')
})

t.test('close() is idempotent and returns undefined', async (t) => {
  const es = new EventSource('http://127.0.0.1:1/')
  t.equal(es.close(), undefined)
  t.equal(es.close(), undefined)
  t.equal(es.readyState, EventSource.CLOSED)
})
