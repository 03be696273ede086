'use strict'

// An event of many data lines (issue 46). What it counts against maxEventSize is its bytes (each value's
// and its LF), not the strings the parser joins its lines with: a 2 MB event of 1,000,000 one-byte lines
// arrives under the default 64 MiB, as Chromium and the `eventsource` package deliver it, through the
// byte parser and the eventsource-parser drop-in (one parser each, in every runtime), its stream form
// and an EventSource over a real server. A stream of short lines past a small
// limit still fails, at the line that passes it. What the parsers hold meanwhile:
// test/parser/parser-memory.test.cjs; the work they do: test/parser/parser-linear.test.cjs and
// test/compat/eventsource-parser/parser-drop-in-linear.test.cjs.

const t = require('tap')
const { EventSourceParser } = require('../..')
const { createParser } = require('../../lib/entries/parser.js')
const { EventSourceParserStream } = require('../../lib/entries/parser-stream.js')
const { serve, sse, open, record } = require('../helpers/index.cjs')

const LINES = 1_000_000
// `data:x` a million times and the blank line: 7 MB on the wire, 1,999,999 characters of data.
const STREAM = `${'data:x\n'.repeat(LINES)}\n`
const DATA = 'x\n'.repeat(LINES).slice(0, -1)

/** `text` as chunks of `size` bytes. */
function chunksOf (text, size) {
  const bytes = Buffer.from(text)
  const chunks = []
  for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.subarray(i, i + size))
  return chunks
}

/** `text` as feeds of `size` characters. */
function feedsOf (text, size) {
  const feeds = []
  for (let i = 0; i < text.length; i += size) feeds.push(text.slice(i, i + size))
  return feeds
}

// The byte parser, with its default maxEventSize (64 MiB).
const BYTE_PARSERS = {
  EventSourceParser: (options) => new EventSourceParser(options)
}
// The drop-in, with a maxBufferSize of exactly the event's characters.
const STRING_PARSERS = { 'the drop-in': createParser }

t.test('1,000,000 one-byte data lines arrive under the default maxEventSize', async (t) => {
  for (const [name, make] of Object.entries(BYTE_PARSERS)) {
    for (const size of [64 * 1024, 7 * 1024 * 1024]) {
      const events = []
      const parser = make({ onEvent: (type, data) => events.push([type, data]) })
      for (const chunk of chunksOf(STREAM, size)) parser.write(chunk)
      t.equal(events.length, 1, `${name}, chunks of ${size} bytes: one event`)
      t.equal(events[0][0], 'message')
      t.ok(events[0][1] === DATA, 'its data, character for character')
    }
  }
})

t.test('the eventsource-parser drop-in delivers it too, within a limit of its characters', async (t) => {
  const noop = () => {}
  for (const [name, create] of Object.entries(STRING_PARSERS)) {
    for (const maxBufferSize of [undefined, DATA.length]) {
      const events = []
      const errors = []
      const parser = create({
        onEvent: (event) => events.push(event), onError: (err) => errors.push(err), maxBufferSize
      })
      for (const feed of feedsOf(STREAM, 64 * 1024)) parser.feed(feed)
      t.same(errors, [], `${name}, maxBufferSize ${maxBufferSize}: no error`)
      t.equal(events.length, 1)
      t.ok(events[0].data === DATA, 'its data, character for character')
    }
    // One character less and it overflows: the limit counts the data, not more, not less.
    const errors = []
    const parser = create({ onEvent: noop, onError: (err) => errors.push(err.type), maxBufferSize: DATA.length - 1 })
    for (const feed of feedsOf(STREAM, 64 * 1024)) {
      try {
        parser.feed(feed)
      } catch (err) {
        t.equal(err.code, 'ERR_EVENTSOURCE_PARSER_TERMINATED', `${name}: feed() throws after the overflow`)
        break
      }
    }
    t.same(errors, ['max-buffer-size-exceeded'], `${name}: a limit of one character less overflows`)
  }
})

t.test('EventSourceParserStream delivers it', async (t) => {
  const events = []
  const stream = ReadableStream.from(feedsOf(STREAM, 64 * 1024)).pipeThrough(new EventSourceParserStream())
  for await (const event of stream) events.push(event)
  t.equal(events.length, 1)
  t.ok(events[0].data === DATA, 'its data, character for character')
})

t.test('an EventSource receives it from a server, under the default maxEventSize', async (t) => {
  const srv = await serve(t, (req, res) => sse(res, STREAM))
  const es = open(t, srv.url('/'))
  const rec = record(es)
  const message = await rec.wait('message', 1, 60_000)
  t.ok(message.data === DATA, `its ${DATA.length} characters of data, character for character`)
  t.same(rec.types.slice(0, 2), ['open', 'message'], 'no error before it')
})

// The limit still stops a server that sends short lines and no blank line: at the line whose bytes pass
// it. `data: x` counts 2 (x and its LF) once read, and its 7 raw bytes while it is read.
t.test('a stream of short data lines fails at the line that passes maxEventSize', async (t) => {
  const limit = 64 * 1024
  let expected = -1
  for (let i = 0, counted = 0; expected === -1; i++, counted += 2) {
    if (counted + 7 > limit) expected = i
  }
  const line = Buffer.from('data: x\n')
  for (const [name, make] of Object.entries(BYTE_PARSERS)) {
    const parser = make({ onEvent: () => t.fail('no event'), maxEventSize: limit })
    let failedAt = -1
    for (let i = 0; failedAt === -1 && i < limit; i++) {
      try {
        parser.write(line)
      } catch (err) {
        t.equal(err.code, 'ERR_EVENTSOURCE_EVENT_TOO_LARGE', name)
        failedAt = i
      }
    }
    t.equal(failedAt, expected, `${name}: line ${expected}, the first past ${limit} bytes`)
    t.throws(() => parser.write(line), { code: 'ERR_EVENTSOURCE_EVENT_TOO_LARGE' }, 'and fails until reset()')
  }
})

t.test('the drop-in overflows maxBufferSize at the line that passes it', async (t) => {
  // Its limit counts characters of the data buffer: `x` and an LF per line but the last.
  const limit = 64 * 1024
  const expected = limit / 2
  for (const [name, create] of Object.entries(STRING_PARSERS)) {
    const errors = []
    const parser = create({
      onEvent: () => t.fail('no event'), onError: (err) => errors.push(err.type), maxBufferSize: limit
    })
    let overflowAt = -1
    for (let i = 0; overflowAt === -1 && i < limit; i++) {
      parser.feed('data: x\n')
      if (errors.length !== 0) overflowAt = i
    }
    t.equal(overflowAt, expected, `${name}: line ${expected}, whose data is ${2 * expected + 1} characters`)
    t.same(errors, ['max-buffer-size-exceeded'])
    t.throws(() => parser.feed('data: x\n'), { code: 'ERR_EVENTSOURCE_PARSER_TERMINATED' }, 'and feed() throws until reset()')
  }
})
