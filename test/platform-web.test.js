'use strict'

// The web side of package.json's "imports" (lib/*-web.js: what browsers and workers load for `#bytes`,
// `#inspect`, `#listeners` and `#transport`), run here on Node and checked against the Node side, which
// every other test runs. test/runtime/ runs the whole package on them in Chromium.

const t = require('tap')
const vm = require('node:vm')
const util = require('node:util')
const { serve, sse, bounded, prng } = require('./helpers')
const nodeBytes = require('../lib/platform/bytes-node')
const webBytes = require('../lib/platform/bytes-web')
const { inspect } = require('../lib/platform/inspect-web')
const hasListenerWeb = require('../lib/platform/listeners-web')
const transportWeb = require('../lib/transport/transport-web')
const { FetchAttempt } = require('../lib/transport/fetch-transport')
const { buildRequest } = require('../lib/transport/request')
const { resolveInit } = require('../lib/eventsource/init')

const SEED = 0x3eb

// Byte strings that exercise a UTF-8 decoder: every kind of invalid sequence, a BOM, text.
const PIECES = [
  [0xef, 0xbb, 0xbf], [0xc3, 0xa9], [0xf0, 0x9f, 0x98, 0x80], [0xe2, 0x82, 0xac], // BOM, é, 😀, €
  [0xed, 0xa0, 0x80], [0xc0, 0xaf], [0xf4, 0x90, 0x80, 0x80], [0xf8], [0xff], [0x80], // surrogate, overlong, > U+10FFFF, invalid
  [0xe2, 0x82], [0xf0, 0x9f, 0x98], [0xc3], // truncated
  [0x00], [0x0a], [0x0d], [0x41], [0x7f], [0x20]
]

function randomBytes (random, pieces) {
  const bytes = []
  for (let i = 0; i < pieces; i++) bytes.push(...random.pick(PIECES))
  return Uint8Array.from(bytes)
}

t.test('on Node, the imports give Node\'s own functions: the hot path calls what it always did', async (t) => {
  const { Buffer, isAscii } = require('node:buffer')
  const { isUint8Array } = require('node:util/types')
  const bytes = require('#bytes')
  t.equal(bytes, nodeBytes)
  t.equal(bytes.utf8Slice, Buffer.prototype.utf8Slice)
  t.equal(bytes.asciiSlice, Buffer.prototype.latin1Slice)
  t.equal(bytes.indexOf, Buffer.prototype.indexOf)
  t.equal(bytes.isAscii, isAscii)
  t.equal(bytes.isUint8Array, isUint8Array)
  // allocUnsafe calls Buffer.allocUnsafe as it is at the time: test/parser-linear.test.js counts through it.
  t.equal(require('#inspect').inspect, util.inspect)
  t.equal(require('#listeners'), require('../lib/platform/listeners-node'))
  t.equal(require('#transport'), require('../lib/transport/transport-node'))
})

