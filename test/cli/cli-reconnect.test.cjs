'use strict'

// Reconnection shown on stderr (delay and reason), and the failures that end a run with exit status 1:
// a status other than 200, another Content-Type, retries exhausted.

const t = require('tap')
const net = require('node:net')
const { once } = require('node:events')
const { runCli, serve, sse, lines } = require('../helpers/index.cjs')

t.test('a dropped stream is reestablished: stderr says when and why; Last-Event-ID resumes it', async (t) => {
  const srv = await serve(t, (req, res, i) => {
    if (i === 0) sse(res, 'retry: 20\nid: 1\ndata: one\n\n')
    else sse(res, 'id: 2\ndata: two\n\n', { end: false })
  })
  const { code, stdout, stderr } = await runCli(t, ['-n', '2', srv.url()]).exited()
  t.equal(code, 0)
  t.same(lines(stdout), ['[message #1] one', '[message #2] two'])
  t.same(lines(stderr), [
    `* connecting to ${srv.url()}`,
    '* open',
    '* reconnecting in 20 ms: The server ended the event stream (ERR_EVENTSOURCE_STREAM_ENDED)',
    '* open',
    '* received 2 events, closing'
  ])
  t.equal(srv.requests[1].headers['last-event-id'], '1')
})

t.test('--retry sets the delay, --backoff grows it', async (t) => {
  const srv = await serve(t, (req, res, i) => {
    if (i < 3) req.socket.destroy()
    else sse(res, 'data: at last\n\n', { end: false })
  })
  const { code, stdout, stderr } = await runCli(t, ['--retry', '10ms', '--backoff', '2', '-n', '1', srv.url()]).exited()
  t.equal(code, 0)
  t.equal(stdout, '[message] at last\n')
  const delays = [...stderr.matchAll(/reconnecting in (\d+) ms: The connection to .* failed: .*\(ERR_EVENTSOURCE_NETWORK\)/g)]
    .map((m) => Number(m[1]))
  t.same(delays, [10, 20, 40])
})

t.test('a status other than 200 fails: exit 1, the status on stderr, no reconnection', async (t) => {
  const srv = await serve(t, (req, res) => {
    res.writeHead(404, { 'content-type': 'text/plain' })
    res.end('no such stream')
  })
  const { code, stdout, stderr } = await runCli(t, ['--retry', '10', srv.url('/missing')]).exited()
  t.equal(code, 1)
  t.equal(stdout, '')
  t.match(stderr, '* failed: The server answered 404 Not Found: an event stream needs status 200 (ERR_EVENTSOURCE_BAD_STATUS)\n')
  t.notMatch(stderr, 'reconnecting')
  t.notMatch(stderr, /^\s+at /m)
  t.equal(srv.requests.length, 1)
})

t.test('a Content-Type other than text/event-stream fails: exit 1', async (t) => {
  const srv = await serve(t, (req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end('{}')
  })
  const { code, stderr } = await runCli(t, [srv.url()]).exited()
  t.equal(code, 1)
  t.match(stderr, /\* failed: The server answered with Content-Type "application\/json": an event stream needs text\/event-stream \(ERR_EVENTSOURCE_BAD_CONTENT_TYPE\)/)
})

t.test('--max-retries: exit 1 once that many reconnections in a row failed', async (t) => {
  const srv = await serve(t, (req) => req.socket.destroy())
  const { code, stderr } = await runCli(t, ['--retry', '5', '--max-retries', '2', srv.url()]).exited()
  t.equal(code, 1)
  t.equal(srv.requests.length, 3, 'the first attempt and 2 retries')
  t.equal(stderr.match(/reconnecting in 5 ms/g)?.length, 2)
  t.match(stderr, /\* failed: Gave up after 3 failed attempts in a row: .* \(ERR_EVENTSOURCE_RETRIES_EXHAUSTED\)/)
})

t.test('a refused connection with --max-retries 0: exit 1 at once', async (t) => {
  // A port that was just listening and is now closed refuses connections.
  const probe = net.createServer().listen(0, '127.0.0.1')
  await once(probe, 'listening')
  const url = `http://127.0.0.1:${probe.address().port}/`
  await new Promise((resolve) => probe.close(resolve))
  const { code, stderr } = await runCli(t, ['--max-retries', '0', url]).exited()
  t.equal(code, 1)
  t.match(stderr, /\* failed: Gave up after 1 failed attempt in a row: The connection to http:\/\/127\.0\.0\.1:\d+ failed: .*ECONNREFUSED/)
})

t.test('--retry-on: a listed status reconnects instead of failing', async (t) => {
  const srv = await serve(t, (req, res, i) => {
    if (i === 0) {
      res.writeHead(503, { 'retry-after': '0' })
      res.end()
    } else {
      sse(res, 'data: back\n\n', { end: false })
    }
  })
  // Retry-After is a floor under the reconnection time: 0 does not shorten --retry.
  const { code, stdout, stderr } = await runCli(t, ['--retry-on', '502,503', '--retry', '10ms', '-n', '1', srv.url()]).exited()
  t.equal(code, 0)
  t.equal(stdout, '[message] back\n')
  t.match(stderr, '* reconnecting in 10 ms: The server answered 503 Service Unavailable')
})

