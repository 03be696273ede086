'use strict'

// A hostile server against an EventSource at the default maxEventSize (64 MiB): the server streams a
// multi-GiB event that never ends, as fast as the client reads, and the client must fail with
// ERR_EVENTSOURCE_EVENT_TOO_LARGE once the cap is crossed, with its memory near the cap rather than
// near the size of the stream.
//
//   node benchmarks/hostile-stream.cjs                      an unterminated `data:` line, 4 GiB on offer
//   node benchmarks/hostile-stream.cjs --mode data-lines    endless `data:` lines, no blank line
//   node benchmarks/hostile-stream.cjs --gib 8 --cap 16     8 GiB on offer, a 16 MiB cap
//
// The server runs in a child process (this file with --server), so the RSS measured here is the
// client's alone: EventSource, undici and the parser. Prints the Node version, what the server had on
// offer, the bytes it wrote before the client went away, the bytes the client received, the time to
// the failure, and the client's RSS before the stream, at its peak (sampled every 10 ms, and the
// kernel's maxRSS), and after the failure.
//
// Modes:
//   line        `data: xxxx...` without a line end, in 64 KiB writes
//   data-lines  `data: x\n` again and again: 8 bytes per line on the wire, 2 bytes counted per line
//   empty-data  `data:\n` again and again: 6 bytes per line on the wire, 1 byte counted per line

const { fork } = require('node:child_process')
const http = require('node:http')
const { parseArgs } = require('node:util')

const MiB = 1024 * 1024
const GiB = 1024 * MiB
const MODES = {
  line: { head: 'data: ', unit: 'x' },
  'data-lines': { head: '', unit: 'data: x\n' },
  'empty-data': { head: '', unit: 'data:\n' }
}

function chunkFor (mode) {
  const { unit } = MODES[mode]
  return Buffer.from(unit.repeat(Math.floor(64 * 1024 / unit.length)))
}

// The server child: streams until `budget` bytes or until the client goes away, then tells the parent
// how many bytes it wrote.
function server ({ mode, budget }) {
  const chunk = chunkFor(mode)
  const srv = http.createServer(async (req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' })
    let written = 0
    let closed = false
    res.on('close', () => { closed = true })
    const head = MODES[mode].head
    res.write(head)
    written += head.length
    // eslint-disable-next-line no-unmodified-loop-condition -- `closed` is set by the 'close' listener during an await
    while (written < budget && !closed) {
      written += chunk.length
      if (!res.write(chunk)) {
        await new Promise((resolve) => {
          const done = () => { res.off('drain', done); res.off('close', done); resolve() }
          res.on('drain', done)
          res.on('close', done)
        })
      }
    }
    process.send({ written, closed })
  })
  srv.listen(0, '127.0.0.1', () => process.send({ port: srv.address().port }))
  process.on('disconnect', () => process.exit(0))
}

async function client ({ mode, budget, cap }) {
  const { EventSource } = require('..')
  const { Agent } = require('undici')
  const child = fork(__filename, ['--server', '--mode', mode, '--budget', String(budget)], { stdio: 'inherit' })
  const messages = []
  const waiters = []
  child.on('message', (message) => {
    messages.push(message)
    waiters.splice(0).forEach((resolve) => resolve())
  })
  const nextMessage = async () => {
    while (messages.length === 0) await new Promise((resolve) => waiters.push(resolve))
    return messages.shift()
  }
  const { port } = await nextMessage()

  // Count what the client takes in, on the undici handler API (no change to what it does).
  const agent = new Agent()
  let received = 0
  const dispatcher = {
    dispatch (options, handler) {
      return agent.dispatch(options, {
        onRequestStart: (c, ctx) => handler.onRequestStart(c, ctx),
        onRequestUpgrade: (...a) => handler.onRequestUpgrade(...a),
        onResponseStart: (c, s, h, t) => handler.onResponseStart(c, s, h, t),
        onResponseData: (c, chunk) => { received += chunk.length; handler.onResponseData(c, chunk) },
        onResponseEnd: (c, t) => handler.onResponseEnd(c, t),
        onResponseError: (c, e) => handler.onResponseError(c, e)
      })
    }
  }

  global.gc?.()
  const rssBefore = process.memoryUsage.rss()
  let peak = rssBefore
  const sampler = setInterval(() => { peak = Math.max(peak, process.memoryUsage.rss()) }, 10)
  const started = performance.now()
  const init = { dispatcher, reconnectionTime: 60_000 }
  if (cap !== undefined) init.maxEventSize = cap
  const es = new EventSource(`http://127.0.0.1:${port}/`, init)
  const outcome = await new Promise((resolve) => {
    es.onerror = (event) => resolve({ code: event.code, readyState: es.readyState, message: event.message })
    es.onmessage = () => resolve({ code: 'unexpected message' })
  })
  const elapsed = performance.now() - started
  peak = Math.max(peak, process.memoryUsage.rss())
  es.close()
  clearInterval(sampler)
  const { written } = await nextMessage()
  global.gc?.()
  const rssAfter = process.memoryUsage.rss()
  child.disconnect()
  await agent.close()

  const mib = (n) => `${(n / MiB).toFixed(1)} MiB`
  const rows = [
    ['node', process.version],
    ['mode', mode],
    ['maxEventSize', cap === undefined ? 'default (64 MiB)' : mib(cap)],
    ['on offer from the server', mib(budget)],
    ['outcome', `${outcome.code}, readyState ${outcome.readyState}`],
    ['server wrote before the client left', `${mib(written)} (${written} bytes)`],
    ['client received', `${mib(received)} (${received} bytes)`],
    ['time to failure', `${elapsed.toFixed(0)} ms`],
    ['RSS before the stream', mib(rssBefore)],
    ['peak RSS (sampled every 10 ms)', mib(peak)],
    ['peak RSS (kernel maxRSS)', mib(process.resourceUsage().maxRSS * 1024)],
    ['RSS after the failure (after GC)', mib(rssAfter)]
  ]
  const width = Math.max(...rows.map(([name]) => name.length))
  for (const [name, value] of rows) console.log(`${name.padEnd(width)}  ${value}`)
  if (outcome.code !== 'ERR_EVENTSOURCE_EVENT_TOO_LARGE') process.exitCode = 1
}

const { values } = parseArgs({
  options: {
    server: { type: 'boolean', default: false },
    mode: { type: 'string', default: 'line' },
    gib: { type: 'string', default: '4' },
    budget: { type: 'string' },
    cap: { type: 'string' }
  }
})
if (!(values.mode in MODES)) throw new Error(`--mode must be one of ${Object.keys(MODES).join(', ')}`)
const budget = values.budget !== undefined ? Number(values.budget) : Number(values.gib) * GiB
if (values.server) {
  server({ mode: values.mode, budget })
} else {
  client({ mode: values.mode, budget, cap: values.cap === undefined ? undefined : Number(values.cap) * MiB })
    .catch((err) => {
      console.error(err)
      process.exitCode = 1
    })
}
