'use strict'

// The parser's stream forms: EventSourceStream (a node:stream Transform) and EventSourceParserStream
// (a WHATWG TransformStream). Bytes in (and strings, for EventSourceParserStream), { type, data,
// lastEventId } objects out.

const t = require('tap')
const { Readable } = require('node:stream')
const { pipeline } = require('node:stream/promises')
const { once } = require('node:events')
const { EventSourceStream, EventSourceParserStream } = require('../..')
const { checkError, throwsError, split, sizeCuts } = require('../helpers/index.cjs')

const INPUT = '\ufeff: hi\nretry: 1500\nid: 1\nevent: add\ndata: a\ndata: b\n\ndata: é😀\n\nid\ndata: c\n\ndata: unfinished\n'
const EXPECTED = [
  { type: 'add', data: 'a\nb', lastEventId: '1' },
  { type: 'message', data: 'é😀', lastEventId: '1' },
  { type: 'message', data: 'c', lastEventId: '' }
]

function byteChunks (text, size) {
  const bytes = Buffer.from(text)
  return split(bytes, sizeCuts(bytes.length, size), { forms: false })
}

async function collect (iterable) {
  const out = []
  for await (const item of iterable) out.push(item)
  return out
}

// index.js hands the stream classes out through getters (loaded on first use): one class each, in
// CommonJS and ESM alike, listed among the package's exports.
t.test('the entry points give one class each', async (t) => {
  const esm = await import('whatwg-eventsource')
  t.equal(esm.EventSourceStream, EventSourceStream)
  t.equal(esm.EventSourceParserStream, EventSourceParserStream)
  t.equal(require('../..').EventSourceStream, EventSourceStream, 'the same class at each read')
  t.ok(Object.keys(require('../..')).includes('EventSourceParserStream'), 'enumerable')
})

const tooLarge = (limit) => ({
  type: RangeError,
  code: 'ERR_EVENTSOURCE_EVENT_TOO_LARGE',
  message: `An event exceeded the maximum event size of ${limit} bytes (maxEventSize)`
})

