'use strict'

// --raw: one request with the same method, headers and body, the response bytes copied to stdout
// untouched, the status and headers on stderr.

const t = require('tap')
const { runCli, serve, sse, lines } = require('../helpers/index.cjs')

// Everything the parser would smooth over: a BOM, CR and CRLF line ends, comments, a retry field,
// a field without a colon, bytes that are not UTF-8.
const BYTES = Buffer.concat([
  Buffer.from([0xef, 0xbb, 0xbf]),
  Buffer.from(': comment\r\nretry: 1000\rid: 1\r\ndata: caf\u00e9\n'),
  Buffer.from([0x64, 0x61, 0x74, 0x61, 0x3a, 0x20, 0xff, 0xfe, 0x0a]),
  Buffer.from('noColon\n\n')
])

t.test('--raw prints the bytes as received and ends 0 with the stream', async (t) => {
  const srv = await serve(t, (req, res) => sse(res, BYTES, { headers: { 'x-served-by': 'test' } }))
  const cli = runCli(t, ['--raw', srv.url('/raw')])
  const { code, stderr } = await cli.exited()
  t.equal(code, 0)
  t.same(cli.stdoutBuffer, BYTES)
  const status = lines(stderr)
  t.equal(status[0], `* connecting to ${srv.url('/raw')}`)
  t.equal(status[1], '* HTTP 200')
  t.ok(status.includes('* content-type: text/event-stream'))
  t.ok(status.includes('* x-served-by: test'))
  t.equal(status.at(-1), '* the server ended the stream')
  // No content coding was asked for: the bytes are what the server wrote.
  t.equal(srv.requests[0].headers['accept-encoding'], undefined)
})

t.test('--raw sends the same method, headers and body as the EventSource would', async (t) => {
  const srv = await serve(t, (req, res) => sse(res, 'data: ok\n\n'))
  const { code, stdout } = await runCli(t, ['--raw', '-q', '-H', 'Authorization: Bearer t0k', '-H', 'Last-Event-ID: 3',
    '-d', '{"q":1}', srv.url()]).exited()
  t.equal(code, 0)
  t.equal(stdout, 'data: ok\n\n')
  const req = await srv.request(0)
  t.equal(req.method, 'POST')
  t.equal(req.body.toString(), '{"q":1}')
  t.equal(req.headers['content-type'], 'application/json')
  t.equal(req.headers.authorization, 'Bearer t0k')
  t.equal(req.headers.accept, 'text/event-stream')
  t.equal(req.headers['last-event-id'], '3')
})

t.test('--raw prints the body of an error response, then exits 1', async (t) => {
  const srv = await serve(t, (req, res) => {
    res.writeHead(500, { 'content-type': 'text/plain' })
    res.end('upstream exploded\n')
  })
  const { code, stdout, stderr } = await runCli(t, ['--raw', srv.url()]).exited()
  t.equal(code, 1)
  t.equal(stdout, 'upstream exploded\n')
  t.match(stderr, '* HTTP 500\n')
  t.match(stderr, '* failed: the server answered 500: an event stream needs status 200\n')
})

t.test('--raw with a wrong Content-Type exits 1 after the body', async (t) => {
  const srv = await serve(t, (req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' })
    res.end('<p>hi</p>')
  })
  const { code, stdout, stderr } = await runCli(t, ['--raw', srv.url()]).exited()
  t.equal(code, 1)
  t.equal(stdout, '<p>hi</p>')
  t.match(stderr, '* failed: the server answered with Content-Type "text/html"')
})

t.test('--raw with --timeout ends 0 on a stream left open; SIGINT too', async (t) => {
  const srv = await serve(t, (req, res) => sse(res, 'data: 1\n\n', { end: false }))
  let result = await runCli(t, ['--raw', '--timeout', '200ms', srv.url()]).exited()
  t.equal(result.code, 0)
  t.match(result.stdout, /^(data: 1\n\n)?$/)
  t.match(result.stderr, '* 200 ms timeout, closing\n')
  const cli = runCli(t, ['--raw', srv.url()])
  await cli.waitFor('stdout', 'data: 1\n\n')
  cli.child.kill('SIGINT')
  result = await cli.exited()
  t.equal(result.code, 0)
  t.equal(result.signal, null)
  t.notMatch(result.stderr, /Error|^\s+at /m)
})
