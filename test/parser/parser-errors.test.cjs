'use strict'

// Every error EventSourceParser can throw: bad options, bad chunks, write after end, and an event
// over maxEventSize; plus how lib/errors/index.js describes values, and the validators behind them
// (lib/validators/values.js).

const t = require('tap')
const path = require('node:path')
const { EventSource, EventSourceParser } = require('../..')
const validators = require('../../lib/validators/values')
const { codes } = require('../../lib/errors')
const { DEFAULT_MAX_EVENT_SIZE } = require('../../lib/constants')
const { catchError, checkError, throwsError, parseAll, split } = require('../helpers/index.cjs')

const onEvent = () => {}
const bytes = (text) => Buffer.from(text)

function collecting (options = {}) {
  const events = []
  const parser = new EventSourceParser({ ...options, onEvent (type, data, id) { events.push([type, data, id]) } })
  return { parser, events }
}

t.test('options are validated', async (t) => {
  const argType = (name, what, received) => ({
    type: TypeError, code: 'ERR_INVALID_ARG_TYPE', message: `The ${name} must be ${what}. Received ${received}`
  })
  const range = (received) => ({
    type: RangeError,
    code: 'ERR_OUT_OF_RANGE',
    message: `The value of "options.maxEventSize" is out of range. It must be an integer >= 1 or Infinity. Received ${received}`
  })
  const cases = [
    [undefined, argType('"options" argument', 'of type object', 'undefined')],
    [null, argType('"options" argument', 'of type object', 'null')],
    ['x', argType('"options" argument', 'of type object', "type string ('x')")],
    [function onEvent () {}, argType('"options" argument', 'of type object', 'function onEvent')],
    [{}, argType('"options.onEvent" property', 'of type function', 'undefined')],
    [{ onEvent: {} }, argType('"options.onEvent" property', 'of type function', 'an instance of Object')],
    [{ onEvent, onRetry: 1 }, argType('"options.onRetry" property', 'of type function', 'type number (1)')],
    [{ onEvent, onRetry: null }, argType('"options.onRetry" property', 'of type function', 'null')],
    [{ onEvent, onComment: 'x' }, argType('"options.onComment" property', 'of type function', "type string ('x')")],
    [{ onEvent, maxEventSize: '1' }, argType('"options.maxEventSize" property', 'of type number', "type string ('1')")],
    [{ onEvent, maxEventSize: null }, argType('"options.maxEventSize" property', 'of type number', 'null')],
    [{ onEvent, maxEventSize: 1n }, argType('"options.maxEventSize" property', 'of type number', 'type bigint (1n)')],
    [{ onEvent, maxEventSize: 0 }, range('0')],
    [{ onEvent, maxEventSize: -1 }, range('-1')],
    [{ onEvent, maxEventSize: 1.5 }, range('1.5')],
    [{ onEvent, maxEventSize: NaN }, range('NaN')],
    [{ onEvent, maxEventSize: -Infinity }, range('-Infinity')],
    [{ onEvent, maxEventSize: 2 ** 53 }, range('9007199254740992')],
    [{ onEvent, lastEventId: 1 }, argType('"options.lastEventId" property', 'of type string', 'type number (1)')],
    [{ onEvent, lastEventId: null }, argType('"options.lastEventId" property', 'of type string', 'null')]
  ]
  for (const [options, expected] of cases) {
    t.test(expected.message, async (t) => {
      throwsError(t, () => new EventSourceParser(options), expected)
    })
  }
  t.test('valid options', async (t) => {
    for (const options of [
      { onEvent },
      { onEvent, onRetry: undefined, onComment: undefined, maxEventSize: undefined, lastEventId: undefined },
      { onEvent, maxEventSize: 1 },
      { onEvent, maxEventSize: Infinity },
      { onEvent, maxEventSize: Number.MAX_SAFE_INTEGER },
      { onEvent, lastEventId: '' },
      Object.assign(Object.create({ unrelated: true }), { onEvent })
    ]) {
      t.type(new EventSourceParser(options), EventSourceParser)
    }
  })
})

