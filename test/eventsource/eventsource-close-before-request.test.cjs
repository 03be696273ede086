'use strict'

// close() from inside a user callback that runs before a request is sent (a synchronous headers or body
// function, a user's fetch, a dispatcher's dispatch(), a diagnostics subscriber; or the init's signal
// aborted from there): no request, and nothing left running, as after close() from a listener. Each case
// runs in a child process (test/children/close-before-request.cjs) that must exit on its own: a request
// sent anyway, its socket or a reconnection timer would keep it alive past the bound.

const t = require('tap')
const path = require('node:path')
const { serve, sse, runChild } = require('../helpers/index.cjs')

const CHILD = path.join(__dirname, '..', 'children', 'close-before-request.cjs')
// How long a child may take to start and exit. One with a request or a timer left running does not exit.
const TIMEOUT = 5000
const { CONNECTING, OPEN, CLOSED } = require('../..').EventSource

async function run (t, where, attempt) {
  // The first response delivers an event and ends: the source reconnects at once (reconnectionTime 1).
  const server = await serve(t, (req, res) => sse(res, 'data: one\n\n'))
  const child = runChild(t, [CHILD, where, String(attempt), server.url('/events')], { isolate: true })
  const { code, signal, report, stderr } = await child.exited(TIMEOUT, `the child (${where}, attempt ${attempt}) to exit on its own`)
  t.equal(code, 0, 'the child exited on its own, with code 0', { stderr })
  t.equal(signal, null, 'the child was not killed')
  return { report, requests: server.requests }
}

for (const where of ['headers', 'body', 'signal', 'fetch', 'dispatcher', 'diagnostics', 'diagnostics-fetch']) {
  t.test(`close() from ${where}, before the first request: no request, nothing running`, async (t) => {
    const { report, requests } = await run(t, where, 1)
    t.equal(requests.length, 0, 'the server saw no request')
    t.same(report.log, [], 'nothing dispatched')
    t.equal(report.calls, 1)
    t.equal(report.readyState, CLOSED)
  })

  t.test(`close() from ${where}, before a reconnection: no second request, nothing running`, async (t) => {
    const { report, requests } = await run(t, where, 2)
    t.equal(requests.length, 1, 'the server saw the first request only')
    t.same(report.log, [['open', null, OPEN], ['message', 'one', OPEN], ['error', null, CONNECTING]])
    t.equal(report.calls, 2)
    t.equal(report.readyState, CLOSED)
  })
}
