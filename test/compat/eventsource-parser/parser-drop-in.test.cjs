'use strict'

// whatwg-eventsource/parser, the drop-in for eventsource-parser 4, piece by piece: createParser's callbacks
// and what each receives, ParseError, the BOM, CRs at the end of a feed, incomplete lines, maxBufferSize and
// its terminated state, reset() and reset({ consume }), surrogate pairs, argument errors. Where a test names
// eventsource-parser's behaviour, test/compat/eventsource-parser/parser-drop-in-compare.test.cjs checks it
// against eventsource-parser itself on the same inputs at every chunking.

const t = require('tap')
const { createParser, ParseError } = require('../../../lib/entries/parser.js')
const { checkError, throwsError, feedStrings } = require('../../helpers/index.cjs')
const { importBrowserBuild } = require('../../helpers/bundle.cjs')

// Records every callback of a parser fed `chunks`; returns the records (see feedStrings).
function feed (chunks, options) {
  return feedStrings(createParser, [chunks], options).filter((r) => r[0] !== 'feed')
}

const event = (data, { id, type } = {}) => ['event', id, type, data, 'id,event,data']
const error = (type, message, { field, value, line } = {}) =>
  ['error', 'ParseError', type, message, field, value, line, 'name,type,field,value,line', true]

t.test('createParser() returns feed() and reset(), which work detached', async (t) => {
  const events = []
  const parser = createParser({ onEvent: (e) => events.push(e) })
  t.same(Object.keys(parser), ['feed', 'reset'])
  const { feed, reset } = parser
  feed('data: a\n\n')
  feed('data: b\n')
  reset()
  feed('\n')
  t.same(events, [{ id: undefined, event: undefined, data: 'a' }])
})

t.test('events: the type and ID of their own block only, undefined when it set none', async (t) => {
  t.same(feed(['id: 1\nevent: add\ndata: a\n\ndata: b\n\nevent:\ndata: c\n\nevent: message\ndata: d\n\n']), [
    ['id', '1'],
    event('a', { id: '1', type: 'add' }),
    event('b'),
    event('c'),
    event('d', { type: 'message' })
  ])
  t.same(feed(['data: 1\ndata\ndata:  2\n\n']), [event('1\n\n 2')], 'lines joined by LF; one leading space removed')
})

t.test('onId: at the end of every block that set an ID, before its event, with or without data', async (t) => {
  t.same(feed(['id: 7\n\nid\ndata: x\n\nid: a\u0000b\ndata: y\n\n']), [
    ['id', '7'],
    ['id', ''],
    event('x', { id: '' }),
    // An ID with NUL is ignored, as the standard says.
    event('y')
  ])
})

t.test('onRetry: digits only; anything else is an invalid-retry ParseError', async (t) => {
  t.same(feed(['retry: 1500\nretry: 0015\nretry: 1x\nretry:\nretry\nretry: -1\n']), [
    ['retry', 1500],
    ['retry', 15],
    error('invalid-retry', 'Invalid `retry` value: "1x"', { value: '1x', line: 'retry: 1x' }),
    error('invalid-retry', 'Invalid `retry` value: ""', { value: '', line: 'retry:' }),
    error('invalid-retry', 'Invalid `retry` value: ""', { value: '', line: 'retry' }),
    error('invalid-retry', 'Invalid `retry` value: "-1"', { value: '-1', line: 'retry: -1' })
  ])
  // Past 2^53, rounded once, as parseInt() rounds (a sum of digits would be off in the last place).
  const digits = '86288864886024208288'
  t.same(feed([`retry: ${digits}\nretry: ${'9'.repeat(400)}\n`]), [['retry', parseInt(digits, 10)], ['retry', Infinity]])
})

t.test('onComment: the text after the colon, one leading space removed', async (t) => {
  t.same(feed([': hello\n:world\n:\n:  two\n']), [['comment', 'hello'], ['comment', 'world'], ['comment', ''], ['comment', ' two']])
})

