'use strict'

// The server side of the leak tests (test/reliability/reliability-leaks.test.cjs, test/soak/leaks.cjs): the routes
// test/children/leak.cjs visits, one for each way a connection can end or stay, and a bounded run of
// that child with --expose-gc.

const http = require('node:http')
const path = require('node:path')
const { listen, sse, SSE_HEADERS } = require('./server.cjs')
const { runChild } = require('./child.cjs')

const LEAK_CHILD = path.join(__dirname, '..', 'children', 'leak.cjs')

/**
 * /cycle ends every response, in turn: the body ends (the socket is kept alive and reused), the
 * socket is destroyed after an event (a network error), the body ends with `Connection: close` (a
 * new TCP connection next time). The other routes serve the finalization scenarios.
 * @param {import('tap').Test} t
 */
async function lifecycleServer (t) {
  const counts = { cycle: 0 }
  const server = http.createServer((req, res) => {
    switch (req.url) {
      case '/cycle': {
        const i = counts.cycle++
        const body = `id: ${i}\ndata: cycle ${i}\n\n`
        if (i % 3 === 0) {
          sse(res, body)
        } else if (i % 3 === 1) {
          res.writeHead(200, SSE_HEADERS)
          res.write(body, () => req.socket.destroy())
        } else {
          sse(res, body, { headers: { connection: 'close' } })
        }
        return
      }
      case '/stream':
        sse(res, 'data: 1\n\nevent: custom\ndata: 2\n\ndata: 3\n\ndata: 4\n\n', { end: false })
        return
      case '/end':
        sse(res, 'data: x\n\n')
        return
      case '/hang':
        return
      case '/big':
        sse(res, `data: ${'x'.repeat(4096)}`, { end: false })
        return
      default:
        res.writeHead(404).end()
    }
  })
  const srv = await listen(t, server)
  return { origin: `http://127.0.0.1:${srv.port}`, counts, srv }
}

/**
 * Runs test/children/leak.cjs with --expose-gc and resolves with its report (the one line it prints),
 * its exit code and stderr, and how long it took to exit after the report (it must exit on its own).
 * Coverage collection and the runner's preloaded modules are switched off in the child: they would
 * change what the heap holds, and the child's job is to measure it.
 * @param {import('tap').Test} t
 * @param {Array<string | number>} args
 * @param {number} ms for the whole run
 */
async function runLeakChild (t, args, ms) {
  const child = runChild(t, ['--expose-gc', LEAK_CHILD, ...args.map(String)], { isolate: true, coverage: false })
  let reportedAt = null
  child.waitFor('stdout', '\n', ms).then(() => { reportedAt = performance.now() }, () => {})
  const { report, code, stderr } = await child.exited(ms)
  return { report, code, stderr, exitMsAfterReport: reportedAt === null ? null : Math.round(performance.now() - reportedAt) }
}

module.exports = { lifecycleServer, runLeakChild }