t.test('write() takes only a Uint8Array', async (t) => {
  const message = (received) => `The "chunk" argument must be an instance of Buffer or Uint8Array. Received ${received}`
  const cases = [
    ['data: x\n\n', "type string ('data: x\\n\\n')"],
    ['x'.repeat(40), "type string ('xxxxxxxxxxxxxxxxxxxxxxxx...)"],
    [1, 'type number (1)'],
    [1n, 'type bigint (1n)'],
    [Symbol('s'), 'type symbol (Symbol(s))'],
    [true, 'type boolean (true)'],
    [undefined, 'undefined'],
    [null, 'null'],
    [[0x61, 0x0a], 'an instance of Array'],
    [new ArrayBuffer(2), 'an instance of ArrayBuffer'],
    [new DataView(new ArrayBuffer(2)), 'an instance of DataView'],
    [new Uint16Array(2), 'an instance of Uint16Array'],
    [new Int8Array(2), 'an instance of Int8Array'],
    [new Uint8ClampedArray(2), 'an instance of Uint8ClampedArray'],
    [{ length: 1, 0: 0x0a }, 'an instance of Object'],
    [Object.create(null), '[Object: null prototype] {}'],
    [() => {}, 'function <anonymous>']
  ]
  const { parser, events } = collecting()
  parser.write(bytes('data: a\n'))
  for (const [chunk, received] of cases) {
    throwsError(t, () => parser.write(chunk), { type: TypeError, code: 'ERR_INVALID_ARG_TYPE', message: message(received) })
  }
  // A rejected chunk leaves the parser as it was.
  parser.write(bytes('\n'))
  t.same(events, [['message', 'a', '']])
  // A Uint8Array subclass is a Uint8Array.
  class Bytes extends Uint8Array {}
  parser.write(Bytes.from(bytes('data: b\n\n')))
  t.same(events, [['message', 'a', ''], ['message', 'b', '']])
})

t.test('write() after end()', async (t) => {
  const expected = {
    type: Error,
    code: 'ERR_EVENTSOURCE_WRITE_AFTER_END',
    message: 'write() was called after end(); call reset() to parse a new stream'
  }
  const { parser, events } = collecting()
  parser.write(bytes('data: a\n\ndata: b\n'))
  parser.end()
  parser.end()
  const err = throwsError(t, () => parser.write(bytes('\n')), expected)
  t.notOk(err instanceof TypeError || err instanceof RangeError, 'a plain Error')
  throwsError(t, () => parser.write(new Uint8Array(0)), expected)
  // The chunk type is checked first.
  checkError(t, catchError(t, () => parser.write('x')), {
    type: TypeError, code: 'ERR_INVALID_ARG_TYPE', message: /"chunk" argument/
  })
  t.same(events, [['message', 'a', '']], 'the unfinished event was discarded')
  parser.reset()
  parser.write(bytes('data: c\n\n'))
  t.same(events, [['message', 'a', ''], ['message', 'c', '']], 'reset() re-arms the parser')
})

