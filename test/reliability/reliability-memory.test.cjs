'use strict'

// Memory stays bounded whatever the encoding and however slow the consumer: a compression bomb (gzip of
// gzip, 64 MiB of events in under 1 KiB) read by a `for await` loop that stops, or that reads slower
// than zlib decodes, or printed by the CLI into a pipe nobody reads. The measured parts run in a child
// process with --expose-gc (test/children/memory.cjs), the servers here.
// test/parser/parser-memory.test.cjs does the same for maxEventSize.

const t = require('tap')
const path = require('node:path')
const zlib = require('node:zlib')
const { readFileSync } = require('node:fs')
const { serve, SSE_HEADERS, runCli, runHeapChild } = require('../helpers/index.cjs')

const MiB = 1024 * 1024
const CHILD = path.join(__dirname, '..', 'children', 'memory.cjs')

// Five child processes and two CLI runs decoding 64 MiB each: more than tap's 30 s on a loaded machine.
t.setTimeout(300_000)

// 64 Ki events of 1 KiB: 64 MiB of event stream, gzipped twice; and zstd twice where Node's zlib has it
// (22.15 and later).
const EVENT = `data: ${'x'.repeat(1016)}\n\n`
const EVENTS = 64 * 1024
const STREAM = Buffer.alloc(EVENTS * EVENT.length, EVENT)
const BOMB = zlib.gzipSync(zlib.gzipSync(STREAM))
const ZSTD_BOMB = typeof process.versions.zstd === 'string' ? zlib.zstdCompressSync(zlib.zstdCompressSync(STREAM)) : null

async function bombServer (t, coding = 'gzip') {
  return serve(t, (req, res) => {
    res.writeHead(200, { ...SSE_HEADERS, 'content-encoding': `${coding}, ${coding}` })
    res.end(coding === 'zstd' ? ZSTD_BOMB : BOMB)
  })
}

t.test('the bomb is one', async (t) => {
  t.ok(BOMB.length < 1024, `${BOMB.length} bytes hold ${EVENTS * EVENT.length / MiB} MiB`)
  if (ZSTD_BOMB !== null) t.ok(ZSTD_BOMB.length < 1024, `zstd: ${ZSTD_BOMB.length} bytes hold them too`)
})

// zstd on the Dispatcher transport (lib/transport/content-decoding.js; Node's fetch decodes it from
// undici 8 on): the same bound, a consumer that stops reading.
t.test('dispatcher: a zstd bomb and a consumer that stops reading: the decoder stops too', {
  skip: ZSTD_BOMB === null && `zstd needs Node 22.15 or later (this is ${process.version})`
}, async (t) => {
  const srv = await bombServer(t, 'zstd')
  const { report, code } = await runHeapChild(t, CHILD, ['stalled', srv.url('/'), EVENTS], 60_000, { env: { MEMORY_TRANSPORT: 'dispatcher' } })
  t.equal(report.error, undefined, 'the child ran')
  t.equal(code, 0)
  t.equal(report.controlEvents, EVENTS, 'a control source read the whole body meanwhile')
  t.ok(report.queued <= 1000 + 64, `${report.queued} events queued`)
  t.ok(report.growth < 16 * MiB, `memory growth ${(report.growth / MiB).toFixed(1)} MiB < 16 MiB`)
  t.equal(report.read, EVENTS, 'then every event arrives')
  t.notOk(report.mismatch)
})