t.test('onError: unknown fields, with field, value and line', async (t) => {
  t.same(feed(['foo: bar\nDATA:x\nnocolon\nan-unknown-field-name-longer-than-twenty: v\n']), [
    error('unknown-field', 'Unknown field "foo"', { field: 'foo', value: 'bar', line: 'foo: bar' }),
    error('unknown-field', 'Unknown field "DATA"', { field: 'DATA', value: 'x', line: 'DATA:x' }),
    error('unknown-field', 'Unknown field "nocolon"', { field: 'nocolon', value: '', line: 'nocolon' }),
    error('unknown-field', 'Unknown field "an-unknown-field-nam…"', {
      field: 'an-unknown-field-name-longer-than-twenty', value: 'v', line: 'an-unknown-field-name-longer-than-twenty: v'
    })
  ])
})

t.test('an incomplete line that cannot become a field is dropped, unreported, as eventsource-parser does', async (t) => {
  t.same(feed(['foo', ': bar\ndata: a\n\n']), [event('a')], 'cut after "foo": dropped')
  t.same(feed(['da', 'tax', ': 1\ndata: a\n\n']), [event('a')], 'cut after "da", then after "datax": dropped')
  t.same(feed(['da', 'tax: 1\ndata: a\n\n']), [
    error('unknown-field', 'Unknown field "datax"', { field: 'datax', value: '1', line: 'datax: 1' }),
    event('a')
  ], 'cut after "da", then complete: reported')
  t.same(feed(['data', 'x: 1\ndata: a\n\n']), [
    error('unknown-field', 'Unknown field "datax"', { field: 'datax', value: '1', line: 'datax: 1' }),
    event('a')
  ], 'cut after "data", which may still become a field: kept and reported')
  t.same(feed([':', ' x\n'], { callbacks: ['onError'] }), [], 'a comment without onComment is dropped')
})

t.test('ParseError', async (t) => {
  const errors = []
  createParser({ onError: (e) => errors.push(e) }).feed('x: 1\n')
  const [e] = errors
  t.ok(e instanceof ParseError)
  t.ok(e instanceof Error)
  t.equal(e.name, 'ParseError')
  t.equal(String(e), 'ParseError: Unknown field "x"')
  t.match(e.stack, /^ParseError: Unknown field "x"\n/)
  t.same({ ...e }, { name: 'ParseError', type: 'unknown-field', field: 'x', value: '1', line: 'x: 1' })
  const made = new ParseError('m', { type: 'max-buffer-size-exceeded' })
  t.same(Object.keys(made), ['name', 'type', 'field', 'value', 'line'], 'own properties, undefined ones too')
})

t.test('the BOM: one, decoded or as Latin-1 bytes, at the start of each stream', async (t) => {
  t.same(feed(['\ufeffdata: a\n\n']), [event('a')])
  t.same(feed(['\xEF\xBB\xBFdata: a\n\n']), [event('a')])
  t.same(feed(['\xEF', '', '\xBB', '\xBFdata: a\n\n']), [event('a')], 'the Latin-1 form one character per feed')
  t.same(feed(['\xEF\xBB', 'x: 1\n']), [
    error('unknown-field', 'Unknown field "\xEF\xBBx"', { field: '\xEF\xBBx', value: '1', line: '\xEF\xBBx: 1' })
  ], 'half of it is content')
  t.same(feed(['\ufeff\ufeffdata: a\n\n']), [
    error('unknown-field', 'Unknown field "\ufeffdata"', { field: '\ufeffdata', value: 'a', line: '\ufeffdata: a' })
  ], 'a second BOM is content')
  const events = []
  const parser = createParser({ onEvent: (e) => events.push(e.data) })
  parser.feed('\ufeffdata: a\n\n')
  parser.reset()
  parser.feed('\ufeffdata: b\n\n')
  t.same(events, ['a', 'b'], 'again after reset()')
})

t.test('line ends: a CR that ends a feed ends its line at once; an LF that starts the next is its CRLF', async (t) => {
  t.same(feed(['data: a\r', '\ndata: b\r', '\r', '\n']), [event('a\nb')])
  t.same(feed(['data: a\r', '\n\n']), [event('a')])
  t.same(feed(['retry: 5\r']), [['retry', 5]], 'the line is parsed before the next feed')
})

