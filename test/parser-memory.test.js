'use strict'

// maxEventSize bounds what the parser really holds. For streams shaped to hold as much as they can per
// counted byte, fed up to just below the limit, what the parser then holds (heap and Buffers, after
// GC, in a child process with --expose-gc: test/children/memory.js) is within twice
// maxEventSize. Without counting the event type and ID, the joins of data lines, values stored at two
// bytes per character, or the chunk texts that values are slices of, these took 2.7 (short-lines,
// wide, invalid), 3.0 (fields) and 1923 (pinned) times the limit.

const t = require('tap')
const path = require('node:path')
const { runHeapChild } = require('./helpers')
const { EventSourceParser } = require('..')

const MiB = 1024 * 1024
const CHILD = path.join(__dirname, 'children', 'memory.js')

// Seven child processes, one of which parses 600 MiB: more than tap's 30 s on a loaded machine.
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
  // 30 bytes of data per 64 KiB chunk: a smaller limit keeps the stream to 600 MiB.
  pinned: 1 * MiB
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
