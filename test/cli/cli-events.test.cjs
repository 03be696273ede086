'use strict'

// How a run ends normally (exit status 0): --count reached, --timeout, Ctrl-C or SIGTERM, a reader
// closing the pipe; and --type choosing what is printed (and counted).

const t = require('tap')
const { once } = require('node:events')
const { runCli, serve, sse, lines, bounded } = require('../helpers/index.cjs')

// Resolves when the server sees the client's connection of request `req` close.
function clientGone (req) {
  if (req.socket.destroyed) return Promise.resolve()
  return bounded(once(req.socket, 'close'), 'the client to close its connection')
}

t.test('--type prints only the chosen types, and --count counts only those', async (t) => {
  const body = ['a', 'b', 'c', 'a', 'message', 'c'].map((type, i) => `event: ${type}\ndata: ${i}\n\n`).join('')
  const srv = await serve(t, (req, res) => sse(res, body, { end: false }))
  const { code, stdout } = await runCli(t, ['--type', 'a', '--type', 'c', '-n', '3', srv.url()]).exited()
  t.equal(code, 0)
  t.same(lines(stdout), ['[a] 0', '[c] 2', '[a] 3'])
})

t.test('--type message selects unnamed events', async (t) => {
  const srv = await serve(t, (req, res) => sse(res, 'event: x\ndata: 1\n\ndata: 2\n\n', { end: false }))
  const { code, stdout } = await runCli(t, ['--type', 'message', '--json', '-n', '1', srv.url()]).exited()
  t.equal(code, 0)
  t.equal(JSON.parse(stdout).data, '2')
})

t.test('--count exits 0 after n events and closes the connection the server keeps open', async (t) => {
  const srv = await serve(t, (req, res) => sse(res, 'data: 1\n\ndata: 2\n\ndata: 3\n\n', { end: false }))
  const cli = runCli(t, ['-n', '2', srv.url()])
  const req = await srv.request(0)
  const { code, stdout, stderr } = await cli.exited()
  t.equal(code, 0)
  t.same(lines(stdout), ['[message] 1', '[message] 2'])
  t.match(stderr, '* received 2 events, closing')
  await clientGone(req)
  t.equal(srv.requests.length, 1)
})

t.test('--timeout exits 0 when the time is up, on a stream the server keeps open', async (t) => {
  const srv = await serve(t, (req, res) => sse(res, 'data: only\n\n', { end: false }))
  const { code, stdout, stderr } = await runCli(t, ['--timeout', '300ms', srv.url()]).exited()
  t.equal(code, 0)
  // On a slow machine the time may be up before the event arrives; when it did, it was printed whole.
  t.match(stdout, /^(\[message\] only\n)?$/)
  t.match(stderr, '* 300 ms timeout, closing\n')
})

for (const signal of ['SIGINT', 'SIGTERM']) {
  t.test(`${signal} after the first event: exit 0, no stack trace, connection closed`, async (t) => {
    const srv = await serve(t, (req, res) => sse(res, 'data: first\n\n', { end: false }))
    const cli = runCli(t, [srv.url()])
    await cli.waitFor('stdout', '[message] first\n')
    const req = await srv.request(0)
    cli.child.kill(signal)
    const { code, signal: killedBy, stdout, stderr } = await cli.exited()
    t.equal(code, 0)
    t.equal(killedBy, null, 'exited by itself, not killed by the signal')
    t.equal(stdout, '[message] first\n')
    t.match(stderr, `* ${signal}, closing`)
    t.notMatch(stderr, /Error|^\s+at /m)
    await clientGone(req)
  })
}

t.test('a reader that closes the pipe (| head) ends the run with 0', async (t) => {
  let timer
  t.teardown(() => clearInterval(timer))
  const srv = await serve(t, (req, res) => {
    sse(res, 'data: 0\n\n', { end: false })
    // Keep writing, so the CLI finds the pipe closed.
    let n = 0
    timer = setInterval(() => res.write(`data: ${++n}\n\n`), 5)
  })
  const cli = runCli(t, ['-q', srv.url()])
  await cli.waitFor('stdout', '[message] 0\n')
  cli.child.stdout.destroy()
  const { code, signal, stderr } = await cli.exited()
  t.equal(code, 0)
  t.equal(signal, null)
  t.equal(stderr, '')
})