t.test('maxEventSize', async (t) => {
  const tooLarge = (limit) => ({
    type: RangeError,
    code: 'ERR_EVENTSOURCE_EVENT_TOO_LARGE',
    message: `An event exceeded the maximum event size of ${limit} bytes (maxEventSize)`
  })

  t.test('an event of exactly the limit passes; one byte more fails', async (t) => {
    // Size: the data buffered so far (value bytes plus one per data line) plus the raw bytes of the
    // line being read. 'ab' + LF counts 3, then 'data:c' = 6: 9.
    const input = bytes('data:ab\ndata:c\n\n')
    t.same(parseAll([input], { maxEventSize: 9 }), [['event', 'message', 'ab\nc', '']])
    throwsError(t, () => parseAll([input], { maxEventSize: 8 }), tooLarge(8))
    const long = 'x'.repeat(40)
    const longInput = bytes(`data:${long}\ndata:c\n\n`) // 41, then 6: 47
    t.same(parseAll([longInput], { maxEventSize: 47 }), [['event', 'message', `${long}\nc`, '']])
    throwsError(t, () => parseAll([longInput], { maxEventSize: 46 }), tooLarge(46))
    t.same(parseAll([bytes('data:abc\n\n')], { maxEventSize: 8 }), [['event', 'message', 'abc', '']])
    throwsError(t, () => parseAll([bytes('data:abcd\n\n')], { maxEventSize: 8 }), tooLarge(8))
    t.same(parseAll([bytes('data\n\n')], { maxEventSize: 4 }), [['event', 'message', '', '']], 'a bare data line counts its 4 bytes')
    throwsError(t, () => parseAll([bytes('data\n\n')], { maxEventSize: 3 }), tooLarge(3))
  })

  t.test('the size is per event', async (t) => {
    const input = bytes('data:abc\n\ndata:abc\n\nevent:long-type-name\nid:long-id-value\nretry:12345\n:comment\ndata:abc\n\n')
    // The longest line is 20 bytes, the largest event 38 (its type, 14, and ID, 13, count too, with
    // the longest line after them, 'retry:12345'); the stream is far longer than that.
    const records = parseAll([input], { maxEventSize: 38 })
    t.equal(records.filter((r) => r[0] === 'event').length, 3)
    t.equal(records.length, 5, 'and the retry and the comment')
  })

  t.test('the event type and the ID buffer count, at their value bytes', async (t) => {
    // type 4 + id 3 + 'data:a' 6 = 13; the data line then counts 2.
    const input = bytes('event:type\nid:one\ndata:a\n\n')
    t.same(parseAll([input], { maxEventSize: 13 }), [['event', 'type', 'a', 'one']])
    throwsError(t, () => parseAll([input], { maxEventSize: 12 }), tooLarge(12))
    // A later ID replaces the earlier one, in the count too: 13 while 'id:i' (4) is read, then 1 while
    // 'data:abcdefghijklmnop' (21) is.
    const replaced = bytes('id:long-id-value\nid:i\ndata:abcdefghijklmnop\n\n')
    t.same(parseAll([replaced], { maxEventSize: 22 }), [['event', 'message', 'abcdefghijklmnop', 'i']])
    throwsError(t, () => parseAll([replaced], { maxEventSize: 21 }), tooLarge(21))
    // A later type is counted on top of the earlier one (a repeated `event:` line is rare): 3 + 1 + 6.
    const retyped = bytes('event:abc\nevent:d\ndata:a\n\n')
    t.same(parseAll([retyped], { maxEventSize: 10 }), [['event', 'd', 'a', '']])
    throwsError(t, () => parseAll([retyped], { maxEventSize: 9 }), tooLarge(9))
    // reset() keeps the last event ID, counted at two bytes per character from then on.
    const { parser, events } = collecting({ maxEventSize: 30 })
    parser.write(bytes('id:0123456789\ndata:a\n\n'))
    parser.reset()
    parser.write(bytes('data:bcdef\n\n')) // 20 + 10
    throwsError(t, () => parser.write(bytes('data:bcdefg\n\n')), tooLarge(30))
    t.same(events, [['message', 'a', '0123456789'], ['message', 'bcdef', '0123456789']])
    // The ID buffer outlives its event: it counts for the next ones too, until it changes.
    const carried = bytes('id:0123456789\ndata:a\n\ndata:bc\n\n')
    t.same(parseAll([carried], { maxEventSize: 17 }), [['event', 'message', 'a', '0123456789'], ['event', 'message', 'bc', '0123456789']])
    throwsError(t, () => parseAll([carried], { maxEventSize: 16 }), tooLarge(16))
    // A value that is not ASCII counts at least two bytes per UTF-16 unit: V8 may store it so.
    const wide = bytes('event:\u20ac\u20ac\u20ac\u20acx\ndata:a\n\n') // 13 bytes, 5 units: 13
    t.same(parseAll([wide], { maxEventSize: 19 }), [['event', '\u20ac\u20ac\u20ac\u20acx', 'a', '']])
    const ascii = bytes('event:a\u20acbcdefgh\ndata:a\n\n') // 11 bytes, 9 units: 18
    t.same(parseAll([ascii], { maxEventSize: 24 }), [['event', 'a\u20acbcdefgh', 'a', '']])
    throwsError(t, () => parseAll([ascii], { maxEventSize: 23 }), tooLarge(23))
  })

  t.test('each data line counts its value bytes and its LF, whatever the number of lines', async (t) => {
    // 'a' + LF: 2; 'b' + LF: 2; then 'data:c' (6) is read: 10.
    const input = bytes('data:a\ndata:b\ndata:c\n\n')
    t.same(parseAll([input], { maxEventSize: 10 }), [['event', 'message', 'a\nb\nc', '']])
    throwsError(t, () => parseAll([input], { maxEventSize: 9 }), tooLarge(9))
    // A longer value counts its bytes and LF: 2 + 101, then 6.
    const long = bytes(`data:a\ndata:${'x'.repeat(100)}\ndata:c\n\n`)
    t.same(parseAll([long], { maxEventSize: 109 }), [['event', 'message', `a\n${'x'.repeat(100)}\nc`, '']])
    throwsError(t, () => parseAll([long], { maxEventSize: 108 }), tooLarge(108))
    // An empty value counts its LF: 2 + 1, then 6.
    const empty = bytes('data:a\ndata\ndata:c\n\n')
    t.same(parseAll([empty], { maxEventSize: 9 }), [['event', 'message', 'a\n\nc', '']])
    throwsError(t, () => parseAll([empty], { maxEventSize: 8 }), tooLarge(8))
    // A data value that is not ASCII counts two bytes per unit: 'é' x 100 is 200 bytes and 100 units,
    // 100 bytes that are not UTF-8 decode to 100 U+FFFD, 'x' x 100 and a euro sign to 101 units.
    const wide = (value, limit) => parseAll([Buffer.concat([bytes('data:a\ndata:'), value, bytes('\ndata:c\n\n')])], { maxEventSize: limit })
    t.equal(wide(bytes('\u00e9'.repeat(100)), 2 + 201 + 6)[0][2].length, 104)
    throwsError(t, () => wide(bytes('\u00e9'.repeat(100)), 2 + 201 + 5), tooLarge(208))
    t.equal(wide(Buffer.alloc(100, 0xff), 2 + 201 + 6)[0][2].length, 104)
    throwsError(t, () => wide(Buffer.alloc(100, 0xff), 2 + 201 + 5), tooLarge(208))
    t.equal(wide(bytes(`${'x'.repeat(100)}\u20ac`), 2 + 203 + 6)[0][2].length, 105)
    throwsError(t, () => wide(bytes(`${'x'.repeat(100)}\u20ac`), 2 + 203 + 5), tooLarge(210))
    // A thousand one-byte lines count two bytes each, the event's bytes, not the strings that join
    // them: 999 x 2, then 'data:x' (6) is read. (The 1,000,000-line event: parser-many-lines.test.cjs.)
    const many = bytes(`${'data:x\n'.repeat(1000)}\n`)
    t.equal(parseAll([many], { maxEventSize: 2004 })[0][2], 'x\n'.repeat(1000).slice(0, -1))
    throwsError(t, () => parseAll([many], { maxEventSize: 2003 }), tooLarge(2003))
  })

  t.test('events before the overflow in the same chunk are delivered, later ones not', async (t) => {
    const { parser, events } = collecting({ maxEventSize: 8 })
    throwsError(t, () => parser.write(bytes('data:a\n\ndata:toolong\n\ndata:b\n\n')), tooLarge(8))
    t.same(events, [['message', 'a', '']])
  })

  t.test('an unterminated line counts while it is pending', async (t) => {
    const { parser } = collecting({ maxEventSize: 10 })
    parser.write(bytes('data:'))
    parser.write(bytes('xxxxx'))
    throwsError(t, () => parser.write(bytes('x')), tooLarge(10))
  })

  t.test('pending bytes add to the data already buffered', async (t) => {
    const { parser } = collecting({ maxEventSize: 10 })
    parser.write(bytes('data:abc\n')) // 4
    parser.write(bytes('data:x')) // + 6 pending
    throwsError(t, () => parser.write(bytes('y')), tooLarge(10))
  })

  t.test('a pending line that grows past the limit when its end arrives', async (t) => {
    const { parser } = collecting({ maxEventSize: 10 })
    parser.write(bytes('data:'))
    throwsError(t, () => parser.write(bytes('xxxxxx\n')), tooLarge(10))
  })

  t.test('a long line in one large chunk, without its end', async (t) => {
    const { parser } = collecting({ maxEventSize: 1000 })
    throwsError(t, () => parser.write(Buffer.alloc(1001, 0x78)), tooLarge(1000))
  })

  t.test('the error persists until reset(), then parsing works', async (t) => {
    const { parser, events } = collecting({ maxEventSize: 8 })
    const first = catchError(t, () => parser.write(bytes('data:abcdef\n\n')))
    checkError(t, first, tooLarge(8))
    for (const chunk of [bytes('data:a\n\n'), new Uint8Array(0), bytes('\n')]) {
      t.equal(catchError(t, () => parser.write(chunk)), first, 'the same error again')
    }
    t.same(events, [])
    parser.reset()
    parser.write(bytes('\ufeffdata:a\n\n'))
    t.same(events, [['message', 'a', '']], 'after reset() the stream starts over, BOM check included')
  })

  t.test('end() after the error, then write()', async (t) => {
    const { parser } = collecting({ maxEventSize: 4 })
    catchError(t, () => parser.write(bytes('data:abcdef\n\n')))
    parser.end()
    throwsError(t, () => parser.write(bytes('x')), { type: Error, code: 'ERR_EVENTSOURCE_WRITE_AFTER_END', message: /after end/ })
  })

  t.test('Infinity disables the limit', async (t) => {
    const value = 'x'.repeat(3 * 1024 * 1024)
    const input = bytes(`data:${value}\n\n`)
    t.same(parseAll(split(input, [1, 2, 1000]), { maxEventSize: Infinity }), [['event', 'message', value, '']])
  })

  t.test(`the default is ${DEFAULT_MAX_EVENT_SIZE} bytes`, async (t) => {
    t.equal(DEFAULT_MAX_EVENT_SIZE, 64 * 1024 * 1024)
    const { parser } = collecting()
    parser.write(Buffer.alloc(DEFAULT_MAX_EVENT_SIZE, 0x78))
    throwsError(t, () => parser.write(bytes('x')), tooLarge(DEFAULT_MAX_EVENT_SIZE))
  })

  t.test('whether an event is too large does not depend on the chunking', async (t) => {
    const verdict = (input, cuts, maxEventSize) => {
      try {
        return parseAll(split(bytes(input), cuts), { maxEventSize })
      } catch (err) {
        return err.code
      }
    }
    t.same(verdict('data:abc\n\n', [5], 4), verdict('data:abc\n\n', [], 4), 'data:abc, limit 4')
    t.same(verdict(`:${'x'.repeat(100)}\n`, [50], 10), verdict(`:${'x'.repeat(100)}\n`, [], 10), 'a comment, limit 10')
    // The limit counts the raw line: 8 bytes fit a limit of 8, not of 7, in one chunk or cut.
    t.same(verdict('data:abc\n\n', [], 8), [['event', 'message', 'abc', '']])
    t.equal(verdict('data:abc\n\n', [], 7), 'ERR_EVENTSOURCE_EVENT_TOO_LARGE')
    t.equal(verdict('data:abc\n\n', [5], 7), 'ERR_EVENTSOURCE_EVENT_TOO_LARGE')
  })
})