t.test('surrogate pairs cut by a feed boundary stay whole', async (t) => {
  t.same(feed(['id: \ud83d', '\udd11\ndata: \ud83d', '\ude00\n\n']), [['id', '🔑'], event('😀', { id: '🔑' })])
  // A lone surrogate (no TextDecoder makes one) stays as it is, as in eventsource-parser.
  t.same(feed(['data: a\udc00b\n\n']), [event('a\udc00b')])
})

t.test('blocks of data, event and id lines: the same results with LF and with CRLF line ends', async (t) => {
  // A feed without CR takes the parser's LF-only shortcuts (one-line events among them); the same text
  // with CRLF line ends takes none of them. Both must report the same.
  const texts = [
    ['one-line events, as LLM token streams send them', 'data: {"a":1}\n\ndata:b\n\ndata:\n\n'],
    ['event, id and data lines', 'event: delta\nid: 7\ndata: 1\ndata:  2\n\nid: 8\n\nevent:\ndata:\n\nid\ndata: x\n\n'],
    ['an id with U+0000 is ignored', 'id: 1\ndata: a\n\nid: b\u0000\ndata: c\n\n'],
    ['then a block the general path takes, then simple ones again', 'data: 1\n\nretry: 5\ndata: 2\n\n: c\ndata: 3\n\ndata: 4\n\n'],
    ['a block not ended in the feed', 'data: 1\n\nevent: e\ndata: 2\n'],
    ['lone surrogates in every value stay as they are', 'id: a\udc00\nevent: \ud800b\ndata: c\udfff\n\n']
  ]
  for (const [name, text] of texts) {
    for (const options of [{}, { callbacks: ['onId', 'onRetry', 'onError', 'onComment'] }]) {
      const simple = feed([text], options)
      t.ok(simple.some((r) => r[0] === 'event'), `${name}: not vacuous`)
      t.same(simple, feed([text.replaceAll('\n', '\r\n')], options), `${name} ${JSON.stringify(options)}`)
    }
  }
  t.same(feed(['id: a\udc00\nevent: \ud800b\ndata: c\udfff\n\n']), [['id', 'a\udc00'], event('c\udfff', { id: 'a\udc00', type: '\ud800b' })])

  const records = []
  const parser = createParser({
    onId (id) { records.push(['id', id]); if (id === '1') parser.reset() },
    onEvent (e) { records.push(['event', e.data]); if (e.data === 'b') parser.reset() }
  })
  parser.feed('id: 1\ndata: a\n\ndata: b\n\nid: 2\ndata: c\n\n')
  t.same(records, [['id', '1'], ['event', 'b'], ['id', '2'], ['event', 'c']],
    'reset() from onId drops its event; from onEvent, the rest of the feed is parsed')
})

t.test('without String#isWellFormed (browsers before 2023), the parser works the same', async (t) => {
  const text = 'event: delta\nid: 7\ndata: 1\ndata: 2\n\ndata: a\udc00\n\n'
  const expected = feed([text])
  const descriptor = Object.getOwnPropertyDescriptor(String.prototype, 'isWellFormed')
  const parsed = (create) => feedStrings(create, [[text]]).filter((r) => r[0] !== 'feed')
  delete String.prototype.isWellFormed
  try {
    t.same(parsed(createParser), expected, 'Node\'s, run while it is gone')
    // The browser build, loaded while it is gone (a build of its own: every module evaluated then), must
    // not need it either.
    const { exports: withoutIt } = await importBrowserBuild(t, "export { createParser } from './lib/entries/parser.js'")
    t.not(withoutIt.createParser, createParser, 'a build of its own')
    t.same(parsed(withoutIt.createParser), expected, 'the browser build\'s')
  } finally {
    Object.defineProperty(String.prototype, 'isWellFormed', descriptor) // eslint-disable-line no-extend-native -- restores it
  }
  t.equal(expected.filter((r) => r[0] === 'event').length, 2, 'not vacuous')
})

