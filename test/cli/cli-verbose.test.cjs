'use strict'

// ssecat -v: on stderr, from the diagnostics channels, each attempt with its request headers, the
// response head with its time and headers, each connection's first event, each reconnection with its
// reason and delay, failures, and the close with its reason and totals. Credentials are redacted and
// everything the server controls is escaped.

const t = require('tap')
const dc = require('node:diagnostics_channel')
const { EventSource } = require('../../')
const { runCli, serve, sse, rawServer, lines, onceBounded, record } = require('../helpers/index.cjs')
const { startVerbose } = require('../../bin/cli/verbose')
const { parseCommandLine, helpText } = require('../../bin/cli/options')

const TIME = String.raw`\d+(?:\.\d)? ms`
// The times vary: each becomes T, after checking that the times since the start never go back.
function normalize (t, stderr) {
  const stamps = [...stderr.matchAll(new RegExp(String.raw`^\* \[(${TIME})\]`, 'gm'))].map((m) => parseFloat(m[1]))
  t.ok(stamps.length > 0 && stamps.every((ms, i) => i === 0 || ms >= stamps[i - 1]), `times in order: ${stamps}`)
  return lines(stderr.replace(new RegExp(TIME, 'g'), 'T'))
    // Headers node:http adds on its own.
    .filter((line) => !/^< (date|connection|keep-alive|transfer-encoding|content-length):/.test(line))
}

// What must never reach a terminal raw: C0 but LF, DEL, C1, bidi controls, line separators.
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/

t.test('a run with a redirect, a reconnection and a retried status', async (t) => {
  const srv = await serve(t, (req, res) => {
    const n = srv.requests.filter((r) => r.url === '/sse').length
    if (req.url === '/start') res.writeHead(302, { location: '/sse' }).end()
    else if (n === 1) sse(res, 'retry: 20\nid: 1\ndata: héllo\n\n', { headers: { 'set-cookie': 'sid=s3cret; HttpOnly' } })
    // A header value with bytes a terminal may take for controls (read as Latin-1: U+009B is CSI).
    else if (n === 2) res.writeHead(503, 'Busy', { 'retry-after': '0', 'x-evil': 'a\u009b2Jb' }).end()
    else sse(res, 'event: tick\ndata: 2\n\n', { end: false })
  })
  const url = srv.url('/start').replace('http://', 'http://user:pa55@')
  const cli = runCli(t, ['-v', '-H', 'Authorization: Bearer t0ken', '-H', 'Cookie: a=cook1e', '-H', 'X-Trace: abc',
    '--retry-on', '503', '-n', '2', url])
  const { code, stdout, stderr } = await cli.exited()
  t.equal(code, 0)
  t.equal(stdout, '[message #1] héllo\n[tick #1] 2\n')
  t.notMatch(stderr, /t0ken|cook1e|s3cret|pa55/, 'no credential on stderr')
  t.notMatch(stderr, UNSAFE)
  const request = (lastEventId) => [
    '> accept: text/event-stream',
    '> authorization: [redacted]',
    '> cookie: [redacted]',
    '> x-trace: abc',
    ...(lastEventId === undefined ? [] : [`> last-event-id: ${lastEventId}`])
  ]
  t.strictSame(normalize(t, stderr), [
    `* connecting to ${srv.url('/start')}`,
    `* [T] attempt 1: GET ${srv.url('/start')}`,
    ...request(),
    `* [T] response after T: 200 OK, from ${srv.url('/sse')}`,
    '< content-type: text/event-stream',
    '< set-cookie: [redacted]',
    '* open',
    '* [T] first event after T (type message, 5 characters of data)',
    '* [T] attempt 1 over; attempt 2 in T: The server ended the event stream (ERR_EVENTSOURCE_STREAM_ENDED)',
    `* [T] attempt 2: GET ${srv.url('/sse')} (Last-Event-ID 1)`,
    ...request('1'),
    `* [T] response after T: 503 Busy, from ${srv.url('/sse')}`,
    '< retry-after: 0',
    String.raw`< x-evil: a\x9b2Jb`,
    '* [T] attempt 2 over; attempt 3 in T: The server answered 503 Busy: an event stream needs status 200 (ERR_EVENTSOURCE_BAD_STATUS)',
    `* [T] attempt 3: GET ${srv.url('/sse')} (Last-Event-ID 1)`,
    ...request('1'),
    `* [T] response after T: 200 OK, from ${srv.url('/sse')}`,
    '< content-type: text/event-stream',
    '* open',
    '* [T] first event after T (type tick, 1 character of data)',
    '* received 2 events, closing',
    `* [T] closed (close): 2 events, ${Buffer.byteLength('retry: 20\nid: 1\ndata: héllo\n\nevent: tick\ndata: 2\n\n')} bytes, 3 attempts, T open`
  ])
  t.match(stderr, /attempt 2 in 20 ms: /, 'the delay the server asked for')
})

