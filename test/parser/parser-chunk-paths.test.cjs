'use strict'

// The parser takes a different path depending on a chunk's length and content (lib/parser/parser.js): a
// chunk of 16 bytes or more that starts a line is decoded whole when it is ASCII (String#indexOf then
// finds its line ends, a line followed by a blank line is dispatched without a second search), and a
// chunk in the middle of a long line that holds no line end is added to it without being decoded or
// scanned. Each path must give what the byte loop gives: the reference model's callbacks, and the same
// maxEventSize.

const t = require('tap')
const { EventSourceParser } = require('../..')
const { reference, split, sizeCuts, parseAll } = require('../helpers/index.cjs')

// Streams whose short chunks are ASCII or not in every way the text test must tell apart.
const streams = {
  'ASCII, LF': 'data: {"choices":[{"delta":{"content":"tok"}}]}\n\n'.repeat(6),
  'ASCII, one event of several lines': 'id: 7\nevent: tick\nretry: 1500\ndata: first line of it\ndata: second\n\n: comment\n\n',
  'ASCII, CRLF and CR': 'data: crlf line\r\n\r\ndata: cr line\r\rdata: mixed\r\n\n',
  'two-byte and three-byte characters': 'data: héllo wörld, ça va?\n\nevent: ünïcødé\ndata: 中文字符 and more\n\n',
  'four-byte characters': 'id: 🔑\ndata: 🚀🌍✨ rocket world sparkles\n\n',
  // Each invalid byte is one U+FFFD: as many UTF-16 units as bytes, like ASCII.
  'invalid bytes, one U+FFFD each': Buffer.concat([Buffer.from('data: abc'), Buffer.from([0x80, 0xff, 0xc0]), Buffer.from('defghijklmnop\n\n')]),
  'a literal U+FFFD': 'data: replacement \ufffd character here\n\n',
  'NUL in an id': Buffer.concat([Buffer.from('id: a'), Buffer.from([0]), Buffer.from('b\ndata: after the ignored id\n\n')]),
  'blank lines and unknown fields': '\n\nfoo: bar\ndata\n\ndata:\n\nretry: 12x\n\ndata: last one\n\n'
}

for (const [name, input] of Object.entries(streams)) {
  t.test(`${name}: every chunk size gives the reference model's callbacks`, async (t) => {
    const bytes = Buffer.from(input)
    const expected = reference([bytes])
    t.ok(expected.length > 0, 'the stream has callbacks to compare')
    const wrong = []
    for (let size = 1; size <= bytes.length; size++) {
      if (JSON.stringify(parseAll(split(bytes, sizeCuts(bytes.length, size)))) !== JSON.stringify(expected)) wrong.push(size)
    }
    t.same(wrong, [], 'no chunk size differs')
  })
}

t.test('bytes that are not UTF-8 cost two bytes per U+FFFD in a short chunk, as in the byte loop', async (t) => {
  // 40 bytes 0x80 decode to 40 U+FFFD, as many units as bytes, as ASCII would: they cost 80 (see
  // valueCost in lib/parser/parser.js), so the second line finds the event past 60 bytes, whatever the chunking.
  const bytes = Buffer.concat([Buffer.from('data: '), Buffer.alloc(40, 0x80), Buffer.from('\ndata: x\n\n')])
  for (const chunks of [[bytes], split(bytes, sizeCuts(bytes.length, 1))]) {
    const parser = new EventSourceParser({ onEvent () {}, maxEventSize: 60 })
    const error = t.throws(() => { for (const chunk of chunks) parser.write(chunk) })
    t.equal(error.code, 'ERR_EVENTSOURCE_EVENT_TOO_LARGE', `in ${chunks.length} chunk(s)`)
  }
})

t.test('a type replaced by an empty one is not counted against the next one-line event', async (t) => {
  // The one-line event of an ASCII chunk is dispatched without the event's buffers; its check must
  // see what the byte loop sees. Here an event type set then emptied costs 10 until its event is
  // dispatched, and nothing after: the second event (a line of 15 bytes) fits a limit of 20 however
  // the stream is cut (found by a differential against the compact parser browsers once ran).
  const bytes = Buffer.from('event: xxxxxxxxxx\nevent:\ndata: a\n\ndata: bbbbbbbbb\n\n')
  const expected = [['event', 'message', 'a', ''], ['event', 'message', 'bbbbbbbbb', '']]
  for (let size = 1; size <= bytes.length; size++) {
    t.same(parseAll(split(bytes, sizeCuts(bytes.length, size)), { maxEventSize: 20 }), expected, `chunks of ${size}`)
  }
})

t.test('a chunk that ends inside a multi-byte character is not taken as ASCII', async (t) => {
  // 'é' is 0xc3 0xa9: the first chunk ends after 0xc3, which decodes alone to U+FFFD.
  const bytes = Buffer.from('data: abcdefghijklmnopé\n\n')
  const cut = bytes.indexOf(0xc3) + 1
  t.same(parseAll([bytes.subarray(0, cut), bytes.subarray(cut)]), [['event', 'message', 'abcdefghijklmnopé', '']])
})