t.test('EventSourceStream', async (t) => {
  t.test('through stream.pipeline, at several chunk sizes', async (t) => {
    for (const size of [1, 3, 7, 1000]) {
      const stream = new EventSourceStream()
      const retries = []
      stream.on('retry', (ms) => retries.push(ms))
      t.equal(stream.reconnectionTime, null, 'no reconnection time before a retry line')
      let events
      await pipeline(Readable.from(byteChunks(INPUT, size)), stream, async (source) => { events = await collect(source) })
      t.same(events, EXPECTED, `chunks of ${size}`)
      t.equal(stream.reconnectionTime, 1500)
      t.same(retries, [1500])
      t.equal(stream.lastEventId, '')
      t.ok(stream.readableObjectMode, 'object mode on the readable side')
      t.notOk(stream.writableObjectMode, 'bytes on the writable side')
    }
  })

  t.test('reconnectionTime follows the latest retry line', async (t) => {
    const stream = new EventSourceStream()
    stream.resume()
    stream.write(Buffer.from('retry: 10\nretry: x\n'))
    t.equal(stream.reconnectionTime, 10)
    stream.write(Buffer.from('retry: 20\n'))
    t.equal(stream.reconnectionTime, 20)
    stream.end()
    await once(stream, 'end')
  })

  t.test('lastEventId option and getter', async (t) => {
    const stream = new EventSourceStream({ lastEventId: 'x' })
    t.equal(stream.lastEventId, 'x')
    const events = collect(stream)
    stream.write(Buffer.from('data: a\n\nid: y\n\n'))
    stream.end()
    t.same(await events, [{ type: 'message', data: 'a', lastEventId: 'x' }])
    t.equal(stream.lastEventId, 'y')
  })

  t.test('strings and plain Uint8Arrays are accepted as chunks', async (t) => {
    const stream = new EventSourceStream()
    const events = collect(stream)
    stream.write('data: a\n')
    stream.write(new Uint8Array(Buffer.from('\ndata: b\n\n')))
    stream.end()
    t.same(await events, [{ type: 'message', data: 'a', lastEventId: '' }, { type: 'message', data: 'b', lastEventId: '' }])
  })

  t.test('an event over maxEventSize errors the pipeline', async (t) => {
    const source = Readable.from([Buffer.from('data: ok\n\n'), Buffer.from(`data: ${'x'.repeat(100)}\n\n`), Buffer.from('data: later\n\n')])
    const events = []
    const err = await pipeline(source, new EventSourceStream({ maxEventSize: 16 }), async (source) => {
      for await (const event of source) events.push(event.data)
    }).then(() => null, (err) => err)
    checkError(t, err, tooLarge(16))
    // Whether 'ok' reaches the consumer before the error destroys the stream is up to scheduling.
    t.notOk(events.includes('later'), 'nothing after the error')
  })

  t.test('an error from write() destroys the stream', async (t) => {
    const stream = new EventSourceStream({ maxEventSize: 4 })
    stream.resume()
    stream.write(Buffer.from('data: abcdef\n\n'))
    const [err] = await once(stream, 'error')
    t.equal(err.code, 'ERR_EVENTSOURCE_EVENT_TOO_LARGE')
    t.ok(stream.destroyed)
  })

  t.test('options are validated', async (t) => {
    throwsError(t, () => new EventSourceStream(null), {
      type: TypeError, code: 'ERR_INVALID_ARG_TYPE', message: 'The "options" argument must be of type object. Received null'
    })
    throwsError(t, () => new EventSourceStream({ maxEventSize: 0 }), {
      type: RangeError, code: 'ERR_OUT_OF_RANGE', message: /"options\.maxEventSize" is out of range/
    })
    throwsError(t, () => new EventSourceStream({ lastEventId: 1 }), {
      type: TypeError, code: 'ERR_INVALID_ARG_TYPE', message: /"options\.lastEventId" property must be of type string/
    })
    t.type(new EventSourceStream(undefined), EventSourceStream)
  })

  t.test('the end of the input discards an unfinished event', async (t) => {
    const stream = new EventSourceStream()
    const events = collect(stream)
    stream.end(Buffer.from('data: a\n\ndata: b\n'))
    t.same((await events).map((e) => e.data), ['a'])
  })

  t.test('backpressure: writes wait until the consumer reads', async (t) => {
    const stream = new EventSourceStream({ highWaterMark: 2 })
    const parsed = []
    const first = Buffer.from('data: 1\n\ndata: 2\n\ndata: 3\n\ndata: 4\n\n')
    // More than the writable side's high-water mark (16 KiB on Node 20, 64 KiB from Node 22 on), so
    // write() must say "wait".
    const secondEvents = Math.ceil(stream.writableHighWaterMark / 8)
    const second = Buffer.from(Array.from({ length: secondEvents }, (_, i) => `data: ${'x'.repeat(4)}${i}\n\n`).join(''))
    t.ok(second.length > stream.writableHighWaterMark)

    stream.write(first)
    t.equal(stream.readableLength, 4, 'all events of the first chunk are queued')
    t.equal(stream.writableLength, first.length, 'but its write has not completed: the queue is over the high-water mark')
    t.equal(stream.write(second), false, 'write() asks the producer to wait')
    t.equal(stream.readableLength, 4, 'the second chunk is held, not parsed')
    t.equal(stream.writableLength, first.length + second.length)

    const drained = once(stream, 'drain').then(() => { parsed.push('drain') })
    // Reading lets the held write complete and the second chunk through.
    const reading = (async () => {
      for await (const event of stream) parsed.push(event.data)
    })()
    await drained
    stream.end()
    await reading
    const data = parsed.filter((d) => d !== 'drain')
    t.equal(data.length, 4 + secondEvents, 'every event arrives')
    t.same(data.slice(0, 5), ['1', '2', '3', '4', 'xxxx0'])
    t.ok(parsed.indexOf('drain') >= 4, 'drain comes only after the consumer took the first events')
  })
})

