'use strict'

// EventSourceParser over a stream's life: end() and reset() (also from inside callbacks), the last
// event ID string across dispatches and reconnections, and the optional callbacks.

const t = require('tap')
const { EventSourceParser } = require('../..')
const { catchError, recordingParser } = require('../helpers/index.cjs')

const bytes = (text) => Buffer.from(text)
const BOM = Buffer.from([0xef, 0xbb, 0xbf])

/** A parser whose callbacks record into `log`; `hooks` run after recording (to call end/reset). */
function recording (options = {}, hooks = {}) {
  const { parser, records } = recordingParser(options, hooks)
  return { parser, log: records }
}

t.test('end()', async (t) => {
  t.test('discards an unfinished event and an unterminated line', async (t) => {
    const { parser, log } = recording()
    parser.write(bytes('data:a\n\ndata:b\ndata:c'))
    parser.end()
    t.same(log, [['event', 'message', 'a', '']])
  })

  t.test('is idempotent', async (t) => {
    const { parser } = recording()
    parser.end()
    parser.end()
    t.equal(catchError(t, () => parser.write(bytes('x'))).code, 'ERR_EVENTSOURCE_WRITE_AFTER_END')
  })

  t.test('a CR as the last byte was already a line end', async (t) => {
    const { parser, log } = recording()
    parser.write(bytes('data:a\n\r'))
    parser.end()
    t.same(log, [['event', 'message', 'a', '']])
  })

  t.test('does not dispatch, so the id of the unfinished event is not taken', async (t) => {
    const { parser } = recording()
    parser.write(bytes('id:1\n\nid:2\ndata:x\n'))
    parser.end()
    t.equal(parser.lastEventId, '1')
  })
})

t.test('end() or reset() from a callback abandons the rest of the chunk', async (t) => {
  const input = 'retry:5\n:c\ndata:a\n\ndata:b\n\n:d\n'
  const cases = [
    ['onEvent', 'end', [['retry', 5], ['comment', 'c'], ['event', 'message', 'a', '']]],
    ['onComment', 'end', [['retry', 5], ['comment', 'c']]],
    ['onRetry', 'end', [['retry', 5]]],
    ['onEvent', 'reset', [['retry', 5], ['comment', 'c'], ['event', 'message', 'a', '']]],
    ['onComment', 'reset', [['retry', 5], ['comment', 'c']]],
    ['onRetry', 'reset', [['retry', 5]]]
  ]
  for (const [hook, method, expected] of cases) {
    t.test(`${method}() in ${hook}`, async (t) => {
      let calls = 0
      const { parser, log } = recording({}, { [hook]: (p) => { if (calls++ === 0) p[method]() } })
      parser.write(bytes(input))
      t.same(log, expected)
      if (method === 'end') {
        t.equal(catchError(t, () => parser.write(bytes('data:z\n\n'))).code, 'ERR_EVENTSOURCE_WRITE_AFTER_END')
      } else {
        // A new stream: its BOM is dropped and nothing of the old one is left over.
        parser.write(Buffer.concat([BOM, bytes('data:z\n\n')]))
        t.same(log.at(-1), ['event', 'message', 'z', ''])
      }
    })
  }

  t.test('on a line that spans chunks', async (t) => {
    const { parser, log } = recording({}, { onComment: (p) => p.reset() })
    parser.write(bytes('data:a\n:x'))
    parser.write(bytes('y\ndata:b\n\n'))
    t.same(log, [['comment', 'xy']])
    parser.write(bytes('\n'))
    t.same(log, [['comment', 'xy']], 'the data line before the reset is gone')
  })

  t.test('on a line ended by a CR at the end of a chunk', async (t) => {
    let calls = 0
    const { parser, log } = recording({}, { onEvent: (p) => { if (calls++ === 0) p.reset() } })
    parser.write(bytes('data:a\n\r'))
    // The reset forgot the CR, so this LF is a line end of its own: a blank line with no data.
    parser.write(bytes('\ndata:b\n\n'))
    t.same(log, [['event', 'message', 'a', ''], ['event', 'message', 'b', '']])
  })
})