t.test('#bytes: decoding, searching and checking bytes as Buffer does', async (t) => {
  const random = prng(SEED)
  for (let i = 0; i < 2000; i++) {
    const bytes = randomBytes(random, random.int(12))
    const start = random.int(bytes.length + 1)
    const end = start + random.int(bytes.length - start + 1)
    const view = bytes.subarray(start, end)
    const where = `case ${i}: [${Array.from(bytes)}] [${start}, ${end})`
    if (webBytes.utf8Slice.call(bytes, start, end) !== nodeBytes.utf8Slice.call(bytes, start, end)) {
      t.fail(`utf8Slice, ${where}`)
    }
    if (webBytes.isAscii(view) !== nodeBytes.isAscii(view)) t.fail(`isAscii, ${where}`)
    if (webBytes.isUtf8(view) !== nodeBytes.isUtf8(view)) t.fail(`isUtf8, ${where}`)
    if (nodeBytes.isAscii(view) && webBytes.asciiSlice.call(bytes, start, end) !== nodeBytes.asciiSlice.call(bytes, start, end)) {
      t.fail(`asciiSlice, ${where}`)
    }
    const byte = random.pick([0x0a, 0x0d, 0xc3, 0x41])
    if (webBytes.indexOf.call(bytes, byte, start) !== nodeBytes.indexOf.call(bytes, byte, start)) t.fail(`indexOf, ${where}`)
    if (webBytes.toBase64(view) !== nodeBytes.toBase64(view)) t.fail(`toBase64, ${where}`)
  }
  t.pass('2,000 random byte strings: the same answers')
  t.equal(webBytes.utf8Slice.call(Uint8Array.from([0x41, 0xef, 0xbb, 0xbf, 0x42]), 0, 5), 'A\ufeffB', 'a BOM inside a value stays')
  t.equal(webBytes.utf8Slice.call(Uint8Array.from([0xef, 0xbb, 0xbf, 0x42]), 0, 4), '\ufeffB', 'a BOM at the start of a value too')
  t.equal(webBytes.asciiSlice.call(Uint8Array.from([0x68, 0x69]), 0, 2), 'hi')
  const large = new Uint8Array(20000).fill(0xe9)
  t.equal(webBytes.toBase64(large), nodeBytes.toBase64(large), 'more bytes than one String.fromCharCode call takes')
})

t.test('#bytes: strings to bytes, latin1 spellings, views and concatenation', async (t) => {
  for (const string of ['', 'plain', 'é1', '😀 €', 'lone \ud800 surrogate', 'x'.repeat(10000) + 'é']) {
    t.same(webBytes.utf8Bytes(string), new Uint8Array(nodeBytes.utf8Bytes(string)), `utf8Bytes ${JSON.stringify(string.slice(0, 20))}`)
    t.equal(webBytes.utf8AsLatin1(string), nodeBytes.utf8AsLatin1(string), `utf8AsLatin1 ${JSON.stringify(string.slice(0, 20))}`)
  }
  const parts = [Uint8Array.from([1, 2]), new Uint8Array(0), Uint8Array.from([3])]
  t.same(webBytes.concatBytes(parts), Uint8Array.from([1, 2, 3]))
  t.same(new Uint8Array(nodeBytes.concatBytes(parts)), Uint8Array.from([1, 2, 3]))
  const memory = new ArrayBuffer(8)
  const view = webBytes.bytesView(memory, 2, 3)
  view[0] = 7
  t.same([view.length, new Uint8Array(memory)[2]], [3, 7], 'bytesView: a view of the memory, not a copy')
  t.equal(webBytes.bytesView(memory).length, 8, 'bytesView: all of it without offset and length')
  t.equal(nodeBytes.bytesView(memory, 2, 3)[0], 7)
  const scratch = webBytes.allocUnsafe(5)
  t.same([scratch instanceof Uint8Array, scratch.length], [true, 5])
})

t.test('#bytes: type checks as node:util/types makes them, across realms too', async (t) => {
  const values = [
    Buffer.from('x'), new Uint8Array(1), new Uint8ClampedArray(1), new Uint16Array(1), new DataView(new ArrayBuffer(1)),
    new ArrayBuffer(1), new SharedArrayBuffer(1), [1], 'x', null, undefined, 1,
    { [Symbol.toStringTag]: 'Uint8Array' }, Object.create(Uint8Array.prototype), Object.create(ArrayBuffer.prototype),
    vm.runInNewContext('new Uint8Array(2)'), vm.runInNewContext('new ArrayBuffer(2)')
  ]
  for (const [index, value] of values.entries()) {
    t.equal(webBytes.isUint8Array(value), nodeBytes.isUint8Array(value), `isUint8Array, value #${index}`)
    t.equal(webBytes.isArrayBuffer(value), nodeBytes.isArrayBuffer(value), `isArrayBuffer, value #${index}`)
  }
})

