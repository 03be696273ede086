'use strict'

// Bounded under hostile input: a server that streams an endless line, endless data lines, millions of
// empty lines or comments, a `retry:` of a thousand digits, or ids of invalid UTF-8 gets a typed
// failure, a clamped delay or a replacement character, never unbounded growth or a crash. The network
// versions use small counts and a 1 MiB cap; the "millions" run on the parser directly.
// benchmarks/hostile-stream.cjs shows the endless line at the default 64 MiB cap with a multi-GiB stream.

const t = require('tap')
const v8 = require('node:v8')
const vm = require('node:vm')
const { EventSource, EventSourceParser } = require('../../')
const {
  serve, sse, record, open, countingDispatcher, reconnectionCycle, bounded
} = require('../helpers/index.cjs')

const { CONNECTING, OPEN, CLOSED } = EventSource
const MiB = 1024 * 1024
const CAP = MiB
const BUDGET = 50 * MiB

// A full GC on demand, without --expose-gc on the command line.
v8.setFlagsFromString('--expose-gc')
const gc = vm.runInNewContext('gc')
const heapAfterGc = () => {
  gc()
  gc()
  return process.memoryUsage().heapUsed
}

/**
 * Writes `head`, then `chunk` again and again until `budget` bytes or until the client goes away,
 * waiting for 'drain' whenever the socket is full. Resolves with the bytes written.
 */
async function pump (res, head, chunk, budget) {
  let written = 0
  const wait = () => new Promise((resolve) => {
    const done = () => {
      res.off('drain', done)
      res.off('close', done)
      resolve()
    }
    res.on('drain', done)
    res.on('close', done)
  })
  if (!res.write(head)) await wait()
  written += head.length
  while (written < budget && !res.destroyed) {
    const ok = res.write(chunk)
    written += chunk.length
    if (!ok) await wait()
  }
  return written
}

async function hostileStream (t, head, chunk) {
  let pumped
  const srv = await serve(t, (req, res) => {
    sse(res)
    pumped = pump(res, head, chunk, BUDGET)
  })
  const counting = countingDispatcher(t)
  const es = open(t, srv.url('/'), { maxEventSize: CAP, dispatcher: counting, reconnectionTime: 5 })
  const rec = record(es)
  // External memory (Buffers) when the error fires, before any GC: what the parser held at its peak.
  const baseline = process.memoryUsage().arrayBuffers
  let held
  es.addEventListener('error', () => { held = process.memoryUsage().arrayBuffers - baseline }, { once: true })
  const error = await rec.wait('error', 1, 30_000)
  const written = await bounded(pumped, 'the server to stop writing', 30_000)
  await reconnectionCycle(t, 20)
  return { srv, es, rec, error, written, held, received: counting.bytes }
}

t.test('an unterminated line streamed without end fails at maxEventSize', async (t) => {
  const chunk = Buffer.alloc(64 * 1024, 'x')
  const { srv, es, rec, error, written, held, received } = await hostileStream(t, 'data: ', chunk)
  t.comment(`cap ${CAP} bytes; the client received ${received} bytes, the server wrote ${written} bytes ` +
    `before the client left; Buffer memory at the failure: +${held} bytes`)
  t.same(rec.types, ['open', 'error'], 'no message, one error')
  t.equal(error.code, 'ERR_EVENTSOURCE_EVENT_TOO_LARGE')
  t.equal(error.event.cause?.code, 'ERR_EVENTSOURCE_EVENT_TOO_LARGE', 'the parser error is the cause')
  t.ok(error.event.cause instanceof RangeError)
  t.equal(error.readyState, CLOSED)
  t.equal(es.readyState, CLOSED)
  t.equal(error.event.willReconnect, false)
  t.equal(srv.requests.length, 1, 'no reconnection')
  t.ok(received > CAP, 'the client read up to the cap')
  t.ok(received <= CAP + 128 * 1024, 'and at most one network chunk past it')
  t.ok(held < 2 * CAP, `Buffer memory at the failure near the cap (+${(held / MiB).toFixed(2)} MiB)`)
  t.ok(written < CAP + 16 * MiB, `the server could write only ${(written / MiB).toFixed(1)} MiB of the 50 MiB (the rest: socket buffers)`)
})