t.test('lib/errors/index.js', async (t) => {
  // How ERR_INVALID_ARG_TYPE describes the value it received, as Node does (through write()).
  const { parser } = collecting()
  const received = (value) => catchError(t, () => parser.write(value)).message.replace(/^.*\. Received/, ' Received')
  t.equal(received(undefined), ' Received undefined')
  t.equal(received(null), ' Received null')
  t.equal(received(function named () {}), ' Received function named')
  t.equal(received(Object.defineProperty(() => {}, 'name', { value: '' })), ' Received function <anonymous>')
  t.equal(received(new Map()), ' Received an instance of Map')
  t.equal(received({ constructor: null }), ' Received [Object]', 'no constructor name: inspected at depth -1, as Node does')
  t.equal(received(Object.create(null)), ' Received [Object: null prototype] {}')
  t.equal(received('a'.repeat(26)), ` Received type string ('${'a'.repeat(26)}')`, 'up to 28 characters shown')
  t.equal(received('a'.repeat(27)), ` Received type string ('${'a'.repeat(24)}...)`)
  t.equal(received(1.5), ' Received type number (1.5)')

  // ERR_INVALID_ARG_VALUE inspects the value (through the EventSource constructor).
  throwsError(t, () => new EventSource('http://127.0.0.1:1/', { reconnect: { jitter: 'x' } }), {
    type: TypeError,
    code: 'ERR_INVALID_ARG_VALUE',
    message: 'The "init.reconnect.jitter" property must be \'none\' or \'full\'. Received \'x\''
  })
  const err = catchError(t, () => parseAll([bytes('data:abcdefgh\n\n')], { maxEventSize: 7 }))
  t.equal(err.toString(), 'RangeError [ERR_EVENTSOURCE_EVENT_TOO_LARGE]: An event exceeded the maximum event size of 7 bytes (maxEventSize)')
  t.notOk(Object.keys(err).includes('toString'), 'toString is not enumerable')
  t.same(Object.keys(err), ['code'], 'code is the one own enumerable property')
  t.ok(err instanceof RangeError && err instanceof codes.ERR_EVENTSOURCE_EVENT_TOO_LARGE, 'an instance of its code\'s class, a RangeError')
  t.notOk(err.stack.includes(path.join('lib', 'errors') + path.sep), 'the stack starts where the error was made, not in lib/errors/')
})

