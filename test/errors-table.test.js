'use strict'

// lib/errors.js: what a declared constructor makes. Each code's error is an instance of its class
// itself, prints as `Name [CODE]: message` (toString() and the first stack line) with a plain `name`,
// and has `code` as its one own enumerable property; a connection error also carries the details and
// the cause it was given. (The messages themselves are asserted where each error is produced.)

const t = require('tap')
const path = require('node:path')
const { codes } = require('../lib/errors')
const { checkError } = require('./helpers')

const ARGUMENT_CODES = {
  ERR_INVALID_ARG_TYPE: TypeError,
  ERR_INVALID_ARG_VALUE: TypeError,
  ERR_INVALID_CHAR: TypeError,
  ERR_INVALID_HTTP_TOKEN: TypeError,
  ERR_OUT_OF_RANGE: RangeError,
  ERR_EVENTSOURCE_EVENT_TOO_LARGE: RangeError,
  ERR_EVENTSOURCE_WRITE_AFTER_END: Error
}

t.test('every code makes an error of its class, in Node\'s shape', async (t) => {
  for (const [code, Ctor] of Object.entries(codes)) {
    const Base = ARGUMENT_CODES[code] ?? Error
    const err = new Ctor(...Array.from({ length: Ctor.length }, (_, i) => `argument ${i}`))
    checkError(t, err, { type: Base, code, message: /\S/ })
    t.equal(err.constructor, Base, `${code}: an instance of ${Base.name} itself`)
    t.same(Object.keys(err), ['code'], `${code}: code is the one own enumerable property`)
    t.notOk(Object.hasOwn(err, 'cause'), `${code}: no cause when none is given`)
    t.notOk(err.stack.includes(path.join('lib', 'errors.js')), `${code}: the stack starts where the error was made`)
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