t.test('lastEventId', async (t) => {
  t.test('starts empty or at the option', async (t) => {
    t.equal(recording().parser.lastEventId, '')
    t.equal(recording({ lastEventId: 'x' }).parser.lastEventId, 'x')
  })

  t.test('changes when an event is dispatched, not when its id line is parsed', async (t) => {
    const { parser, log } = recording()
    parser.write(bytes('id:1\n'))
    t.equal(parser.lastEventId, '')
    parser.write(bytes('\n'))
    t.equal(parser.lastEventId, '1', 'a blank line without data still sets it')
    t.same(log, [])
    parser.write(bytes('data:a\nid:2\n\n'))
    t.equal(parser.lastEventId, '2')
    t.same(log, [['event', 'message', 'a', '2']])
    parser.write(bytes('id\n\n'))
    t.equal(parser.lastEventId, '', 'an empty id clears it')
  })

  t.test('is read-only', async (t) => {
    const { parser } = recording()
    t.throws(() => { parser.lastEventId = 'x' }, TypeError)
    t.equal(parser.lastEventId, '')
  })
})

t.test('reset()', async (t) => {
  t.test('keeps the last event ID string and seeds the new stream with it', async (t) => {
    const { parser, log } = recording()
    parser.write(bytes('id:1\ndata:a\n\nid:2\n'))
    parser.reset()
    t.equal(parser.lastEventId, '1')
    parser.write(bytes('data:b\n\n'))
    t.same(log, [['event', 'message', 'a', '1'], ['event', 'message', 'b', '1']], 'the unfinished id:2 is dropped')
    parser.reset()
    parser.write(bytes('id\ndata:c\n\n'))
    t.same(log.at(-1), ['event', 'message', 'c', ''], 'the new stream can clear it')
  })

  t.test('the seeded id is the option when nothing was dispatched', async (t) => {
    const { parser, log } = recording({ lastEventId: 'x' })
    parser.write(bytes('id:y\n'))
    parser.reset()
    parser.write(bytes('data:a\n\n'))
    t.same(log, [['event', 'message', 'a', 'x']])
  })

  t.test('drops the BOM of each stream', async (t) => {
    const { parser, log } = recording()
    parser.write(Buffer.concat([BOM, bytes('data:a\n\n')]))
    parser.reset()
    parser.write(BOM.subarray(0, 1))
    parser.write(BOM.subarray(1))
    parser.write(bytes('data:b\n\n'))
    parser.write(Buffer.concat([BOM, bytes('data:c\n\n')]))
    t.same(log, [['event', 'message', 'a', ''], ['event', 'message', 'b', '']], 'a BOM inside a stream is content')
  })

  t.test('clears the pending line and the event buffers', async (t) => {
    const { parser, log } = recording()
    parser.write(bytes('event:x\ndata:old\ndata:par'))
    parser.reset()
    parser.write(bytes('tial\ndata:new\n\n'))
    t.same(log, [['event', 'message', 'new', '']])
  })

  t.test('after end() and after reset()', async (t) => {
    const { parser, log } = recording()
    parser.reset()
    parser.end()
    parser.reset()
    parser.reset()
    parser.write(bytes('data:a\n\n'))
    t.same(log, [['event', 'message', 'a', '']])
  })

  t.test('a partial BOM is forgotten', async (t) => {
    const { parser, log } = recording()
    parser.write(BOM.subarray(0, 2))
    parser.reset()
    parser.write(Buffer.concat([BOM, bytes('data:a\n\n')]))
    t.same(log, [['event', 'message', 'a', '']])
  })
})

t.test('onRetry and onComment are optional', async (t) => {
  const events = []
  const parser = new EventSourceParser({ onEvent (type, data) { events.push(data) } })
  parser.write(bytes('retry:5\n: comment\n:\ndata:a\n\n'))
  t.same(events, ['a'])
})

t.test('callbacks get primitives and run synchronously, in stream order', async (t) => {
  const seen = []
  const parser = new EventSourceParser({
    onEvent (...args) { seen.push(args.map((a) => typeof a)) },
    onRetry (ms) { seen.push([typeof ms]) },
    onComment (text) { seen.push([typeof text]) }
  })
  parser.write(bytes(':c\nretry:1\nevent:e\nid:i\ndata:d\n\n'))
  t.same(seen, [['string'], ['number'], ['string', 'string', 'string']])
})

t.test('an exception from a callback propagates out of write()', async (t) => {
  const boom = new Error('boom')
  const parser = new EventSourceParser({ onEvent () { throw boom } })
  t.equal(catchError(t, () => parser.write(bytes('data:a\n\n'))), boom)
})