t.test('an endless run of data: lines without a blank line fails at maxEventSize', async (t) => {
  const line = Buffer.from(`data: ${'y'.repeat(1000)}\n`)
  const chunk = Buffer.concat(Array(64).fill(line))
  const { srv, es, rec, error, written, held, received } = await hostileStream(t, ':\n', chunk)
  t.comment(`cap ${CAP} bytes; the client received ${received} bytes, the server wrote ${written}; ` +
    `Buffer memory at the failure: +${held} bytes`)
  t.same(rec.types, ['open', 'error'])
  t.equal(error.code, 'ERR_EVENTSOURCE_EVENT_TOO_LARGE')
  t.equal(es.readyState, CLOSED)
  t.equal(srv.requests.length, 1, 'no reconnection')
  t.ok(received > CAP && received <= CAP + 128 * 1024, 'failed at the cap')
  t.ok(written < CAP + 16 * MiB, 'long before the 50 MiB the server had')
})

t.test('hundreds of thousands of empty lines and comments over the network, then an event', async (t) => {
  const blank = Buffer.alloc(300_000, '\n')
  const comments = Buffer.from(': keep-alive\r\n'.repeat(100_000))
  const crlf = Buffer.from('\r\n'.repeat(100_000))
  const srv = await serve(t, (req, res) => {
    sse(res)
    res.write(blank)
    res.write(comments)
    res.write(crlf)
    res.write('data: survived\n\n')
  })
  const counting = countingDispatcher(t)
  const es = open(t, srv.url('/'), { maxEventSize: 64, dispatcher: counting })
  const rec = record(es)
  await rec.wait('message', 1, 30_000)
  t.same(rec.types, ['open', 'message'], 'blank lines dispatch nothing, comments are ignored, even under a 64-byte cap')
  t.equal(rec.events[1].data, 'survived')
  t.equal(counting.bytes, blank.length + comments.length + crlf.length + 16, 'every byte went through')
  t.equal(es.readyState, OPEN)
})

t.test('the parser under millions of lines', async (t) => {
  t.test('5 million empty lines: nothing dispatched, nothing kept', async (t) => {
    const events = []
    const parser = new EventSourceParser({ onEvent: (...args) => events.push(args) })
    // LF and CRLF line ends, 4 per 7 bytes.
    const chunk = Buffer.from('\n\r\n\r\n\r\n'.repeat(8 * 1024))
    const lines = 4 * 8 * 1024
    const before = heapAfterGc()
    let fed = 0
    while (fed < 5_000_000) {
      parser.write(chunk)
      fed += lines
    }
    const after = heapAfterGc()
    parser.write(Buffer.from('data: still works\n\n'))
    t.comment(`${fed} empty lines; heap ${after - before} bytes`)
    t.same(events, [['message', 'still works', '']], 'only the real event')
    t.ok(after - before < MiB, 'heap unchanged')
  })

  t.test('2 million comments: each reported, nothing dispatched, nothing kept', async (t) => {
    let comments = 0
    let events = 0
    const parser = new EventSourceParser({ onEvent: () => events++, onComment: () => comments++, maxEventSize: 64 })
    const chunk = Buffer.from(':\n: ping\r\n'.repeat(4000)) // 8,000 comments
    const before = heapAfterGc()
    for (let i = 0; i < 250; i++) parser.write(chunk)
    const after = heapAfterGc()
    t.equal(comments, 2_000_000)
    t.equal(events, 0)
    t.ok(after - before < MiB, `heap unchanged (${after - before} bytes)`)
  })

  t.test('an endless line in 1-byte drips fails at the cap and frees its buffer', async (t) => {
    const parser = new EventSourceParser({ onEvent () {}, maxEventSize: 64 * 1024 })
    parser.write(Buffer.from('data: '))
    const x = Buffer.from('x')
    let fed = 6
    let error
    try {
      for (; fed < 1_000_000; fed++) parser.write(x)
    } catch (err) {
      error = err
    }
    t.equal(error?.code, 'ERR_EVENTSOURCE_EVENT_TOO_LARGE')
    t.equal(fed, 64 * 1024, 'exactly the byte that crossed the cap')
    t.throws(() => parser.write(x), { code: 'ERR_EVENTSOURCE_EVENT_TOO_LARGE' }, 'failed until reset()')
    parser.reset()
    t.doesNotThrow(() => parser.write(Buffer.from('data: ok\n\n')))
  })

  t.test('endless data: lines fail at the cap; the memory they hold stays near it', async (t) => {
    const events = []
    const parser = new EventSourceParser({ onEvent: (...args) => events.push(args), maxEventSize: CAP })
    // `data:` with an empty value: 6 bytes on the wire, and one, its LF, in the data buffer: it counts
    // that byte against the cap. The strings that join the lines hold more, but not for long: the
    // parser flattens them (lib/parser/field-rules.js, joinTail()). A line being read counts its raw
    // bytes, `data:` (5): after CAP - 5 lines, the next one is the last within the cap.
    const line = Buffer.from('data:\n')
    const below = CAP - 5
    const before = heapAfterGc()
    let lines = 0
    for (; lines < below; lines++) parser.write(line)
    const held = heapAfterGc() - before
    t.comment(`${lines} data lines: ${lines} bytes counted against the cap, ${held} bytes of heap held`)
    let error
    let more = 0
    try {
      for (; more < 1000; more++) parser.write(line)
    } catch (err) {
      error = err
    }
    t.equal(error?.code, 'ERR_EVENTSOURCE_EVENT_TOO_LARGE', 'fails at the cap')
    t.ok(more <= 1, `within a line of the cap (${more} more)`)
    t.same(events, [], 'nothing dispatched')
    const afterFailure = heapAfterGc() - before
    t.ok(afterFailure < MiB, `the failure frees it (${afterFailure} bytes left)`)
    t.ok(held < 2 * CAP, `held ${(held / MiB).toFixed(1)} MiB for a ${CAP / MiB} MiB cap`)
  })
})