t.test('a failure: the response head, then the close, then the failure', async (t) => {
  // node:net: node:http will not write control characters in a status text.
  const srv = await rawServer(t, () => 'HTTP/1.1 404 Not\x1b]0;PWNED\x07 Found\r\ncontent-length: 0\r\nset-cookie: k=v\r\ncontent-type: text/plain\r\nconnection: close\r\n\r\n')
  const cli = runCli(t, ['--verbose', srv.url('/x')])
  const { code, stdout, stderr } = await cli.exited()
  t.equal(code, 1)
  t.equal(stdout, '')
  t.notMatch(stderr, UNSAFE)
  const why = String.raw`The server answered 404 Not\x1b]0;PWNED\x07 Found: an event stream needs status 200 (ERR_EVENTSOURCE_BAD_STATUS)`
  t.strictSame(normalize(t, stderr), [
    `* connecting to ${srv.url('/x')}`,
    `* [T] attempt 1: GET ${srv.url('/x')}`,
    '> accept: text/event-stream',
    String.raw`* [T] response after T: 404 Not\x1b]0;PWNED\x07 Found, from ` + srv.url('/x'),
    '< set-cookie: [redacted]',
    '< content-type: text/plain',
    `* [T] attempt 1 failed, no reconnection: ${why}`,
    '* [T] failed (failure): 0 events, 0 bytes, 1 attempt, T open',
    `* failed: ${why}`
  ])
})

t.test('a failure with a body: what it said, escaped, its lines indented', async (t) => {
  // A body that would clear the screen, start a line of its own ("* open") and reorder text, were it printed raw.
  const body = '{"error":"bad\x1b[2J"}\r\n* open\n\u202efake'
  const srv = await rawServer(t, () => 'HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\n' +
    `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`)
  const { code, stderr } = await runCli(t, ['-v', srv.url('/chat')]).exited()
  t.equal(code, 1)
  t.notMatch(stderr, UNSAFE)
  const why = 'The server answered 400 Bad Request: an event stream needs status 200 (ERR_EVENTSOURCE_BAD_STATUS)'
  t.strictSame(normalize(t, stderr).slice(3), [
    `* [T] response after T: 400 Bad Request, from ${srv.url('/chat')}`,
    '< content-type: application/json',
    String.raw`* [T] body: {"error":"bad\x1b[2J"}\x0d`,
    '  * open',
    String.raw`  \u202efake`,
    `* [T] attempt 1 failed, no reconnection: ${why}`,
    '* [T] failed (failure): 0 events, 0 bytes, 1 attempt, T open',
    `* failed: ${why}`
  ])
})

t.test('--once: the server ends the stream', async (t) => {
  const srv = await serve(t, (req, res) => sse(res, 'data: {"a":1}\n\n'))
  const { code, stderr } = await runCli(t, ['-v', '--once', '-d', '{"q":1}', srv.url()]).exited()
  t.equal(code, 0)
  const got = normalize(t, stderr)
  t.equal(got[1], `* [T] attempt 1: POST ${srv.url()}`)
  t.strictSame(got.slice(2, 4), ['> accept: text/event-stream', '> content-type: application/json'])
  t.strictSame(got.slice(-3), [
    '* [T] first event after T (type message, 7 characters of data)',
    '* [T] the server ended the stream (end): 1 event, 15 bytes, 1 attempt, T open',
    '* the server ended the stream'
  ])
})

t.test('-v on the command line', async (t) => {
  t.equal(parseCommandLine(['-v', 'http://127.0.0.1/']).verbose, true)
  t.equal(parseCommandLine(['--verbose', 'http://127.0.0.1/']).verbose, true)
  t.equal(parseCommandLine(['http://127.0.0.1/']).verbose, false)
  t.throws(() => parseCommandLine(['-v', '-q', 'http://127.0.0.1/']), { message: '--verbose and --quiet cannot be used together' })
  t.throws(() => parseCommandLine(['-v', '--raw', 'http://127.0.0.1/']), { message: /--raw .* cannot be used with --verbose/ })
  t.match(helpText('ssecat'), /-v, --verbose +also timings, request and response headers \(credentials redacted\)/)
})

t.test('the printer subscribes to messages from a response head to its first event only, and stops', async (t) => {
  const written = []
  const verbose = startVerbose({ write: (text) => written.push(text) }, { env: {} })
  t.teardown(() => verbose.stop())
  const srv = await serve(t, (req, res) => sse(res, 'data: 1\n\ndata: 2\n\n', { end: false }))
  t.equal(dc.hasSubscribers('whatwg-eventsource:message'), false, 'not before a response')
  const es = new EventSource(srv.url())
  t.teardown(() => es.close())
  const events = record(es)
  await onceBounded(es, 'open')
  t.equal(dc.hasSubscribers('whatwg-eventsource:message'), true, 'from the response head')
  await events.wait('message', 2)
  t.equal(dc.hasSubscribers('whatwg-eventsource:message'), false, 'not after the first event')
  t.equal(written.filter((text) => text.includes('first event')).length, 1)
  verbose.stop()
  t.equal(dc.hasSubscribers('whatwg-eventsource:connect'), false, 'stop() unsubscribes')
  es.close()
  t.notOk(written.some((text) => text.includes('closed')), 'nothing printed after stop()')
})
