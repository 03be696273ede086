'use strict'

// The parent side of the leak tests: the server the child (reliability-leak-child.js) talks to, and
// a bounded run of the child. Used by test/reliability-leaks.test.js and test/soak/leaks.js.

const http = require('node:http')
const path = require('node:path')
const { spawn } = require('node:child_process')
const { once } = require('node:events')
const { listen, within, SSE_HEAD } = require('./reliability-util')

const CHILD = path.join(__dirname, 'reliability-leak-child.js')

/**
 * /cycle ends every response, in turn: the body ends (the socket is kept alive and reused), the
 * socket is destroyed after an event (a network error), the body ends with `Connection: close` (a
 * new TCP connection next time). The other routes serve the finalization scenarios.
 * @param {import('tap').Test | null} t
 */
async function startLeakServer (t) {
  const counts = { cycle: 0 }
  const server = http.createServer((req, res) => {
    switch (req.url) {
      case '/cycle': {
        const i = counts.cycle++
        const body = `id: ${i}\ndata: cycle ${i}\n\n`
        if (i % 3 === 0) {
          res.writeHead(200, SSE_HEAD).end(body)
        } else if (i % 3 === 1) {
          res.writeHead(200, SSE_HEAD)
          res.write(body, () => req.socket.destroy())
        } else {
          res.writeHead(200, { ...SSE_HEAD, connection: 'close' }).end(body)
        }
        return
      }
      case '/stream':
        res.writeHead(200, SSE_HEAD)
        res.write('data: 1\n\nevent: custom\ndata: 2\n\ndata: 3\n\ndata: 4\n\n')
        return
      case '/end':
        res.writeHead(200, SSE_HEAD).end('data: x\n\n')
        return
      case '/hang':
        return
      case '/big':
        res.writeHead(200, SSE_HEAD)
        res.write(`data: ${'x'.repeat(4096)}`)
        return
      default:
        res.writeHead(404).end()
    }
  })
  const srv = await listen(t, server)
  return { origin: `http://127.0.0.1:${srv.port}`, counts, srv }
}

/**
 * Runs the child with --expose-gc and resolves with its report, its exit code and how long it took
 * to exit after the report (it must exit on its own). Coverage collection and preloaded modules
 * (tap's process tracking comes through NODE_OPTIONS) are switched off in the child: they would
 * change what the heap holds, and the child's job is to measure it.
 * @param {string[]} args
 * @param {number} timeout ms for the whole run
 * @param {{ script?: string, execArgv?: string[] }} [options] another child script (the memory tests' is
 *   reliability-memory-child.js), and more Node flags
 */
async function runChild (args, timeout, { script = CHILD, execArgv = [] } = {}) {
  const env = { ...process.env }
  delete env.NODE_V8_COVERAGE
  delete env.NODE_OPTIONS
  const child = spawn(process.execPath, ['--expose-gc', ...execArgv, script, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  let reportedAt = null
  child.stdout.setEncoding('utf8')
  child.stderr.setEncoding('utf8')
  child.stdout.on('data', (text) => {
    stdout += text
    if (reportedAt === null && stdout.includes('\n')) reportedAt = performance.now()
  })
  child.stderr.on('data', (text) => { stderr += text })
  const exited = once(child, 'exit')
  let code
  try {
    [code] = await within(exited, () => `the child to exit (stdout: ${stdout.slice(0, 500)}, stderr: ${stderr.slice(0, 500)})`, timeout)
  } catch (err) {
    child.kill('SIGKILL')
    throw err
  }
  const line = stdout.split('\n')[0]
  let report
  try {
    report = JSON.parse(line)
  } catch {
    report = { error: `no report: ${stdout} ${stderr}` }
  }
  return { report, code, stderr, exitMsAfterReport: reportedAt === null ? null : Math.round(performance.now() - reportedAt) }
}

module.exports = { startLeakServer, runChild }