// A long line in chunks of `size` bytes (the tail and the blank line in the last one).
function longLine (valueLength, size, tail = '\n\n') {
  const bytes = Buffer.from(`data: ${'v'.repeat(valueLength)}${tail}`)
  return split(bytes, sizeCuts(bytes.length, size), { forms: false })
}

t.test('a long line whose middle chunks hold no line end is joined whole', async (t) => {
  for (const size of [128, 129, 1000, 65536]) {
    const records = parseAll(longLine(300_000, size))
    t.same(records.map(([kind, type, data]) => [kind, type, data.length]), [['event', 'message', 300_000]], `chunks of ${size}`)
  }
})

t.test('a long line ended by a CR, or by a CR in the middle of a chunk, is taken as ended', async (t) => {
  // The last: the CR that ends the long line is in a chunk of 256 bytes without an LF.
  for (const tail of ['\r\r', '\r\n\r\n', '\rdata: more\n\n', `\r:${'c'.repeat(1000)}\r\rdata: x\r\r`]) {
    const chunks = longLine(10_000, 256, tail)
    const expected = reference([Buffer.concat(chunks)])
    t.same(parseAll(chunks), expected, JSON.stringify(tail.length > 40 ? `${tail.slice(0, 20)}…${tail.slice(-20)}` : tail))
  }
})

t.test('maxEventSize holds for the chunks of a long line kept without being decoded', async (t) => {
  const limit = 100_000
  for (const size of [128, 4096, 65536]) {
    const parser = new EventSourceParser({ onEvent () { t.fail('no event') }, maxEventSize: limit })
    let written = 0
    const error = t.throws(() => {
      for (const chunk of longLine(1_000_000, size)) {
        parser.write(chunk)
        written += chunk.length
      }
    })
    t.equal(error.code, 'ERR_EVENTSOURCE_EVENT_TOO_LARGE', `chunks of ${size}`)
    t.ok(written <= limit, `it failed before ${limit} bytes were kept (${written} written before the chunk that failed)`)
  }
})

// A long `data:` line that spans chunks, cut before, inside and after `data: `, in chunks of every size: some
// are added to it without being decoded or scanned (no line end), the one that ends it completes it.
t.test('a long data line across chunks gives the reference model\'s callbacks, whichever path it takes', async (t) => {
  const value = Array.from({ length: 20_000 }, (_, i) => 'abcdefghij'[i % 10]).join('')
  const inputs = {
    'ASCII, LF': `id: 1\ndata: ${value}\n\n`,
    'no space after the colon': `data:${value}\ndata: second\n\n`,
    'two long lines, CRLF': `data: ${value}\r\ndata: ${value}\r\n\r\n`,
    'ended by a CR': `data: ${value}\r\rdata: after\r\r`,
    'not ASCII in the middle': `data: ${value}é${value}\n\n`,
    'not ASCII at the end': `data: ${value}🔑\n\n`,
    'a long line of another field': `event: ${value}\ndata: x\n\n`
  }
  for (const [name, input] of Object.entries(inputs)) {
    const bytes = Buffer.from(input)
    const expected = reference([bytes])
    // The first cut after 3, 5 and 6 bytes (the first piece short of `data: `), or chunks of 128 B to 64 KiB.
    const cuttings = [[3, 200], [5, 300], [6, 7000], [5], [128], [4096], [65536]].map((sizes) => {
      const cuts = []
      for (let at = 0, i = 0; ; i++) {
        at += sizes[Math.min(i, sizes.length - 1)]
        if (at >= bytes.length) break
        cuts.push(at)
      }
      return cuts
    })
    const wrong = cuttings.filter((cuts) => JSON.stringify(parseAll(split(bytes, cuts, { forms: false }))) !== JSON.stringify(expected))
    t.same(wrong.map((cuts) => cuts.slice(0, 2)), [], name)
  }
})

t.test('maxEventSize holds for a long data line across chunks as for one in a single chunk', async (t) => {
  const limit = 50_000
  const outcome = (chunks) => {
    const parser = new EventSourceParser({ onEvent (type, data) { events.push(data.length) }, maxEventSize: limit })
    const events = []
    try {
      for (const chunk of chunks) parser.write(chunk)
    } catch (error) {
      return error.code
    }
    return events
  }
  // Around the limit: the line's own bytes, then a second line after the value and its LF are counted.
  for (const length of [limit - 7, limit - 6, limit - 5, limit + 1]) {
    for (const input of [`data: ${'v'.repeat(length)}\n\n`, `data: ${'v'.repeat(length >> 1)}\ndata: ${'w'.repeat(length >> 1)}\n\n`]) {
      const bytes = Buffer.from(input)
      t.same(outcome(split(bytes, sizeCuts(bytes.length, 4096), { forms: false })), outcome([bytes]), `${input.length} bytes`)
    }
  }
})