t.test('--idle-timeout: a silent connection is dropped and reestablished', async (t) => {
  const srv = await serve(t, (req, res, i) => sse(res, i === 0 ? '' : 'data: awake\n\n', { end: false }))
  const { code, stdout, stderr } = await runCli(t, ['--idle-timeout', '100', '--retry', '5', '-n', '1', srv.url()]).exited()
  t.equal(code, 0)
  t.equal(stdout, '[message] awake\n')
  t.match(stderr, /\* reconnecting in 5 ms: No data from http:\/\/127\.0\.0\.1:\d+ for 100 ms \(idleTimeout\) \(ERR_EVENTSOURCE_IDLE_TIMEOUT\)/)
})

t.test('--max-event-size: a larger event fails the connection', async (t) => {
  const srv = await serve(t, (req, res) => sse(res, `data: ${'x'.repeat(2000)}\n\n`, { end: false }))
  const { code, stdout, stderr } = await runCli(t, ['--max-event-size', '1k', srv.url()]).exited()
  t.equal(code, 1)
  t.equal(stdout, '')
  t.match(stderr, /\* failed: An event exceeded the maximum event size of 1024 bytes .*ERR_EVENTSOURCE_EVENT_TOO_LARGE/)
})

t.test('--once: the end of the stream ends the run with 0, without reconnecting', async (t) => {
  const srv = await serve(t, (req, res) => sse(res, 'data: {"delta":"Hel"}\n\ndata: {"delta":"lo"}\n\ndata: [DONE]\n\n'))
  const { code, stdout, stderr } = await runCli(t, ['--once', '-d', '{"stream":true}', srv.url()]).exited()
  t.equal(code, 0)
  t.same(lines(stdout), ['[message] {"delta":"Hel"}', '[message] {"delta":"lo"}', '[message] [DONE]'])
  t.match(stderr, '* the server ended the stream\n')
  t.notMatch(stderr, 'reconnecting')
  t.equal(srv.requests.length, 1, 'the POST was not sent again')
})

// A POST is not idempotent (RFC 9110 9.2.2): the library does not send it again without the user's say.
t.test('-d: a broken connection fails the POST, exit 1, without sending it again', async (t) => {
  const srv = await serve(t, (req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' })
    res.write('data: partial\n\n', () => req.socket.destroy())
  })
  const { code, stdout, stderr } = await runCli(t, ['--retry', '0', '-d', '{"stream":true}', srv.url()]).exited()
  t.equal(code, 1)
  t.equal(stdout, '[message] partial\n')
  t.match(stderr, /\* failed: The connection to .* failed: .*\(ERR_EVENTSOURCE_NETWORK\)/)
  t.match(stderr, /\(ERR_EVENTSOURCE_NETWORK\); a POST is not sent again without --idempotent\n/, 'and why')
  t.notMatch(stderr, 'reconnecting')
  t.equal(srv.requests.length, 1, 'one POST')
})

t.test('-X PATCH: a status --retry-on lists fails it too, and says why', async (t) => {
  const srv = await serve(t, (req, res) => res.writeHead(503).end())
  const { code, stderr } = await runCli(t, ['--retry', '0', '--retry-on', '503', '-X', 'PATCH', srv.url()]).exited()
  t.equal(code, 1)
  t.match(stderr, /\(ERR_EVENTSOURCE_BAD_STATUS\); a PATCH is not sent again without --idempotent\n/)
  t.equal(srv.requests.length, 1)
})

t.test('--idempotent: the POST may be sent again, and reconnects after a broken connection', async (t) => {
  const srv = await serve(t, (req, res, i) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' })
    if (i === 0) res.write('id: 1\ndata: partial\n\n', () => req.socket.destroy())
    else res.write(`data: resumed after ${req.headers['last-event-id']}\n\n`)
  })
  const args = ['--idempotent', '--retry', '0', '-n', '2', '-d', '{"q":1}', srv.url()]
  const { code, stdout, stderr } = await runCli(t, args).exited()
  t.equal(code, 0)
  t.same(lines(stdout), ['[message #1] partial', '[message #1] resumed after 1'])
  t.match(stderr, /\* reconnecting in 0 ms: The connection to .* failed: .*\(ERR_EVENTSOURCE_NETWORK\)\n/)
  t.same(srv.requests.map((req) => [req.method, req.body.toString()]), [['POST', '{"q":1}'], ['POST', '{"q":1}']])
})

t.test('--once: a broken connection is a failure, exit 1', async (t) => {
  const srv = await serve(t, (req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' })
    // Cut the connection in the middle of the chunked body, once the event is on its way.
    res.write('data: partial\n\n', () => req.socket.destroy())
  })
  const { code, stdout, stderr } = await runCli(t, ['--once', srv.url()]).exited()
  t.equal(code, 1)
  t.equal(stdout, '[message] partial\n')
  t.match(stderr, /\* failed: The connection to .* failed: .*\(ERR_EVENTSOURCE_NETWORK\)/)
  t.equal(srv.requests.length, 1)
})