t.test('#inspect: util.inspect\'s output for what error messages show', async (t) => {
  class Foo { constructor () { this.x = 1 } }
  const values = [
    // eslint-disable-next-line no-template-curly-in-string -- a string with `${x}` in it, to be inspected
    'plain', "it's", 'a"b\'c', 'a"b\'c`', 'a"b\'c`${x}', 'x\ny\0\x7f\x85\t\r\b\f\\', 'lone \ud83d', 'lone \ude00', 'pair \ud83d\ude00', '',
    1, -0, 0, NaN, Infinity, 1.5, 10n, true, false, null, undefined, Symbol('s'), Symbol(), // eslint-disable-line symbol-description -- one without, to be inspected
    () => {}, function named () {}, class K {}, class {},
    [], [1, 'a', [2, [3, [4, [5]]]]], {}, { a: 1, 'b-c': 'x', nested: { deeper: { deepest: {} } } },
    Object.create(null), Object.assign(Object.create(null), { a: 1 }), new Foo()
  ]
  for (const value of values) {
    for (const options of [undefined, { depth: -1 }, { colors: false }]) {
      const expected = util.inspect(value, options)
      t.equal(inspect(value, options), expected, `${expected} ${JSON.stringify(options) ?? ''}`)
    }
  }
  t.equal(inspect(new Map()), 'Map {}', 'another object: its class name')
  // (util.inspect names the prototype chain: `Object <[Object: null prototype] {}> {}`.)
  t.equal(inspect(Object.create(Object.create(null))), '{}', 'a prototype chain without a constructor: a plain object')
})

t.test('#listeners: not known where an EventTarget cannot count its listeners', async (t) => {
  const target = new EventTarget()
  target.addEventListener('x', () => {})
  t.ok(Number.isNaN(hasListenerWeb.listenerCount(target, 'x')), 'NaN')
  t.equal(hasListenerWeb.usesListenerMap, false)
})

t.test('#transport: every attempt through a fetch, called as a plain function', async (t) => {
  const server = await serve(t, (req, res) => sse(res, 'data: hello\n\n'))
  const attempt = async (fetchOption, dispatcher) => {
    const init = resolveInit({ fetch: fetchOption, dispatcher })
    const request = buildRequest(init, { attempt: 1, sourceUrl: server.url('/'), url: server.url('/'), method: 'GET', lastEventId: '' })
    const seen = []
    let ended
    const done = new Promise((resolve) => { ended = resolve })
    const sink = {
      opened: (response) => seen.push(['opened', response.status]),
      data: (chunk) => seen.push(['data', Buffer.from(chunk).toString()]),
      ended: () => { seen.push(['ended']); ended() },
      networkError: (err) => { seen.push(['networkError', err.code]); ended() },
      failed: (err) => { seen.push(['failed', err.code]); ended() }
    }
    const made = transportWeb.createAttempt(request, sink)
    t.ok(made instanceof FetchAttempt, 'a fetch attempt')
    made.start()
    await bounded(done, 'the attempt to end')
    t.same(seen, [['opened', 200], ['data', 'data: hello\n\n'], ['ended']])
  }

  const thisValues = []
  // Strict code: `this` is what the caller passes. A browser's fetch throws unless it is undefined (or the global).
  await attempt(function (input, init) {
    'use strict'
    thisValues.push(this)
    return fetch(input, init)
  })
  t.same(thisValues, [undefined], 'init.fetch is called with no `this`')

  const globalFetch = globalThis.fetch
  let calls = 0
  globalThis.fetch = (input, init) => {
    calls++
    return globalFetch(input, init)
  }
  t.teardown(() => { globalThis.fetch = globalFetch })
  // A dispatcher (here, something with dispatch()) has nothing to run on in a browser: ignored.
  await attempt(undefined, { dispatch () { throw new Error('not here') } })
  t.equal(calls, 1, 'without init.fetch, the runtime\'s fetch, looked up at the attempt; the dispatcher ignored')
  t.equal(transportWeb.transportMaxEventSize(resolveInit({}).transport), undefined, 'no transport limit on events')
})