t.test('a retry: of a thousand digits is clamped: no reconnection storm', async (t) => {
  const values = [
    { name: 'a thousand 9s', digits: '9'.repeat(1000) },
    { name: '2^31 (a Node timer would fire after 1 ms)', digits: String(2 ** 31) },
    { name: '2^32 + 5 (wraps to 5 in 32 bits)', digits: String(2 ** 32 + 5) }
  ]
  for (const { name, digits } of values) {
    t.test(name, async (t) => {
      const srv = await serve(t, (req, res) => {
        sse(res, `retry: ${digits}\ndata: x\n\n`)
      })
      const es = open(t, srv.url('/'), { reconnectionTime: 5 })
      const rec = record(es)
      const error = await rec.wait('error')
      await reconnectionCycle(t, 100)
      t.same(rec.types, ['open', 'message', 'error'])
      t.equal(error.event.reconnectDelay, 2 ** 31 - 1, 'clamped to the largest timer delay')
      t.equal(error.readyState, CONNECTING)
      t.equal(es.readyState, CONNECTING, 'still waiting to reconnect')
      t.equal(srv.requests.length, 1, 'no request within 100 ms')
    })
  }

  t.test('the parser passes the value on as it is (Infinity)', async (t) => {
    const retries = []
    const parser = new EventSourceParser({ onEvent () {}, onRetry: (ms) => retries.push(ms) })
    parser.write(Buffer.from(`retry: ${'9'.repeat(1000)}\nretry: 1${'0'.repeat(400)}x\n`))
    t.same(retries, [Infinity], 'the digits line gives Infinity, the non-digit line is ignored')
  })
})

t.test('ids full of invalid UTF-8', async (t) => {
  // Lone continuation bytes, truncated sequences, a surrogate (ED A0 80), an overlong encoding
  // (C0 AF), a code point above U+10FFFF (F4 90 80 80), a 0xFF, and a sequence cut at the end.
  const garbage = [0x69, 0xff, 0xfe, 0xc3, 0x28, 0xa0, 0xa1, 0xe2, 0x28, 0xa1, 0xf0, 0x28, 0x8c, 0xbc,
    0xed, 0xa0, 0x80, 0xc0, 0xaf, 0xf4, 0x90, 0x80, 0x80, 0x80]
  const idBytes = Buffer.from([...Array(40).fill(garbage).flat(), 0xe2, 0x82])
  const expected = new TextDecoder().decode(idBytes)
  const srv = await serve(t, (req, res, i) => {
    if (i === 0) {
      sse(res, Buffer.concat([Buffer.from('id: '), idBytes, Buffer.from('\ndata: x\n\nid: a\0b\ndata: y\n\n')]))
    } else {
      sse(res)
    }
  })
  const es = open(t, srv.url('/'), { reconnectionTime: 1 })
  const rec = record(es)
  await srv.request(1)
  const messages = rec.of('message')
  t.equal(messages[0].lastEventId, expected, 'decoded with U+FFFD for every invalid sequence')
  t.ok(expected.includes('\ufffd') && expected.isWellFormed(), 'replacement characters, no lone surrogate')
  t.equal(messages[1].lastEventId, expected, 'an id with NUL is ignored')
  const header = srv.requests[1].headers['last-event-id']
  t.ok(Buffer.from(header, 'latin1').equals(Buffer.from(expected, 'utf8')), 'Last-Event-ID is the UTF-8 of that string')
  t.ok(!Buffer.from(header, 'latin1').includes(0), 'no NUL on the wire')
})