t.test('lib/validators/values.js', async (t) => {
  const { validateObject, validateFunction, validateOptionalFunction, validateString, validateLimit } = validators
  t.doesNotThrow(() => validateObject({}, 'o'))
  t.doesNotThrow(() => validateObject([], 'o'))
  t.doesNotThrow(() => validateFunction(() => {}, 'f'))
  t.doesNotThrow(() => validateOptionalFunction(undefined, 'f'))
  t.doesNotThrow(() => validateString('', 's'))
  throwsError(t, () => validateObject(1, 'o'), { type: TypeError, code: 'ERR_INVALID_ARG_TYPE', message: 'The "o" argument must be of type object. Received type number (1)' })
  throwsError(t, () => validateFunction(null, 'a.f'), { type: TypeError, code: 'ERR_INVALID_ARG_TYPE', message: 'The "a.f" property must be of type function. Received null' })
  throwsError(t, () => validateString(Symbol.iterator, 's'), { type: TypeError, code: 'ERR_INVALID_ARG_TYPE', message: 'The "s" argument must be of type string. Received type symbol (Symbol(Symbol.iterator))' })
  // Defaults: min 0, Infinity not allowed.
  t.doesNotThrow(() => validateLimit(0, 'n'))
  const notInfinite = { type: RangeError, code: 'ERR_OUT_OF_RANGE', message: 'The value of "n" is out of range. It must be an integer >= 0. Received Infinity' }
  throwsError(t, () => validateLimit(Infinity, 'n'), notInfinite)
  throwsError(t, () => validateLimit(Infinity, 'n', { min: 0 }), notInfinite)
  throwsError(t, () => validateLimit(-1, 'n'), { type: RangeError, code: 'ERR_OUT_OF_RANGE', message: /It must be an integer >= 0\. Received -1$/ })
  throwsError(t, () => validateLimit(2, 'n', { min: 3, allowInfinity: true }), { type: RangeError, code: 'ERR_OUT_OF_RANGE', message: /It must be an integer >= 3 or Infinity\. Received 2$/ })
  t.doesNotThrow(() => validateLimit(Infinity, 'n', { allowInfinity: true }))
})
