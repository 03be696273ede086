'use strict'

// What the CLI prints: the human form on stdout (type, id, data, further data lines indented, control
// characters made visible), --json one parseable object per line, status lines on stderr only, and
// colour decided by NO_COLOR, FORCE_COLOR and whether the stream is a terminal.

const t = require('tap')
const { runCli, serve, sse, lines } = require('../helpers/index.cjs')
const { colorEnabled } = require('../../bin/cli/output')

const EVENTS = [
  'data: hello\n\n',
  'event: tick\nid: 7\ndata: first line\ndata: second line\ndata:\ndata: fourth\n\n',
  // An escape sequence from the server must not reach a terminal as one.
  'data: \x1b[31mred\x1b[0m and a bell\x07\n\n',
  'event: done\ndata: {"ok":true}\n\n'
].join('')

const HUMAN = [
  '[message] hello',
  '[tick #7] first line',
  '          second line',
  '          ',
  '          fourth',
  '[message #7] \\x1b[31mred\\x1b[0m and a bell\\x07',
  '[done #7] {"ok":true}',
  ''
].join('\n')

t.test('one readable line per event; status lines go to stderr only', async (t) => {
  const srv = await serve(t, (req, res) => sse(res, EVENTS, { end: false }))
  const { code, stdout, stderr } = await runCli(t, ['--count', '4', srv.url('/events')]).exited()
  t.equal(code, 0)
  t.equal(stdout, HUMAN)
  t.same(lines(stderr), [
    `* connecting to ${srv.url('/events')}`,
    '* open',
    '* received 4 events, closing'
  ])
})

t.test('--json prints one object per event, parseable line by line', async (t) => {
  const srv = await serve(t, (req, res) => sse(res, EVENTS, { end: false }))
  const before = Date.now()
  const { code, stdout } = await runCli(t, ['--json', '-n', '4', srv.url('/events')]).exited()
  const after = Date.now()
  t.equal(code, 0)
  const objects = lines(stdout).map((line) => JSON.parse(line))
  t.same(objects.map(({ time, ...rest }) => rest), [
    { type: 'message', data: 'hello', lastEventId: '', origin: srv.origin },
    { type: 'tick', data: 'first line\nsecond line\n\nfourth', lastEventId: '7', origin: srv.origin },
    { type: 'message', data: '\x1b[31mred\x1b[0m and a bell\x07', lastEventId: '7', origin: srv.origin },
    { type: 'done', data: '{"ok":true}', lastEventId: '7', origin: srv.origin }
  ])
  for (const { time } of objects) {
    t.match(time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
    // The time the event arrived: within the run, give or take the clocks' rounding.
    t.ok(Date.parse(time) >= before - 1000 && Date.parse(time) <= after + 1000, `${time} within the run`)
  }
})

t.test('--quiet drops the status lines', async (t) => {
  const srv = await serve(t, (req, res) => sse(res, EVENTS, { end: false }))
  const { code, stdout, stderr } = await runCli(t, ['-q', '-n', '1', srv.url()]).exited()
  t.equal(code, 0)
  t.equal(stdout, '[message] hello\n')
  t.equal(stderr, '')
})

t.test('FORCE_COLOR=1 colours events and status lines', async (t) => {
  const srv = await serve(t, (req, res) => sse(res, EVENTS, { end: false }))
  const { code, stdout, stderr } = await runCli(t, ['-n', '2', srv.url()], { env: { FORCE_COLOR: '1' } }).exited()
  t.equal(code, 0)
  t.equal(lines(stdout)[0], '[\x1b[36mmessage\x1b[39m] hello')
  t.equal(lines(stdout)[1], '[\x1b[36mtick\x1b[39m \x1b[2m#7\x1b[22m] first line')
  // The indent lines up with the text, not with the escape codes.
  t.equal(lines(stdout)[2], '          second line')
  t.match(stderr, '\x1b[32m* open\x1b[39m')
})

t.test('no colour when NO_COLOR is set, even with FORCE_COLOR, nor with FORCE_COLOR=0', async (t) => {
  const srv = await serve(t, (req, res) => sse(res, EVENTS, { end: false }))
  for (const env of [{ NO_COLOR: '1', FORCE_COLOR: '1' }, { FORCE_COLOR: '0' }]) {
    const { code, stdout, stderr } = await runCli(t, ['-n', '4', srv.url()], { env }).exited()
    t.equal(code, 0)
    t.equal(stdout, HUMAN, JSON.stringify(env))
    t.notMatch(stderr, '\x1b', JSON.stringify(env))
  }
})

t.test('colour on a terminal only, never with NO_COLOR or TERM=dumb', async (t) => {
  // Whether a stream is a terminal cannot be arranged for a spawned child without a pty; the rule
  // itself is checked here, and the spawned runs above cover the non-terminal default.
  const tty = { isTTY: true }
  const pipe = { isTTY: undefined }
  t.equal(colorEnabled(tty, {}), true)
  t.equal(colorEnabled(pipe, {}), false)
  t.equal(colorEnabled(tty, { NO_COLOR: '1' }), false)
  t.equal(colorEnabled(tty, { NO_COLOR: '' }), true, 'an empty NO_COLOR does not count (no-color.org)')
  t.equal(colorEnabled(tty, { TERM: 'dumb' }), false)
  t.equal(colorEnabled(pipe, { FORCE_COLOR: '1' }), true)
  t.equal(colorEnabled(pipe, { FORCE_COLOR: '' }), true)
  t.equal(colorEnabled(tty, { FORCE_COLOR: 'false' }), false)
  t.equal(colorEnabled(pipe, { FORCE_COLOR: '1', NO_COLOR: 'yes' }), false)
})
