'use strict'

// maxEventSize bounds what the parser really holds. For streams shaped to hold as much as they can per
// counted byte, fed up to just below the limit, what the parser then holds (heap and Buffers, after
// GC, in a child process with --expose-gc: test/children/memory.cjs) is within twice
// maxEventSize. Without counting the event type and ID, values stored at two bytes per character, or
// the chunk texts that values are slices of, and without bounding the strings that join data lines
// (lib/parser/field-rules.js, joinTail()), these took 2.7 (short-lines, wide, invalid), 3.0 (fields)
// and 1923 (pinned) times the limit.

const t = require('tap')
const path = require('node:path')
const { runHeapChild } = require('../helpers/index.cjs')
const { EventSourceParser } = require('../..')

const MiB = 1024 * 1024
const CHILD = path.join(__dirname, '..', 'children', 'memory.cjs')

// Fifteen child processes, one of which parses 600 MiB: more than tap's 30 s on a loaded machine.
t.setTimeout(180_000)

const SHAPES = {
  'empty-lines': 8 * MiB,
  'short-lines': 8 * MiB,
  'short-lines-utf8': 8 * MiB,
  'empty-lines-utf8': 8 * MiB,
  'long-line': 8 * MiB,
  fields: 8 * MiB,
  wide: 8 * MiB,
  invalid: 8 * MiB,
  // A data line of about 20 bytes per 64 KiB chunk: a smaller limit keeps the stream under 600 MiB.
  pinned: MiB / 4
}
for (const [shape, limit] of Object.entries(SHAPES)) {
  t.test(`maxEventSize bounds what the parser holds: ${shape}`, async (t) => {
    const { report, code } = await runHeapChild(t, CHILD, ['parser', shape, limit], 60_000)
    t.equal(report.error, undefined, 'the child ran')
    t.equal(code, 0)
    t.ok(report.chunks > 0, `${report.chunks} chunks of 64 KiB before the limit`)
    t.ok(report.growth <= 2 * limit, `${(report.growth / MiB).toFixed(2)} MiB held for a limit of ${limit / MiB} MiB (${report.ratio.toFixed(2)}x)`)
  })
}

// An event of many short data lines (issue 46) counts its bytes, two a line here, not the strings that
// join its lines; what the parsers hold for it stays within twice those bytes, whatever the number of
// lines, on every parser: the byte parser and the eventsource-parser drop-in's, one each for every
// runtime. Joined one by one, as the standard reads, each line held two V8 cons strings: 32 times the
// bytes of an event of one-byte lines.
for (const kind of ['byte', 'drop-in']) {
  t.test(`an event of 2,000,000 one-byte data lines holds within twice its bytes: ${kind}`, async (t) => {
    const { report, code } = await runHeapChild(t, CHILD, ['many-lines', kind, 2_000_000], 60_000)
    t.equal(report.error, undefined, 'the child ran')
    t.equal(code, 0)
    t.ok(report.whole, 'then the event arrived whole')
    t.ok(report.growth <= 2 * report.bytes, `${(report.growth / MiB).toFixed(2)} MiB held for ${(report.bytes / MiB).toFixed(2)} MiB of data (${report.ratio.toFixed(2)}x)`)
  })
}

t.test('data lines over chunks of more than 64 KiB of text are copied out of them, intact', async (t) => {
  const events = []
  const parser = new EventSourceParser({ onEvent: (type, data) => events.push(data) })
  const lines = []
  for (let i = 0; i < 4; i++) {
    // A data line, then a comment that fills the chunk: the value is a slice of the chunk's text.
    const chunk = Buffer.alloc(80 * 1024, 0x70)
    lines.push(`line-${i}-0123456789`)
    chunk.write(`\ndata: ${lines[i]}\n:`)
    parser.write(chunk)
  }
  parser.write(Buffer.from('\n\n'))
  t.same(events, [lines.join('\n')])
})

// What an idle connection's parser holds once its event is dispatched. A line that comes in pieces is
// kept in a scratch buffer of 4 KiB until its end arrives: between lines a parser holds none (the next
// parser that needs one takes it). An ID is a slice of its chunk's text, and the last event ID string
// stays until the next ID: copied out of the text, it does not keep the whole chunk. Each of these held
// 4 KiB, or the chunk (16 KiB here), on every idle connection.
for (const [shape, what] of [['split', 'holds no scratch buffer'], ['long-id', 'does not keep the text of its last chunk']]) {
  t.test(`a parser between events ${what}`, async (t) => {
    const count = 2000
    const { report, code } = await runHeapChild(t, CHILD, ['idle-parsers', count, shape], 60_000)
    t.equal(report.error, undefined, 'the child ran')
    t.equal(code, 0)
    t.equal(report.events, count, 'each parser dispatched its event')
    t.ok(report.perParser < 1024, `${report.perParser.toFixed(0)} bytes per idle parser, less than 1 KiB`)
  })
}

// Parsers share one spare scratch buffer (lib/parser/parser.js): each line must still be its own, when
// parsers take turns with lines cut across chunks, and when a callback run by a joined line feeds another
// parser a cut line (it takes the spare while the first parser's line is being read).
t.test('parsers taking turns with lines cut across chunks each get their own lines', async (t) => {
  const events = (parser) => parser.events
  const make = (onRetry) => {
    const parser = new EventSourceParser({ onEvent: (type, data, id) => parser.events.push([type, data, id]), onRetry })
    parser.events = []
    parser.fed = []
    return parser
  }
  const feed = (parser, bytes) => {
    parser.fed.push(bytes)
    parser.write(bytes)
  }
  const b = make()
  const a = make(() => {
    feed(b, Buffer.from('data: from a retry line, '))
    feed(b, Buffer.from('cut in two\n\n'))
  })
  const streamA = Buffer.from('id: a-1\ndata: first line of a\nretry: 10\nevent: a\ndata: second\n\n'.repeat(3))
  const streamB = Buffer.from('data: b, one byte at a time\nid: b-2\n\ndata: b again\n\n'.repeat(3))
  for (let i = 0; i < Math.max(streamA.length, streamB.length); i++) {
    if (i < streamA.length) feed(a, streamA.subarray(i, i + 1))
    if (i < streamB.length) feed(b, streamB.subarray(i, i + 1))
  }
  for (const parser of [a, b]) {
    const whole = make(() => {})
    whole.write(Buffer.concat(parser.fed))
    t.ok(events(whole).length >= 3, `${events(whole).length} events`)
    t.same(events(parser), events(whole), 'the same events as from one chunk')
  }
})