t.test('maxBufferSize: the incomplete line and the data buffer, in characters', async (t) => {
  const exceeded = error('max-buffer-size-exceeded', 'Buffered data exceeded max buffer size of 8 characters')
  t.same(feed(['data: 12', '3\n\n'], { maxBufferSize: 8 }), [event('123')], 'within the limit')
  t.same(feed(['data: 123', '\n\n'], { maxBufferSize: 8 }), [exceeded, ['threw', TERMINATED]], 'an incomplete line past it')
  t.same(feed(['data: 1234\ndata: 5678\ndata: 9\n: after\n\n'], { maxBufferSize: 8 }), [exceeded],
    'the data buffer past it: nothing after that line is parsed')
  t.same(feed(['data: 123456789\n\n'], { maxBufferSize: 8 }), [event('123456789')],
    'eventsource-parser does not check a one-line event whose blank line follows at once')
  t.same(feed(['data: 123456789\r\n\r\n'], { maxBufferSize: 8 }), [exceeded], 'unless the feed has a CR')
  t.same(feed(['data: 123456789\n', '\n'], { maxBufferSize: 8 }), [exceeded, ['threw', TERMINATED]], 'or the blank line is in the next feed')
  t.same(feed(['data: 123456789\n\n'], { maxBufferSize: Infinity }), [event('123456789')], 'Infinity: no limit')
  t.same(feed(['event: e\nid: 1\ndata: 123456789\n\n'], { maxBufferSize: 8 }), [['id', '1'], event('123456789', { id: '1', type: 'e' })],
    'nor one whose only data line the blank line follows, after other lines')
  t.same(feed(['data: 1\n\ndata: 1234\ndata: 5678\n\n'], { maxBufferSize: 8 }), [event('1'), exceeded],
    'but it checks a second data line, even one the blank line follows')
  t.same(feed(['data: 1\n\ndata: 123456789\nid: 1\n\n'], { maxBufferSize: 8 }), [event('1'), exceeded],
    'and a first one that another line follows')
})

const TERMINATED = 'Cannot feed parser: it was terminated after exceeding the configured max buffer size. Call `reset()` to resume parsing.'

t.test('after an overflow, feed() throws until reset()', async (t) => {
  const errors = []
  const events = []
  const parser = createParser({ onEvent: (e) => events.push(e.data), onError: (e) => errors.push(e.type), maxBufferSize: 4 })
  parser.feed('data: 12345')
  t.same(errors, ['max-buffer-size-exceeded'])
  const err = throwsError(t, () => parser.feed('\n\n'), { type: Error, code: 'ERR_EVENTSOURCE_PARSER_TERMINATED', message: TERMINATED })
  t.ok(err)
  parser.reset()
  parser.feed('data: 1\n\n')
  t.same(events, ['1'])
})

t.test('reset(): a new stream; { consume: true } parses the incomplete line first', async (t) => {
  t.same(feedStrings(createParser, [['data: a\nretry: 12'], ['data: b\n\n']]).filter((r) => r[0] !== 'feed'), [
    ['reset', false],
    event('b')
  ], 'the event and the incomplete line are forgotten')
  t.same(feedStrings(createParser, [['data: a\nretry: 12'], [': x'], ['foo'], ['data: b']], { consume: true, end: true }).filter((r) => r[0] !== 'feed'), [
    ['reset', true],
    ['retry', 12],
    ['reset', true],
    ['comment', 'x'],
    // An incomplete line that cannot be a field was dropped already: nothing to consume.
    ['reset', true],
    ['reset', true]
  ], 'its fields take effect; its event is not dispatched')
})

t.test('reset() from a callback forgets the event being read and goes on with the chunk', async (t) => {
  t.same(feed(['data: a\n: reset\ndata: b\n\ndata: c\n\n'], { resetAt: 1 }), [
    ['comment', 'reset'],
    ['reset', false],
    event('b'),
    event('c')
  ])
  const records = []
  const parser = createParser({
    onId (id) { records.push(['id', id]); parser.reset() },
    onEvent (e) { records.push(['event', e.data]) }
  })
  parser.feed('id: 1\ndata: a\nretry: 5\n\ndata: b\n\n')
  t.same(records, [['id', '1'], ['event', 'b']], 'from onId: the event is not dispatched')
})

t.test('feed() from a callback parses its chunk there and then', async (t) => {
  const records = []
  const parser = createParser({
    onEvent (e) {
      records.push(e.data)
      if (e.data === 'a') parser.feed('data: nested\n\n')
    }
  })
  parser.feed('data: a\n\ndata: b\n\n')
  t.same(records, ['a', 'nested', 'b'])
})