// On both transports: the Dispatcher transport decodes with lib/transport/content-decoding.js, the fetch transport
// leaves it to Node's fetch and stops reading its body.
for (const transport of ['dispatcher', 'fetch']) {
  const env = { MEMORY_TRANSPORT: transport }

  t.test(`${transport}: a gzip bomb and a consumer that stops reading: the decoder stops too`, async (t) => {
    const srv = await bombServer(t)
    const { report, code } = await runHeapChild(t, CHILD, ['stalled', srv.url('/'), EVENTS], 60_000, { env })
    t.equal(report.error, undefined, 'the child ran')
    t.equal(code, 0)
    t.equal(report.controlEvents, EVENTS, 'a control source read the whole body meanwhile')
    t.notOk(report.controlMismatch)
    // The queue: highWaterMark (1000) events, plus those of one decoded chunk.
    t.ok(report.queued <= 1000 + 64, `${report.queued} events queued`)
    t.ok(report.growth < 16 * MiB, `memory growth ${(report.growth / MiB).toFixed(1)} MiB < 16 MiB`)
    t.equal(report.errorsWhileStalled, 0, 'the end of the body waits behind the bytes not yet decoded')
    t.equal(report.read, EVENTS, 'then every event arrives')
    t.notOk(report.mismatch)
    t.comment(`queued ${report.queued} events (${report.queuedBytes} bytes counted), growth ${report.growth} bytes, rss ${report.rss}`)
  })

  t.test(`${transport}: a gzip bomb and a consumer slower than the decoder`, async (t) => {
    const srv = await bombServer(t)
    const { report, code } = await runHeapChild(t, CHILD, ['slow', srv.url('/'), EVENTS, 4096], 120_000, { env })
    t.equal(report.error, undefined, 'the child ran')
    t.equal(code, 0)
    t.equal(report.read, EVENTS, 'every event arrived')
    t.notOk(report.mismatch)
    t.equal(report.samples.length, EVENTS / 4096)
    t.ok(report.maxGrowth < 16 * MiB, `memory growth at most ${(report.maxGrowth / MiB).toFixed(1)} MiB < 16 MiB`)
    t.comment(`growth samples (MiB): ${report.samples.map((s) => (s / MiB).toFixed(1)).join(' ')}`)
  })
}

t.test('queued events keep their own strings, not the text of the chunk they came in', async (t) => {
  // Each event is 29 bytes in 64 KiB: the rest is a comment. The parser's values are slices of their
  // chunk's decoded text; 1000 queued events would keep 1000 such texts, 64 MiB, alive.
  const chunk = Buffer.alloc(64 * 1024, 0x70)
  chunk.write('\ndata: 0123456789abcdefghij\n\n:')
  const count = 1500
  const srv = await serve(t, async (req, res) => {
    res.writeHead(200, SSE_HEADERS)
    for (let i = 0; i < count && !res.destroyed; i++) {
      if (!res.write(chunk)) await new Promise((resolve) => res.once('drain', resolve))
    }
    res.end()
  })
  const { report, code } = await runHeapChild(t, CHILD, ['stalled', srv.url('/'), count], 60_000)
  t.equal(report.error, undefined, 'the child ran')
  t.equal(code, 0)
  t.equal(report.controlEvents, count)
  t.ok(report.queued >= 1000, `${report.queued} events queued`)
  t.ok(report.growth < 16 * MiB, `memory growth ${(report.growth / MiB).toFixed(1)} MiB < 16 MiB`)
  t.equal(report.read, count)
  t.notOk(report.mismatch)
})

/** Peak and current resident set of a running process, in bytes. */
function residentSet (pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kib = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)[1]) * 1024
  return { peak: kib('VmHWM'), now: kib('VmRSS') }
}

t.test('ssecat into a pipe nobody reads, on a gzip bomb: it waits, and its memory stays bounded', {
  skip: process.platform !== 'linux' && 'reads /proc'
}, async (t) => {
  const srv = await bombServer(t)
  const stalled = runCli(t, ['--once', srv.url('/')])
  // Stop reading its stdout: once the pipe and our side's buffer are full, its writes back up.
  stalled.child.stdout.pause()
  await stalled.waitFor('stderr', '* open')
  // A control run that is read reaches the end of the same body: by then the stalled one has had the
  // time to decode all of it, had it not waited for its stdout.
  const control = runCli(t, ['--once', srv.url('/')])
  const ended = await control.exited(60_000)
  t.equal(ended.code, 0)
  t.equal(ended.stdout.split('\n').length - 1, EVENTS, 'the control run printed every event')
  t.equal(stalled.child.exitCode, null, 'the stalled run is still running')
  const rss = stalled.child.exitCode === null ? residentSet(stalled.child.pid) : { peak: Infinity, now: Infinity }
  t.ok(rss.peak < 160 * MiB, `peak RSS ${(rss.peak / MiB).toFixed(0)} MiB < 160 MiB (the body holds 64 MiB)`)
  t.notMatch(stalled.stderr, 'the server ended the stream', 'still waiting for its stdout')
  stalled.child.stdout.resume()
  const done = await stalled.exited(60_000)
  t.equal(done.code, 0)
  t.equal(done.stdout.split('\n').length - 1, EVENTS, 'then it printed every event')
  t.match(done.stderr, 'the server ended the stream')
  t.comment(`stalled ssecat: peak RSS ${rss.peak} bytes, RSS ${rss.now} bytes`)
})
