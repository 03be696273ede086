'use strict'

// What reaches the server: headers (-H, repeatable), the method and body (-X, -d, -d @file, -d @-)
// with their Content-Type, and Last-Event-ID (--last-event-id, or -H 'Last-Event-ID: ...').

const t = require('tap')
const path = require('node:path')
const { writeFileSync } = require('node:fs')
const { runCli, serve, sse } = require('../helpers/index.cjs')

// A server answering each request with one event, kept open; the CLI exits after it (-n 1).
async function oneEvent (t) {
  return serve(t, (req, res) => sse(res, 'data: ok\n\n', { end: false }))
}

async function run (t, args, options) {
  const srv = await oneEvent(t)
  const { code, stdout } = await runCli(t, ['-q', '-n', '1', ...args, srv.url('/stream?x=1')], options).exited()
  t.equal(code, 0, 'exit status')
  t.equal(srv.requests.length, 1)
  const req = await srv.request(0)
  return { method: req.method, url: req.url, headers: req.headers, body: req.body.toString(), stdout }
}

t.test('-H headers reach the server, repeated ones joined, with the EventSource defaults', async (t) => {
  const req = await run(t, ['-H', 'Authorization: Bearer s3cr3t', '-H', 'X-Multi: 1', '--header', 'x-multi:  2 '])
  t.equal(req.method, 'GET')
  t.equal(req.url, '/stream?x=1')
  t.equal(req.headers.authorization, 'Bearer s3cr3t')
  t.equal(req.headers['x-multi'], '1, 2')
  t.equal(req.headers.accept, 'text/event-stream')
  t.equal(req.headers['cache-control'], 'no-cache')
  t.equal(req.headers['last-event-id'], undefined)
  t.equal(req.body, '')
  t.equal(req.stdout, '[message] ok\n')
})

t.test('-d sends a POST; a JSON body goes as application/json', async (t) => {
  const body = '{"model":"demo","stream":true,"messages":[{"role":"user","content":"hi"}]}'
  const req = await run(t, ['-d', body])
  t.equal(req.method, 'POST')
  t.equal(req.body, body)
  t.equal(req.headers['content-type'], 'application/json')
})

t.test('-d with text goes as text/plain; -H Content-Type and -X win', async (t) => {
  let req = await run(t, ['-d', 'plain words'])
  t.equal(req.method, 'POST')
  t.equal(req.headers['content-type'], 'text/plain;charset=UTF-8')
  t.equal(req.body, 'plain words')
  req = await run(t, ['-X', 'put', '-H', 'Content-Type: application/x-ndjson', '-d', '{"a":1}'])
  t.equal(req.method, 'PUT')
  t.equal(req.headers['content-type'], 'application/x-ndjson')
  t.equal(req.body, '{"a":1}')
})

t.test('-d @file sends the file, -d @- sends stdin', async (t) => {
  const dir = t.testdir({})
  const file = path.join(dir, 'body.json')
  const content = '{"prompt": "caf\u00e9 \u2615"}\n'
  writeFileSync(file, content)
  let req = await run(t, ['-d', `@${file}`])
  t.equal(req.body, content)
  t.equal(req.headers['content-type'], 'application/json')
  req = await run(t, ['-d', '@-'], { stdin: 'from stdin' })
  t.equal(req.body, 'from stdin')
  t.equal(req.method, 'POST')
})

t.test('--last-event-id and -H Last-Event-ID set the ID of the first request', async (t) => {
  let req = await run(t, ['--last-event-id', '42'])
  t.equal(req.headers['last-event-id'], '42')
  // The event carries the last event ID, which starts from the given one.
  t.equal(req.stdout, '[message #42] ok\n')
  req = await run(t, ['-H', 'Last-Event-ID: 9'])
  t.equal(req.headers['last-event-id'], '9')
  t.equal(req.stdout, '[message #9] ok\n')
})
