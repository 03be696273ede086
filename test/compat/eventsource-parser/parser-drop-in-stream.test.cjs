'use strict'

// whatwg-eventsource/parser/stream, the drop-in for eventsource-parser/stream 4: strings in (a fetch
// body through a TextDecoderStream, from a real server), eventsource-parser's `{ id, event, data }` out;
// its onError modes, maxBufferSize, onRetry/onComment/onId; each compared with eventsource-parser/stream
// itself on the same input. And the package's entry points for both drop-ins, under require and import.

const t = require('tap')
const path = require('node:path')
const { EventSourceParserStream, ParseError } = require('../../../lib/entries/parser-stream.js')
const { serve, sse, runChild } = require('../../helpers/index.cjs')

const INPUT = '\ufeffretry: 1500\n: hi\nid: 1\nevent: add\ndata: a\ndata: b\n\nfoo: bar\ndata: é😀\n\nid\n\ndata: unfinished\n'

// What a stream of `chunks` (strings) yields through `stream`, and how it ends.
async function run (stream, chunks) {
  const events = []
  try {
    for await (const event of ReadableStream.from(chunks).pipeThrough(stream)) events.push(event)
    return { events, error: null }
  } catch (error) {
    return { events, error }
  }
}

// The same run with eventsource-parser/stream, made with the same options.
async function both (options, chunks) {
  const { EventSourceParserStream: Original } = await import('eventsource-parser/stream')
  const calls = { ours: [], theirs: [] }
  const withCalls = (log) => Object.fromEntries(Object.entries(options).map(([name, value]) =>
    [name, typeof value === 'function' ? (...args) => { log.push([name, ...args.map((a) => a instanceof Error ? [a.name, a.type, a.message] : a)]); value(...args) } : value]))
  const ours = await run(new EventSourceParserStream(withCalls(calls.ours)), chunks)
  const theirs = await run(new Original(withCalls(calls.theirs)), chunks)
  const summary = (r, log) => ({ events: r.events, error: r.error && [r.error.name, r.error.type, r.error.message], calls: log })
  return { ours: summary(ours, calls.ours), theirs: summary(theirs, calls.theirs), error: ours.error }
}

t.test('a fetch body through TextDecoderStream and the drop-in stream', async (t) => {
  const srv = await serve(t, (req, res) => sse(res, INPUT))
  const response = await fetch(srv.url('/'))
  const events = []
  for await (const event of response.body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream())) events.push(event)
  t.same(events, [
    { id: '1', event: 'add', data: 'a\nb' },
    { id: undefined, event: undefined, data: 'é😀' }
  ])
})

t.test('the same as eventsource-parser/stream, cut every way', async (t) => {
  const options = { onRetry () {}, onComment () {}, onId () {} }
  for (const size of [1, 2, 3, 7, INPUT.length]) {
    const chunks = []
    for (let i = 0; i < INPUT.length; i += size) chunks.push(INPUT.slice(i, i + size))
    const { ours, theirs } = await both(options, chunks)
    t.same(ours, theirs, `chunks of ${size}`)
    t.equal(ours.events.length, 2)
  }
})

t.test('onError: a function is called and parsing goes on; by default errors are ignored', async (t) => {
  const errors = []
  const { ours, theirs } = await both({ onError: (e) => errors.push(e) }, [INPUT])
  t.same(ours, theirs)
  t.equal(ours.events.length, 2, 'every event')
  t.equal(errors.length, 2, 'eventsource-parser\'s and ours')
  t.ok(errors[0] instanceof ParseError)
  t.match(errors[0], { type: 'unknown-field', field: 'foo', value: 'bar', line: 'foo: bar' })
  const ignored = await both({}, [INPUT])
  t.same(ignored.ours, ignored.theirs)
  t.equal(ignored.ours.events.length, 2)
})

t.test("onError: 'terminate' errors the stream with the first ParseError", async (t) => {
  // (Cut inside the unknown line, eventsource-parser would drop it unreported, and so would the drop-in.)
  const cut = INPUT.indexOf('data: a') + 3
  const { ours, theirs, error } = await both({ onError: 'terminate' }, [INPUT.slice(0, cut), INPUT.slice(cut)])
  t.same(ours, theirs)
  t.ok(error instanceof ParseError)
  t.equal(error.type, 'unknown-field')
  t.same(ours.events.map((e) => e.data), ['a\nb'], 'the events before it')
})

t.test('an overflow of maxBufferSize errors the stream, whatever onError says', async (t) => {
  for (const onError of [undefined, () => {}]) {
    const options = { maxBufferSize: 5 }
    if (onError) options.onError = onError
    const { ours, theirs, error } = await both(options, ['data: 1\n\n', 'data: 123456'])
    t.same(ours, theirs)
    t.ok(error instanceof ParseError)
    t.equal(error.type, 'max-buffer-size-exceeded')
    t.same(ours.events.map((e) => e.data), ['1'])
  }
})

t.test('the entry points, under require and import', async (t) => {
  const root = path.join(__dirname, '..', '..', '..')
  const { code, report, stderr } = await runChild(t, ['--input-type=module', '-e', `
    import { createRequire } from 'node:module'
    const require = createRequire(process.cwd() + '/')
    const cjsParser = require('whatwg-eventsource/parser')
    const cjsStream = require('whatwg-eventsource/parser/stream')
    const esmParser = await import('whatwg-eventsource/parser')
    const esmStream = await import('whatwg-eventsource/parser/stream')
    console.log(JSON.stringify({
      parser: Object.keys(esmParser).sort(),
      stream: Object.keys(esmStream).sort(),
      sameCreateParser: cjsParser.createParser === esmParser.createParser,
      sameStream: cjsStream.EventSourceParserStream === esmStream.EventSourceParserStream,
      oneParseError: esmParser.ParseError === esmStream.ParseError && cjsParser.ParseError === esmParser.ParseError
    }))`], { cwd: root, isolate: true }).exited(20_000)
  t.equal(code, 0, stderr)
  t.same(report, {
    parser: ['ParseError', 'createParser'],
    stream: ['EventSourceParserStream', 'ParseError'],
    sameCreateParser: true,
    sameStream: true,
    oneParseError: true
  })
})

t.test('a bad option throws from the constructor, with Node\'s codes and a stack that starts at the caller', async (t) => {
  const cases = [
    [{ maxBufferSize: -1 }, { name: 'RangeError', code: 'ERR_OUT_OF_RANGE' }],
    [{ maxBufferSize: '1' }, { name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE' }],
    [{ onRetry: 1 }, { name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE' }]
  ]
  for (const [options, expected] of cases) {
    let error = null
    try {
      new EventSourceParserStream(options) // eslint-disable-line no-new
    } catch (err) {
      error = err
    }
    t.match(error, expected, JSON.stringify(options))
    t.match(error.stack.split('\n')[1], /parser-drop-in-stream\.test\.cjs/, 'the first frame is this file\'s')
  }
})
