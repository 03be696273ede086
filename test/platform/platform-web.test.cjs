'use strict'

// The web side of each platform difference (lib/**/*-web.js: what browsers and workers load for package.json's
// "imports" `#bytes`, `#error-messages`, `#listeners` and `#stacks`, and what their EventSources are composed of:
// the transport, the redirect rules and the diagnostics, lib/entries/web-*.js), run here on Node and
// checked against the Node side, which every other test runs; and that a bundle for a page takes that side
// (test/helpers/bundle.cjs). test/package/bundle.test.cjs runs the package bundled for browsers on them, and
// test/runtime/ runs it in Chromium.

const t = require('tap')
const vm = require('node:vm')
const { serve, sse, bounded, prng, record, recordChannels, onceBounded } = require('../helpers/index.cjs')
const { importBrowserBuild } = require('../helpers/bundle.cjs')
const nodeBytes = require('../../lib/platform/bytes-node')
const webBytes = require('../../lib/platform/bytes-web')
const webMessages = require('../../lib/errors/messages-web')
const nodeMessages = require('../../lib/errors/messages-node')
const { codes } = require('../../lib/errors')
const webRedirects = require('../../lib/transport/redirect-policy-web')
const hasListenerWeb = require('../../lib/platform/listeners-web')
const transportWeb = require('../../lib/transport/transport-web')
const { FetchAttempt } = require('../../lib/transport/fetch-transport')
const { buildRequest } = require('../../lib/transport/request')
const { createInitResolver } = require('../../lib/eventsource/init')
const { resolveExtensions } = require('../../lib/eventsource/init-extensions')

// The init resolver of the browsers' EventSource with the extensions (lib/entries/web-extended-eventsource.js).
const resolveInit = createInitResolver({ resolveExtensions })

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
  // allocUnsafe calls Buffer.allocUnsafe as it is at the time: test/parser/parser-linear.test.cjs counts through it.
  t.equal(require('#error-messages'), nodeMessages)
  t.equal(require('#listeners'), require('../../lib/platform/listeners-node'))
  t.equal(require('#stacks'), require('../../lib/platform/stacks-node'))
})

t.test('in a browser build, the imports give the web side', async (t) => {
  // What a bundler resolves each of them to for a page (the `default` condition): the modules this file
  // tests.
  const { imports } = require('../../package.json')
  const names = Object.keys(imports).filter((name) => imports[name].default !== undefined)
  t.ok(names.includes('#bytes') && names.includes('#listeners'), names.join(', '))
  const source = names.map((name, i) => `export * as m${i} from '${name}'\n`).join('')
  const { resolved } = await importBrowserBuild(t, source)
  for (const name of names) t.equal(`./${resolved[name]}`, imports[name].default, `${name}: ${resolved[name]}`)
  t.equal(resolved['#bytes'], 'lib/platform/bytes-web.js')
  t.equal(resolved['#listeners'], 'lib/platform/listeners-web.js')
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
    if (nodeBytes.isAscii(view) && webBytes.asciiSlice.call(bytes, start, end) !== nodeBytes.asciiSlice.call(bytes, start, end)) {
      t.fail(`asciiSlice, ${where}`)
    }
    const byte = random.pick([0x0a, 0x0d, 0xc3, 0x41])
    if (webBytes.indexOf.call(bytes, byte, start) !== nodeBytes.indexOf.call(bytes, byte, start)) t.fail(`indexOf, ${where}`)
  }
  t.pass('2,000 random byte strings: the same answers')
  t.equal(webBytes.utf8Slice.call(Uint8Array.from([0x41, 0xef, 0xbb, 0xbf, 0x42]), 0, 5), 'A\ufeffB', 'a BOM inside a value stays')
  t.equal(webBytes.utf8Slice.call(Uint8Array.from([0xef, 0xbb, 0xbf, 0x42]), 0, 4), '\ufeffB', 'a BOM at the start of a value too')
  t.equal(webBytes.asciiSlice.call(Uint8Array.from([0x68, 0x69]), 0, 2), 'hi')
  // (A module namespace lists its names in order.)
  t.same(Object.keys(nodeBytes).filter((name) => !Object.hasOwn(webBytes, name)), ['isUtf8', 'toBase64'],
    'the web side lacks only what the Node-only redirect policy uses')
})