t.test('EventSourceParserStream', async (t) => {
  t.test('response.body.pipeThrough()', async (t) => {
    const events = await collect(new Response(INPUT).body.pipeThrough(new EventSourceParserStream()))
    t.same(events, EXPECTED)
  })

  t.test('a ReadableStream of small Uint8Array chunks, with onRetry', async (t) => {
    for (const size of [1, 2, 5]) {
      const chunks = byteChunks(INPUT, size).map((c) => new Uint8Array(c))
      const retries = []
      const body = new ReadableStream({
        pull (controller) {
          if (chunks.length === 0) controller.close()
          else controller.enqueue(chunks.shift())
        }
      })
      const events = await collect(body.pipeThrough(new EventSourceParserStream({ onRetry: (ms) => retries.push(ms) })))
      t.same(events, EXPECTED, `chunks of ${size}`)
      t.same(retries, [1500])
    }
  })

  t.test('lastEventId option', async (t) => {
    const events = await collect(new Response('data: a\n\n').body.pipeThrough(new EventSourceParserStream({ lastEventId: 'x' })))
    t.same(events, [{ type: 'message', data: 'a', lastEventId: 'x' }])
  })

  t.test('an event over maxEventSize errors the readable side', async (t) => {
    const body = new Response(`data: ok\n\ndata: ${'x'.repeat(100)}\n\n`).body
    const err = await collect(body.pipeThrough(new EventSourceParserStream({ maxEventSize: 16 }))).then(() => null, (err) => err)
    checkError(t, err, tooLarge(16))
  })

  t.test('an event over maxEventSize errors both sides', async (t) => {
    const stream = new EventSourceParserStream({ maxEventSize: 16 })
    const writer = stream.writable.getWriter()
    const reader = stream.readable.getReader()
    // The readable side has no buffer: a transform runs once a read is waiting.
    const first = reader.read()
    await writer.write(new TextEncoder().encode('data: ok\n\n'))
    t.same(await first, { done: false, value: { type: 'message', data: 'ok', lastEventId: '' } })
    const second = reader.read()
    await t.rejects(writer.write(new TextEncoder().encode(`data: ${'x'.repeat(100)}\n`)), { code: tooLarge(16).code, message: tooLarge(16).message })
    await t.rejects(second, { code: 'ERR_EVENTSOURCE_EVENT_TOO_LARGE' })
    await t.rejects(writer.write(new Uint8Array(1)), { code: 'ERR_EVENTSOURCE_EVENT_TOO_LARGE' })
  })

  t.test('a chunk that is neither bytes nor a string errors the stream', async (t) => {
    const stream = new EventSourceParserStream()
    const writer = stream.writable.getWriter()
    const reader = stream.readable.getReader()
    const read = reader.read()
    await t.rejects(writer.write(42), {
      name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE', message: /"chunk" argument must be of type string or an instance of Buffer or Uint8Array\. Received type number/
    })
    await t.rejects(read, { code: 'ERR_INVALID_ARG_TYPE' })
    const body = new ReadableStream({ start (controller) { controller.enqueue([0x64]); controller.close() } })
    await t.rejects(collect(body.pipeThrough(new EventSourceParserStream())), { code: 'ERR_INVALID_ARG_TYPE', message: /Received an instance of Array/ })
  })

  t.test('strings, as .pipeThrough(new TextDecoderStream()) yields them, are read as UTF-8', async (t) => {
    const body = new Response(INPUT).body.pipeThrough(new TextDecoderStream())
    t.same(await collect(body.pipeThrough(new EventSourceParserStream())), EXPECTED)
  })

  t.test('strings cut anywhere, surrogate pairs and CRLFs included, give the same events', async (t) => {
    const text = INPUT.replaceAll('\n', '\r\n')
    const pair = text.indexOf('\ud83d\ude00')
    t.ok(pair !== -1, 'the input has a surrogate pair')
    // Every 2-way split (one of them between the two halves of the pair, many inside a CRLF), and
    // one chunk per UTF-16 unit.
    const chunkings = [[...text]]
    for (let i = 1; i < text.length; i++) chunkings.push([text.slice(0, i), text.slice(i)])
    t.ok(chunkings.some((c) => c[0].length === pair + 1), 'a cut splits the pair')
    for (const chunks of chunkings) {
      const events = await collect(ReadableStream.from(chunks).pipeThrough(new EventSourceParserStream()))
      if (!t.same(events, EXPECTED, `chunks of ${chunks.map((c) => c.length)} UTF-16 units`)) break
    }
  })

  t.test('a lone surrogate becomes U+FFFD, as UTF-8 encoding makes it', async (t) => {
    // A high surrogate then the end of a chunk and bytes, a lone low surrogate, a high one at the end.
    const chunks = ['data: a\ud83d', new TextEncoder().encode('b\n'), 'data: \ude00c\n', '\n', 'data: x\n\ndata: \ud83d']
    const events = await collect(ReadableStream.from(chunks).pipeThrough(new EventSourceParserStream()))
    t.same(events, [
      { type: 'message', data: 'a\ufffdb\n\ufffdc', lastEventId: '' },
      { type: 'message', data: 'x', lastEventId: '' }
    ])
  })

  t.test('strings and bytes in one stream; a BOM as U+FEFF is dropped', async (t) => {
    const chunks = ['\ufeffdata: é', Buffer.from('😀\n\n'), 'data: 2\n', new Uint8Array([0x0a])]
    const events = await collect(ReadableStream.from(chunks).pipeThrough(new EventSourceParserStream()))
    t.same(events, [
      { type: 'message', data: 'é😀', lastEventId: '' },
      { type: 'message', data: '2', lastEventId: '' }
    ])
  })

  t.test('the end of the input discards an unfinished event', async (t) => {
    const events = await collect(new Response('data: a\n\ndata: b\n').body.pipeThrough(new EventSourceParserStream()))
    t.same(events.map((e) => e.data), ['a'])
  })

  t.test('options are validated', async (t) => {
    throwsError(t, () => new EventSourceParserStream(null), {
      type: TypeError, code: 'ERR_INVALID_ARG_TYPE', message: 'The "options" argument must be of type object. Received null'
    })
    throwsError(t, () => new EventSourceParserStream({ onRetry: 'x' }), {
      type: TypeError, code: 'ERR_INVALID_ARG_TYPE', message: 'The "options.onRetry" property must be of type function. Received type string (\'x\')'
    })
    throwsError(t, () => new EventSourceParserStream({ maxEventSize: 0.5 }), {
      type: RangeError, code: 'ERR_OUT_OF_RANGE', message: /"options\.maxEventSize" is out of range/
    })
    throwsError(t, () => new EventSourceParserStream({ lastEventId: null }), {
      type: TypeError, code: 'ERR_INVALID_ARG_TYPE', message: /"options\.lastEventId" property must be of type string\. Received null/
    })
    t.ok(new EventSourceParserStream() instanceof TransformStream)
  })
})
