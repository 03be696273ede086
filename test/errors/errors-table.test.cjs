'use strict'

// lib/errors/index.js (lib/errors/error-class.js): what a declared class makes. Each code's error is an instance of that class and of its
// base (TypeError, RangeError or Error), prints as `Name [CODE]: message` (toString() and the first stack
// line) with a plain `name`, and has `code` as its one own enumerable property; a connection error also
// carries the details and the cause it was given. An error out of a constructor's option checks has a
// stack that starts at the user's call. (The messages themselves are asserted where each is produced.)

const t = require('tap')
const path = require('node:path')
const { codes } = require('../../lib/errors')
const { checkError } = require('../helpers/index.cjs')

const ARGUMENT_CODES = {
  ERR_INVALID_ARG_TYPE: TypeError,
  ERR_INVALID_ARG_VALUE: TypeError,
  ERR_INVALID_CHAR: TypeError,
  ERR_INVALID_HTTP_TOKEN: TypeError,
  ERR_OUT_OF_RANGE: RangeError,
  ERR_EVENTSOURCE_EXTENSION_NOT_LOADED: TypeError,
  ERR_EVENTSOURCE_EVENT_TOO_LARGE: RangeError,
  ERR_EVENTSOURCE_WRITE_AFTER_END: Error
}

t.test('every code makes an error of its class, in Node\'s shape', async (t) => {
  for (const [code, Ctor] of Object.entries(codes)) {
    const Base = ARGUMENT_CODES[code] ?? Error
    const err = new Ctor(...Array.from({ length: Ctor.length }, (_, i) => `argument ${i}`))
    checkError(t, err, { type: Base, code, message: /\S/ })
    t.ok(err instanceof Ctor, `${code}: an instance of its class`)
    t.equal(err.constructor, Ctor)
    t.equal(Object.getPrototypeOf(Ctor), Base, `${code}: which extends ${Base.name}`)
    t.same(Object.keys(err), ['code'], `${code}: code is the one own enumerable property`)
    t.notOk(Object.hasOwn(err, 'cause'), `${code}: no cause when none is given`)
    t.notOk(err.stack.includes(path.join('lib', 'errors', 'index.js')), `${code}: the stack starts where the error was made`)
    t.notOk(err.stack.includes(path.join('lib', 'errors', 'error-class.js')), `${code}: no frame of the class's own`)
  }
})

t.test('a connection error takes details and a cause after its message arguments', async (t) => {
  const cause = new Error('ECONNRESET')
  const details = { status: 503, statusText: 'Busy', headers: { 'retry-after': '1' }, url: 'http://a.example/' }
  const err = new codes.ERR_EVENTSOURCE_BAD_STATUS(503, 'Busy', details, cause)
  checkError(t, err, {
    type: Error, code: 'ERR_EVENTSOURCE_BAD_STATUS', message: 'The server answered 503 Busy: an event stream needs status 200'
  })
  t.same(Object.keys(err), ['code', 'status', 'statusText', 'headers', 'url'])
  t.same({ ...err }, { code: 'ERR_EVENTSOURCE_BAD_STATUS', ...details })
  t.equal(err.cause, cause)
  t.notOk(Object.keys(err).includes('cause'), 'cause is not enumerable, as Error makes it')

  const ended = new codes.ERR_EVENTSOURCE_STREAM_ENDED(undefined, cause)
  t.equal(ended.message, 'The server ended the event stream')
  t.same(Object.keys(ended), ['code'], 'no details')
  t.equal(ended.cause, cause)

  // Argument errors take no details: a fourth argument is not copied.
  const arg = new codes.ERR_OUT_OF_RANGE('n', '>= 0', -1, { status: 1 })
  t.same(Object.keys(arg), ['code'])
})

t.test('each constructor is named after its code and takes its message\'s arguments; internal ones say so', async (t) => {
  for (const [code, Ctor] of Object.entries(codes)) t.equal(Ctor.name, code)
  t.equal(codes.ERR_EVENTSOURCE_BAD_STATUS.length, 2, 'status, statusText (then details, cause)')
  t.equal(codes.ERR_EVENTSOURCE_STREAM_ENDED.length, 0)
  t.equal(codes.ERR_EVENTSOURCE_ABORTED.kind, 'internal')
  t.equal(codes.ERR_EVENTSOURCE_NETWORK.kind, 'connection')
  t.equal(codes.ERR_INVALID_ARG_TYPE.kind, null)
})

// Node's validators keep their own frames out of a bad argument's stack (hideStackFrames): the first
// frame is the user's call. So do ours, for every entry point that checks options.
t.test('a bad option\'s stack starts at the user\'s call', async (t) => {
  const { EventSource } = require('../../')
  const { EventSource: PackageEventSource } = require('../../lib/entries/eventsource.js')
  const { EventSourceParser, EventSourceStream, EventSourceParserStream } = require('../../')
  const { createParser } = require('../../lib/entries/parser.js')
  const { EventSourceParserStream: DropInParserStream } = require('../../lib/entries/parser-stream.js')
  const here = path.basename(__filename)
  const cases = [
    ['new EventSource', () => new EventSource('http://127.0.0.1:1/', { reconnect: { factor: 'x' } })],
    ['new EventSource, deep in the init', () => new EventSource('http://127.0.0.1:1/', { http2: { pingTimeout: -1 } })],
    ['the eventsource package\'s EventSource', () => new PackageEventSource('http://127.0.0.1:1/', { maxBufferSize: -1 })],
    ['new EventSourceParser', () => new EventSourceParser({ onEvent: 1 })],
    ['new EventSourceStream', () => new EventSourceStream({ maxEventSize: 0 })],
    ['new EventSourceParserStream', () => new EventSourceParserStream({ maxEventSize: 0 })],
    ['eventsource-parser\'s createParser', () => createParser({ onEvent: 1 })],
    ['eventsource-parser\'s createParser, a function for the config', () => createParser(() => {})],
    ['eventsource-parser\'s EventSourceParserStream', () => new DropInParserStream({ maxBufferSize: -1 })]
  ]
  for (const [name, fn] of cases) {
    let err
    try {
      fn()
    } catch (caught) {
      err = caught
    }
    const frames = err.stack.split('\n').slice(1)
    t.match(frames[0], here, `${name}: the first frame is the caller's (${frames[0].trim()})`)
    t.notOk(err.stack.includes(`${path.sep}lib${path.sep}`), `${name}: no frame of lib/`)
  }
})