t.test('an overflow in a callback\'s feed drops the rest of the feed being parsed', async (t) => {
  for (const first of ['data: a', 'event: e\ndata: a']) {
    for (const eol of ['\n', '\r\n']) {
      const records = []
      const parser = createParser({
        maxBufferSize: 4,
        onEvent (e) {
          records.push(e.data)
          if (e.data === 'a') parser.feed('data: 12345')
        },
        onError (e) { records.push(e.type) }
      })
      parser.feed(`${first.replaceAll('\n', eol)}${eol}${eol}data: b${eol}${eol}`)
      t.same(records, ['a', 'max-buffer-size-exceeded'], JSON.stringify([first, eol]))
    }
  }
})

t.test('an overflow in a callback\'s feed stops the feed being parsed, whichever line made the callback', async (t) => {
  const cases = [
    ['the blank line of a two-line event', ['data: a\ndata: b\n\ndata: c\n\n'], ['event', 'a\nb']],
    ['a comment', [': a\ndata: c\n\n'], ['comment', 'a']],
    ['a one-line event that ends an incomplete line', ['dat', 'a:a\n\ndata: c\n\n'], ['event', 'a']],
    ['the same with CRLF', ['dat', 'a:a\r\n\r\ndata: c\r\n\r\n'], ['event', 'a']]
  ]
  for (const [name, feeds, first] of cases) {
    const records = []
    const overflow = () => parser.feed('data: 12345')
    const parser = createParser({
      maxBufferSize: 4,
      onEvent (e) { records.push(['event', e.data]); if (e.data !== 'c') overflow() },
      onComment (text) { records.push(['comment', text]); overflow() },
      onError (e) { records.push(['error', e.type]) }
    })
    for (const feed of feeds) parser.feed(feed)
    t.same(records, [first, ['error', 'max-buffer-size-exceeded']], name)
  }
})

t.test('large feeds, and feeds that are not ASCII', async (t) => {
  const big = 'x'.repeat(100_000)
  const text = `id: é\ndata: ${big}\ndata: 中文😀\n\n`.repeat(3)
  const records = feed([text.slice(0, 150_000), text.slice(150_000)])
  t.same(records, [
    ['id', 'é'], event(`${big}\n中文😀`, { id: 'é' }),
    ['id', 'é'], event(`${big}\n中文😀`, { id: 'é' }),
    ['id', 'é'], event(`${big}\n中文😀`, { id: 'é' })
  ])
})

t.test('a parser without callbacks parses without failing', async (t) => {
  const parser = createParser({})
  parser.feed('id: 1\nretry: 1\n: c\nx: y\ndata: a\n\n')
  parser.reset({ consume: true })
  t.pass()
})

t.test('arguments', async (t) => {
  throwsError(t, () => createParser(() => {}), {
    type: TypeError, code: 'ERR_INVALID_ARG_TYPE', message: /"config" argument must be an object \(did you mean createParser\(\{ onEvent: fn \}\)\?\)/
  })
  throwsError(t, () => createParser(), { type: TypeError, code: 'ERR_INVALID_ARG_TYPE', message: /"config" argument must be of type object\. Received undefined/ })
  throwsError(t, () => createParser({ maxBufferSize: -1 }), { type: RangeError, code: 'ERR_OUT_OF_RANGE', message: /"config\.maxBufferSize" is out of range/ })
  throwsError(t, () => createParser({ maxBufferSize: '10' }), { type: TypeError, code: 'ERR_INVALID_ARG_TYPE', message: /"config\.maxBufferSize" property must be of type number/ })
  throwsError(t, () => createParser({ onRetry: 'x' }), { type: TypeError, code: 'ERR_INVALID_ARG_TYPE', message: /"config\.onRetry" property must be of type function/ })
  t.doesNotThrow(() => createParser({ onEvent: null, onRetry: null, onComment: null, onError: null, onId: null }), 'null callbacks are absent ones')
  const parser = createParser({})
  const err = throwsError(t, () => parser.feed(Buffer.from('data: a\n\n')), {
    type: TypeError, code: 'ERR_INVALID_ARG_TYPE', message: /"chunk" argument must be of type string\. Received an instance of Buffer/
  })
  checkError(t, err, { type: TypeError, code: 'ERR_INVALID_ARG_TYPE', message: err.message })
})