t.test('#bytes: strings to bytes, latin1 spellings, views and concatenation', async (t) => {
  for (const string of ['', 'plain', 'é1', '😀 €', 'lone \ud800 surrogate', 'x'.repeat(10000) + 'é', 'é'.repeat(20000)]) {
    t.same(webBytes.utf8Bytes(string), new Uint8Array(nodeBytes.utf8Bytes(string)), `utf8Bytes ${JSON.stringify(string.slice(0, 20))}`)
    t.equal(webBytes.utf8AsLatin1(string), nodeBytes.utf8AsLatin1(string), `utf8AsLatin1 ${JSON.stringify(string.slice(0, 20))}`)
    const length = nodeBytes.utf8Length(string)
    t.equal(webBytes.utf8Length(string), length, `utf8Length ${JSON.stringify(string.slice(0, 20))}`)
    const [web, node] = [new Uint8Array(length + 3), new Uint8Array(length + 3)]
    t.equal(webBytes.utf8Write(web, string, 2), nodeBytes.utf8Write(node, string, 2), 'utf8Write: as many bytes')
    t.same(web, node, 'utf8Write: the same bytes at the same offset')
  }
  for (const string of ['\udc00 low alone', 'high at the end \ud83d', '\ud83d\ude00\ud83d', 'a\udbff\udfffb']) {
    t.equal(webBytes.utf8Length(string), nodeBytes.utf8Length(string), `utf8Length ${JSON.stringify(string)}`)
  }
  const parts = [Uint8Array.of(1, 2), new Uint8Array(0), Uint8Array.of(3)]
  t.same(webBytes.concatBytes(parts), new Uint8Array(nodeBytes.concatBytes(parts)), 'concatBytes')
  const memory = new ArrayBuffer(8)
  const view = webBytes.bytesView(memory, 2, 3)
  view[0] = 7
  t.same([view.length, new Uint8Array(memory)[2]], [3, 7], 'bytesView: a view of the memory, not a copy')
  t.equal(webBytes.bytesView(memory).length, 8, 'bytesView: all of it without offset and length')
  t.equal(nodeBytes.bytesView(memory, 2, 3)[0], 7)
  const scratch = webBytes.allocUnsafe(5)
  t.same([scratch instanceof Uint8Array, scratch.length], [true, 5])
  for (const list of [[], [new Uint8Array(0)], [Uint8Array.from([1, 2]), new Uint8Array(0), Buffer.from([3])], [view, view]]) {
    const joined = webBytes.concatBytes(list)
    t.ok(joined instanceof Uint8Array)
    t.same(Array.from(joined), Array.from(nodeBytes.concatBytes(list)), `concatBytes of ${list.length}: as Buffer.concat`)
  }
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

t.test('#error-messages: the code in words and the values it was made from; the code and class as on Node', async (t) => {
  // The drop-ins' own codes carry their package's wording in their table, the same everywhere.
  const dropIn = require('../../lib/errors/drop-in').codes
  t.same(Object.keys(dropIn), ['ERR_EVENTSOURCE_PARSER_TERMINATED'])
  t.equal(new dropIn.ERR_EVENTSOURCE_PARSER_TERMINATED().message,
    'Cannot feed parser: it was terminated after exceeding the configured max buffer size. Call `reset()` to resume parsing.',
    'eventsource-parser\'s message, whatever #error-messages is')
  // So does the code that tells a browser's developer where an extension is: its message is the same everywhere.
  const { ERR_EVENTSOURCE_EXTENSION_NOT_LOADED } = require('../../lib/errors/extensions').codes
  t.equal(new ERR_EVENTSOURCE_EXTENSION_NOT_LOADED('init.headers').message,
    "init.headers is an extension of whatwg-eventsource, not part of this build: the EventSource of 'whatwg-eventsource/extensions' has it")
  // And serving's, which also runs in workers.
  const server = require('../../lib/errors/server').codes
  t.equal(new server.ERR_EVENTSOURCE_CLIENT_TOO_SLOW('it fell behind').message,
    'The client was disconnected because it did not read its events: it fell behind')
  const fixed = { ...dropIn, ERR_EVENTSOURCE_EXTENSION_NOT_LOADED, ...server, ...require('../../lib/errors/server-redis').codes }
  t.same(Object.keys(nodeMessages.MESSAGES).sort(), Object.keys(codes).filter((code) => !Object.hasOwn(fixed, code)).sort(),
    'Node\'s wording for every other code')
  for (const [code, Ctor] of Object.entries(codes)) {
    if (Object.hasOwn(fixed, code)) continue
    const message = nodeMessages.MESSAGES[code]
    t.equal(message.length, Ctor.length, `${code}: the Node message takes the ${Ctor.length} arguments declared`)
    const args = Array.from({ length: Ctor.length }, (_, i) => `argument ${i}`)
    const words = webMessages.message(code, args)
    const expected = code.replace(/^ERR_(EVENTSOURCE_)?/, '').toLowerCase().replaceAll('_', ' ')
    t.equal(words, args.length === 0 ? expected : `${expected}: ${args.join(', ')}`, `${code}: ${words}`)
  }
  t.equal(webMessages.message('ERR_EVENTSOURCE_BAD_STATUS', [404, 'Not Found']), 'bad status: 404, Not Found')
  t.equal(webMessages.message('ERR_INVALID_ARG_TYPE', ['init.reconnect', 'of type object', 1n]), 'invalid arg type: init.reconnect, of type object, 1')
  // Objects and functions by their type: converting them could run their code, or throw.
  const hostile = { toString () { throw new Error('called') } }
  t.equal(webMessages.message('ERR_INVALID_ARG_VALUE', ['x', hostile, 'is wrong']), 'invalid arg value: x, object, is wrong')
  t.equal(webMessages.message('ERR_INVALID_ARG_VALUE', ['x', Object.create(null), () => {}]), 'invalid arg value: x, object, function')
  t.equal(webMessages.message('ERR_INVALID_ARG_TYPE', ['x', 'y', Symbol('s')]), 'invalid arg type: x, y, Symbol(s)')
  t.equal(webMessages.message('ERR_INVALID_ARG_TYPE', ['x', 'y', null]), 'invalid arg type: x, y, null')
})

t.test('#stacks: in a browser, an error\'s stack is the engine\'s own', async (t) => {
  const { captureStack, capturesStacks } = require('../../lib/platform/stacks-web')
  // Said, so that fromCallerOf() (lib/errors/error-class.js) checks nothing in a browser bundle.
  t.equal(capturesStacks, false, 'captures no stack')
  t.equal(require('../../lib/platform/stacks-node').capturesStacks, true, 'Node\'s does')
  const error = new TypeError('bad')
  error.code = 'ERR_INVALID_ARG_TYPE'
  const { stack } = error
  captureStack(error, function callee () {})
  t.equal(error.stack, stack, 'the stack as the engine made it')
  t.notOk(Object.hasOwn(error, 'name'), 'no own name')
  t.match(error.stack, /^TypeError: bad\n/)
  // Node's form, for comparison: the code in the first line.
  const nodeError = new TypeError('bad')
  nodeError.code = 'ERR_INVALID_ARG_TYPE'
  require('../../lib/platform/stacks-node').captureStack(nodeError, function callee () {})
  t.match(nodeError.stack, /^TypeError \[ERR_INVALID_ARG_TYPE\]: bad/)
  t.notOk(Object.hasOwn(nodeError, 'name'), 'no own name')
})

t.test('#listeners: no listener count, and no handler map to drop', async (t) => {
  t.equal(hasListenerWeb.countsListeners, false, 'it says it cannot count')
  const probe = new EventTarget()
  t.equal(hasListenerWeb.listenersOf(probe, 'message').size, 1, 'anyone may listen, with no listener')
  probe.addEventListener('message', () => {}, { once: true })
  t.equal(hasListenerWeb.listenersOf(probe, 'message').size, 1, 'and with one')
  const target = new EventTarget()
  const before = Object.getOwnPropertySymbols(target).map((symbol) => [symbol, target[symbol]])
  hasListenerWeb.releaseHandlerMap(target)
  t.same(Object.getOwnPropertySymbols(target).map((symbol) => [symbol, target[symbol]]), before, 'the target as it was')
})

t.test('the browsers\' fetch transport: every attempt through a fetch, called as a plain function', async (t) => {
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
    const made = transportWeb.fetchTransport.createAttempt(request, sink)
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
  t.equal(transportWeb.fetchTransport.maxEventSize(resolveInit({}).transport), undefined, 'no transport limit on events')
  t.equal(transportWeb.standardTransport.maxEventSize(createInitResolver()({}).transport), undefined)
})

t.test('the browsers\' redirect rules: the fetch follows every redirect; credentials stay with their origin', async (t) => {
  t.same(webRedirects.fetchRedirects(), { redirect: 'follow', withinOrigin: false })
  t.equal(webRedirects.isRedirect(302, { location: '/' }), false, 'no response is a redirect for the policy to follow')
  const request = (url, more) => ({
    url,
    method: 'POST',
    body: 'b',
    headers: Object.freeze({ accept: 'text/event-stream', authorization: 'Bearer t', cookie: 'c=1', 'x-token': 'k', 'x-other': 'o' }),
    credentialOrigin: 'https://a.example',
    credentialHeaders: ['x-token'],
    allowInsecureRedirect: false,
    ...more
  })
  const home = new webRedirects.RedirectPolicy(request('https://user:pw@a.example/events'))
  t.same([home.url.href, home.displayUrl, home.method, home.body, home.withinOrigin],
    ['https://user:pw@a.example/events', 'https://a.example/events', 'POST', 'b', false], 'the request, shown without its credentials')
  t.same(home.hopHeaders(), request().headers, 'every header to the credentials\' own origin')
  t.equal(home.answerChallenge({ 'www-authenticate': 'Basic' }), false, 'a 401 is not answered with the URL\'s credentials')
  home.release()
  // A reconnection that goes straight to the final URL of a redirect to another origin.
  const away = new webRedirects.RedirectPolicy(request('https://b.example/events'))
  t.same(away.hopHeaders(), { accept: 'text/event-stream', 'x-other': 'o' }, 'no credentials to another origin')
  t.same(Object.keys(request().headers).length, 5, 'the request\'s headers are left as they were')

  t.equal(home.followedTo('https://a.example/moved'), null, 'redirects within https:')
  t.equal(home.url.href, 'https://a.example/moved', 'the final URL')
  const insecure = home.followedTo('http://a.example/clear')
  t.same([insecure.code, insecure.url, insecure.message], ['ERR_EVENTSOURCE_INSECURE_REDIRECT', 'https://a.example/moved',
    'The server redirected from https: to http://a.example/clear; set allowInsecureRedirect to follow it'], 'https: to http: refused')
  const allowed = new webRedirects.RedirectPolicy(request('https://a.example/', { allowInsecureRedirect: true }))
  t.equal(allowed.followedTo('http://a.example/clear'), null, 'unless allowInsecureRedirect')
})

t.test('the browsers\' standard EventSource has no diagnostics: nothing is published, and the attempt starts', async (t) => {
  // lib/entries/web-eventsource.js as lib/ has it, on Node: its part for diagnostics is null.
  const { EventSource } = await import('../../lib/entries/web-eventsource.js')
  const channels = recordChannels(t)
  const server = await serve(t, (req, res) => sse(res, 'data: one\n\n', { end: false }))
  const es = new EventSource(server.url())
  t.teardown(() => es.close())
  const rec = record(es)
  await rec.wait('message')
  es.close()
  t.same(rec.types, ['open', 'message'])
  t.same(channels.log(es), [], 'nothing published about it')

  // A source made by fromReadableStream() in that build: its one attempt starts without diagnostics too.
  const body = new ReadableStream({ start (controller) { controller.enqueue(new TextEncoder().encode('data: two\n\n')) } })
  const fromStream = EventSource.fromReadableStream(body)
  t.teardown(() => fromStream.close())
  const [message] = await onceBounded(fromStream, 'message')
  t.same([message.data, message.origin], ['two', 'null'])
  t.same(channels.log(fromStream), [], 'nothing published about a stream source either')
})

// The browser entry (package.json's `browser` and `worker` conditions) is lib/entries/browser.js, one
// module: require() (require(esm)) and import give its classes, each from its own module of lib/. Bundled
// for a page, it is the browser build, a copy of those classes with the same members.
t.test('lib/entries/browser.js: classes of lib/, to require() and import; bundled, the same members', async (t) => {
  const esm = await import('../../lib/entries/browser.js')
  const cjs = require('../../lib/entries/browser.js')
  const names = ['EventSource', 'EventSourceErrorEvent', 'EventSourceParser', 'EventSourceParserStream']
  const modules = {
    EventSource: '../../lib/entries/web-eventsource.js',
    EventSourceErrorEvent: '../../lib/eventsource/error-event.js',
    EventSourceParser: '../../lib/parser/event-source-parser.js',
    EventSourceParserStream: '../../lib/parser/web-stream.js'
  }
  // (require(esm) adds __esModule next to a default export, for tools that convert ES modules.)
  const named = (exports) => Object.keys(exports).filter((name) => name !== 'default' && name !== '__esModule').sort()
  t.same(named(esm), names)
  t.same(named(cjs), names)
  t.equal(cjs.default, esm.default, 'require(): the same default export')
  const { exports: bundled } = await importBrowserBuild(t, "export * from './lib/entries/browser.js'\n" +
    "export { default } from './lib/entries/browser.js'")
  t.same(named(bundled), names, 'the browser build: the same names')
  for (const name of names) {
    t.equal(esm[name], (await import(modules[name]))[name], name)
    t.equal(cjs[name], esm[name], `${name}: require() gives the class import gives`)
    t.equal(esm.default[name], esm[name], `default.${name}`)
    t.not(bundled[name], esm[name], `${name}: the browser build's own copy`)
    t.equal(bundled.default[name], bundled[name], `the browser build's default.${name}`)
    const members = (Class) => Object.getOwnPropertyNames(Class.prototype).sort()
    t.same(members(bundled[name]), members(esm[name]), `${name}: the members of lib/'s`)
  }
})
