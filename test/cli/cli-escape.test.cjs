'use strict'

// A hostile server must not be able to drive the terminal of the person running the CLI: whatever it
// controls (status text, Content-Type, Location, event type, ID and data, and the error messages that
// quote them) is escaped on stdout and stderr, with or without -q, and --json escapes what
// JSON.stringify leaves raw. --raw stays raw on stdout, by design, but its stderr is escaped too.
// The servers are node:net ones: node:http refuses to write control characters in a status text.

const t = require('tap')
const { runCli, rawServer, lines } = require('../helpers/index.cjs')
const { escapeControls, escapeLines, formatJson, createReporter } = require('../../bin/cli/output')
const { helpText } = require('../../bin/cli/options')

// What must never reach a terminal raw, written out here independently of bin/cli/output.js.
const C1_AND_BIDI = /[\u0080-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u
const LF = 0x0a
const TAB = 0x09

/**
 * Asserts that `bytes` hold no C0 control but those in `keep`, no DEL, and, decoded as UTF-8 (which
 * they must be), no C1 control, bidi control or line/paragraph separator.
 */
function assertInert (t, bytes, keep, what) {
  const bad = bytes.findIndex((b) => (b < 0x20 && !keep.includes(b)) || b === 0x7f)
  t.equal(bad, -1, `${what}: no raw C0 or DEL byte${bad === -1 ? '' : ` (0x${bytes[bad].toString(16)} at ${bad})`}`)
  let text = null
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {}
  t.not(text, null, `${what}: valid UTF-8`)
  const found = C1_AND_BIDI.exec(text ?? '')
  t.equal(found, null, `${what}: no C1, bidi or separator code point${found === null ? '' : ` (U+${found[0].codePointAt(0).toString(16)})`}`)
}

// Every class at once: OSC (retitles the window), CSI (clears the screen, colours), BEL, NUL, BS,
// DEL, C1 (U+009B is CSI on 8-bit terminals, U+0085 a line break), bidi overrides and isolates, RLM,
// ALM, a line separator. Sent as UTF-8.
const HOSTILE = '\x1b]0;PWNED\x07\x1b[2J\x1b[31mFAKE: all good\x00\x08\x7f\u009b\u0085\u202e\u2066\u200f\u061c\u2028'
const ESCAPED = String.raw`\x1b]0;PWNED\x07\x1b[2J\x1b[31mFAKE: all good\x00\x08\x7f\x9b\x85\u202e\u2066\u200f\u061c\u2028`

// A header value may not hold C0 or DEL (undici's parser refuses them), but bytes 0x80-0xFF pass and
// are read as Latin-1: 0x9B and 0x85 become C1 controls, and the UTF-8 of U+202E (E2 80 AE) becomes
// U+00E2 U+0080 U+00AE, with a C1 control in the middle.
const HEADER_BYTES = Buffer.from([0x9b, 0x85, 0xe2, 0x80, 0xae])
const HEADER_ESCAPED = String.raw`\x9b\x85` + '\u00e2' + String.raw`\x80` + '\u00ae'

const response = (head, body = '') => Buffer.concat([
  Buffer.isBuffer(head) ? head : Buffer.from(head, 'utf8'),
  Buffer.from('\r\nconnection: close\r\n\r\n'),
  Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8')
])

const MODES = [[], ['-q'], ['--json']]

t.test('escapeControls: every class, in the text form', async (t) => {
  for (let code = 0; code < 0x20; code++) {
    const c = String.fromCharCode(code)
    t.equal(escapeControls(`a${c}b`), code === TAB ? 'a\tb' : `a\\x${code.toString(16).padStart(2, '0')}b`, `U+${code.toString(16)}`)
  }
  t.equal(escapeControls('\x7f'), '\\x7f', 'DEL')
  for (let code = 0x80; code <= 0x9f; code++) {
    t.equal(escapeControls(String.fromCharCode(code)), `\\x${code.toString(16)}`, `C1 U+${code.toString(16)}`)
  }
  const bidi = [0x061c, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069]
  for (const code of [...bidi, 0x2028, 0x2029]) {
    t.equal(escapeControls(`x${String.fromCharCode(code)}y`), `x\\u${code.toString(16).padStart(4, '0')}y`, `U+${code.toString(16)}`)
  }
  // Left alone: printable ASCII, a backslash, Latin-1 from U+00A0, other scripts, the zero-width
  // joiner (needed by emoji sequences), astral characters.
  const harmless = ' ~\\ \u00a0\u00e9\u00ff \u05d0\u0627 \u200b\u200d \u4e2d \u{1f468}\u200d\u{1f469} \ufffd'
  t.equal(escapeControls(harmless), harmless)
  t.equal(escapeControls(''), '')
})

t.test('escapeControls: the json form keeps JSON valid and parses back to the same string', async (t) => {
  let all = ''
  for (let code = 0; code <= 0xa0; code++) all += String.fromCharCode(code)
  all += '\u061c\u200e\u200f\u2028\u2029\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069 "\\ \u{1f600}'
  const json = escapeControls(JSON.stringify({ [all]: all }), 'json')
  t.same(JSON.parse(json), { [all]: all })
  assertInert(t, Buffer.from(json), [], 'the JSON text')
  t.match(json, '~\\u007f\\u0080\\u0081')
  t.match(json, '\\u009e\\u009f\u00a0')
  t.match(json, '\\u061c\\u200e\\u200f\\u2028\\u2029\\u202a\\u202b\\u202c\\u202d\\u202e\\u2066\\u2067\\u2068\\u2069')
  // formatJson goes through it: every field of an event.
  const event = { type: all, data: `${all}\n${all}`, lastEventId: all, origin: 'http://127.0.0.1', timeStamp: 0 }
  const line = formatJson(event)
  t.ok(line.endsWith('}\n'))
  assertInert(t, Buffer.from(line.slice(0, -1)), [], 'formatJson')
  const parsed = JSON.parse(line)
  t.same([parsed.type, parsed.data, parsed.lastEventId], [event.type, event.data, event.lastEventId])
})

t.test('escapeLines keeps newlines, indents the lines after the first, escapes CR', async (t) => {
  t.equal(escapeLines('one\x1b[2J\ntwo\r* open\n', '  '), 'one\\x1b[2J\n  two\\x0d* open\n  ')
  t.equal(escapeLines('single', '    '), 'single')
})

t.test('the reporter escapes every message, with or without --quiet, colour or not', async (t) => {
  const written = []
  const stream = { isTTY: false, write: (text) => written.push(text) }
  const reporter = createReporter(stream, { quiet: false, prog: 'ssecat', env: { FORCE_COLOR: '1' } })
  reporter.status(`open ${HOSTILE}`)
  reporter.failure(`failed: unexpected error: Error: ${HOSTILE}\n    at x (${HOSTILE})`)
  reporter.warning(HOSTILE)
  t.equal(written.length, 3)
  for (const text of written) {
    t.match(text, ESCAPED)
    // Only the reporter's own colour codes are escape sequences.
    // eslint-disable-next-line no-control-regex -- control characters are what the test looks for
    t.notMatch(text.replace(/\x1b\[(?:1|2|22|31|39)m/g, ''), /[\x00-\x08\x0b-\x1f\x7f]/)
    t.notMatch(text, C1_AND_BIDI)
  }
  t.match(written[1], `\n      at x (${ESCAPED})`, 'a second line is indented under the first')
  const quiet = []
  const q = createReporter({ write: (text) => quiet.push(text) }, { quiet: true, prog: 'ssecat', env: {} })
  q.status(HOSTILE)
  q.failure(HOSTILE)
  t.same(quiet, [`* ${ESCAPED}\n`])
})

t.test('a hostile status text', async (t) => {
  const srv = await rawServer(t, () => response(`HTTP/1.1 500 Oops${HOSTILE}\r\ncontent-length: 0`))
  for (const mode of MODES) {
    const cli = runCli(t, [...mode, srv.url()])
    const { code, stdout, stderr } = await cli.exited()
    t.equal(code, 1, `${mode}`)
    t.equal(stdout, '')
    t.equal(lines(stderr).at(-1),
      `* failed: The server answered 500 Oops${ESCAPED}: an event stream needs status 200 (ERR_EVENTSOURCE_BAD_STATUS)`)
    assertInert(t, cli.stderrBuffer, [LF], `stderr ${mode}`)
  }
})

t.test('a hostile status text on an error event that reconnects, then gives up', async (t) => {
  const srv = await rawServer(t, () => response(`HTTP/1.1 503 Busy${HOSTILE}\r\ncontent-length: 0`))
  const cli = runCli(t, ['--retry-on', '503', '--max-retries', '1', '--retry', '1', srv.url()])
  const { code, stderr } = await cli.exited()
  t.equal(code, 1)
  const status = lines(stderr)
  t.match(status[1], `* reconnecting in 1 ms: The server answered 503 Busy${ESCAPED}: an event stream needs status 200`)
  t.match(status.at(-1), `* failed: Gave up after 2 failed attempts in a row: The server answered 503 Busy${ESCAPED}:`)
  assertInert(t, cli.stderrBuffer, [LF], 'stderr')
})

// A hostile header value, where the failure message quotes it.
for (const [what, head, failure] of [
  ['Content-Type', 'HTTP/1.1 200 OK\r\ncontent-length: 0\r\ncontent-type: text/html',
    `* failed: The server answered with Content-Type "text/html${HEADER_ESCAPED}": ` +
      'an event stream needs text/event-stream (ERR_EVENTSOURCE_BAD_CONTENT_TYPE)'],
  ['Location', 'HTTP/1.1 302 Found\r\ncontent-length: 0\r\nlocation: http://[',
    `* failed: The server redirected to an invalid URL: http://[${HEADER_ESCAPED} (ERR_EVENTSOURCE_INVALID_REDIRECT)`]
]) {
  t.test(`a hostile ${what}`, async (t) => {
    const srv = await rawServer(t, () => response(Buffer.concat([Buffer.from(head), HEADER_BYTES])))
    for (const mode of MODES) {
      const cli = runCli(t, [...mode, srv.url()])
      const { code, stdout, stderr } = await cli.exited()
      t.equal(code, 1, `${mode}`)
      t.equal(stdout, '')
      t.equal(lines(stderr).at(-1), failure)
      assertInert(t, cli.stderrBuffer, [LF], `stderr ${mode}`)
    }
  })
}

// The event fields: a comment (never printed), a type, an ID and two data lines with every class,
// and a tab, which the human form keeps.
const EVENT_TYPE = `up${HOSTILE}`
const EVENT_ID = '7\x1b[31m\u2066\x7f\u009b'
const DATA = [`one ${HOSTILE}\tend`, '\x1b[1A\x1b[2Ktwo\u2029\u0085']
const STREAM = `: ${HOSTILE}\nevent: ${EVENT_TYPE}\nid: ${EVENT_ID}\ndata: ${DATA[0]}\ndata: ${DATA[1]}\n\n`
const HEAD = String.raw`[up${ESCAPED} #7\x1b[31m\u2066\x7f\x9b]`
const HUMAN = `${HEAD} ${String.raw`one ${ESCAPED}`}\tend\n` +
  `${' '.repeat(HEAD.length + 1)}${String.raw`\x1b[1A\x1b[2Ktwo\u2029\x85`}\n`

t.test('hostile event type, ID, data and comment, in the human form', async (t) => {
  const srv = await rawServer(t, () => response('HTTP/1.1 200 OK\r\ncontent-type: text/event-stream', STREAM))
  for (const mode of [[], ['-q']]) {
    const cli = runCli(t, ['--once', ...mode, srv.url()])
    const { code, stdout, stderr } = await cli.exited()
    t.equal(code, 0, `${mode}`)
    t.equal(stdout, HUMAN)
    t.equal(stderr.includes('PWNED'), false, 'the comment is not printed')
    assertInert(t, cli.stdoutBuffer, [LF, TAB], `stdout ${mode}`)
    assertInert(t, cli.stderrBuffer, [LF], `stderr ${mode}`)
  }
})

t.test('hostile event type, ID and data, in --json', async (t) => {
  const srv = await rawServer(t, () => response('HTTP/1.1 200 OK\r\ncontent-type: text/event-stream', STREAM))
  const cli = runCli(t, ['--once', '--json', srv.url()])
  const { code, stdout } = await cli.exited()
  t.equal(code, 0)
  assertInert(t, cli.stdoutBuffer, [LF], 'stdout')
  assertInert(t, cli.stderrBuffer, [LF], 'stderr')
  const [line, ...rest] = lines(stdout)
  t.same(rest, [])
  const { type, data, lastEventId } = JSON.parse(line)
  t.same({ type, data, lastEventId }, { type: EVENT_TYPE, data: DATA.join('\n'), lastEventId: EVENT_ID })
  for (const escape of ['\\u001b]0;PWNED\\u0007', '\\u007f', '\\u009b', '\\u0085', '\\u202e', '\\u2066', '\\u200f',
    '\\u061c', '\\u2028', '\\u2029', '\\t']) {
    t.ok(line.includes(escape), `${escape} in the JSON text`)
  }
})

t.test('--raw: stdout stays raw, the status and headers on stderr are escaped', async (t) => {
  const head = Buffer.concat([Buffer.from('HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nlocation: /x'),
    HEADER_BYTES])
  const body = Buffer.from(STREAM, 'utf8')
  const srv = await rawServer(t, () => response(head, body))
  const cli = runCli(t, ['--raw', srv.url()])
  const { code, stderr } = await cli.exited()
  t.equal(code, 0)
  t.same(cli.stdoutBuffer, body, 'the body, byte for byte')
  t.ok(lines(stderr).includes(`* location: /x${HEADER_ESCAPED}`))
  assertInert(t, cli.stderrBuffer, [LF], 'stderr')
})

t.test('a usage error quotes the command line escaped', async (t) => {
  // An argument cannot hold NUL; everything else can.
  const cli = runCli(t, [`ftp://127.0.0.1/${HOSTILE.replace('\x00', '')}`])
  const { code, stderr } = await cli.exited()
  t.equal(code, 2)
  t.match(stderr, `got 'ftp://127.0.0.1/${ESCAPED.replace('\\x00', '')}'`)
  assertInert(t, cli.stderrBuffer, [LF], 'stderr')
})

t.test('--help says what is escaped, and that --raw is not', async (t) => {
  const help = helpText('ssecat')
  t.match(help, /--raw +print the response bytes as received, unescaped/)
  t.match(help, /printed escaped \(\\x1b, \\u202e\) on\nstdout and stderr, and as \\u001b in --json; only the body bytes --raw/)
})
