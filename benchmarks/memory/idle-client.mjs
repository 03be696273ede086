// One client process of the idle-connections benchmark (forked by ./run.mjs with --expose-gc): it opens
// `count` connections to the server's /idle endpoint (headers and one event, then silence) and
// reports the memory they hold and the time they took to open.
//
//   1. load the client and warm it up: open `warmup` connections, wait for their events, close them
//      (lazily loaded modules and per-origin state are not per-connection costs);
//   2. GC, process.memoryUsage() (before);
//   3. open `count` connections at once, all to the same origin (/idle?i=<index>), and time until every
//      one has dispatched `open` and its event (wall time, and this process's CPU time);
//   4. GC, process.memoryUsage() (after); (after - before) / count per connection;
//   5. check every connection received exactly its own event: the count, and a hash in connection order
//      (of type, last event ID and data; the floor hashes its raw bytes).
//
// argv[2]: JSON { client, transport?, base, count, warmup, snapshot? } (transport: http, https or h2,
// see ../e2e/clients.mjs; snapshot: a heap snapshot file to write after the measurement, for profiling)

import { createHash } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import { writeHeapSnapshot } from 'node:v8'
import { loadClient } from '../e2e/clients.mjs'
import { EventHash, idleEventText } from '../e2e/workloads.mjs'

const { client, transport = 'http', base, count, warmup, snapshot } = JSON.parse(process.argv[2])
// TLS handshakes take a few ms of CPU each: 10,000 of them over HTTPS/1.1 on a loaded machine need more.
const TIMEOUT = transport === 'http' ? 120_000 : 600_000

if (typeof globalThis.gc !== 'function') throw new Error('run with --expose-gc')

const impl = await loadClient(client, { transport, sources: count + warmup })

async function fullGC () {
  // Several rounds, with turns of the event loop between them for finalizers and weak callbacks.
  for (let i = 0; i < 4; i++) {
    globalThis.gc()
    await sleep(10)
  }
}

/**
 * Opens n connections, the k-th to /idle?i=<first + k>, into handles[k] (its event into received[k]); resolves when all have their event, with the
 * time (ms) from the first constructor call to the last `open` and to the last event.
 */
function openAll (handles, received, first, n) {
  return new Promise((resolve, reject) => {
    let opened = 0
    let messages = 0
    let allOpenMs = null
    const timer = setTimeout(() => reject(new Error(`${client}: ${opened} opened, ${messages} events of ${n} after ${TIMEOUT} ms`)), TIMEOUT)
    const start = process.hrtime.bigint()
    const elapsed = () => Number(process.hrtime.bigint() - start) / 1e6
    const onOpen = () => {
      if (++opened === n) allOpenMs = elapsed()
    }
    const onEvent = () => {
      if (++messages === n) {
        clearTimeout(timer)
        resolve({ allOpenMs, allEventsMs: elapsed() })
      }
    }
    const onError = (i, what) => {
      clearTimeout(timer)
      reject(new Error(`${client}: connection ${i} failed: ${what}`))
    }
    if (client === 'floor') {
      for (let k = 0; k < n; k++) {
        const i = first + k
        const expected = idleEventText(i)
        const req = impl.get(`${base}/idle?i=${i}`, (res) => {
          if (res.statusCode !== 200) onError(i, `status ${res.statusCode}`)
          onOpen()
          let text = ''
          res.setEncoding('latin1')
          res.on('data', (chunk) => {
            text += chunk
            if (text.length === expected.length) {
              received[k] = text
              onEvent()
            }
          })
        })
        req.on('error', (err) => onError(i, err.message))
        handles[k] = req
      }
      return
    }
    const { EventSource, init } = impl
    for (let k = 0; k < n; k++) {
      const i = first + k
      const es = new EventSource(`${base}/idle?i=${i}`, init)
      es.onopen = onOpen
      es.onmessage = (event) => {
        received[k] = event.type === 'message' ? [event.lastEventId, event.data] : null
        onEvent()
      }
      es.onerror = (event) => {
        if (received[k] === undefined) onError(i, `error event, readyState ${es.readyState}${event.message ? `: ${event.message}` : ''}`)
      }
      handles[k] = es
    }
  })
}

function closeAll (handles) {
  for (const h of handles) {
    if (client === 'floor') h.destroy()
    else h.close()
  }
}

// 1. warm-up (indices count..count+warmup-1, outside the measured range)
{
  const handles = []
  await openAll(handles, [], count, warmup)
  closeAll(handles)
  await sleep(200)
}

// Everything the measurement itself keeps is allocated before the baseline.
const handles = new Array(count).fill(null)
const received = new Array(count).fill(undefined)
const hash = new EventHash()

// 2. before
await fullGC()
const before = process.memoryUsage()

// 3. open them all (and the client's CPU time for it: wall time also waits on the server and the kernel)
const cpuBefore = process.cpuUsage()
let times
try {
  times = await openAll(handles, received, 0, count)
} catch (err) {
  // The runner records it as this sample's failure.
  process.send({ client, count, error: err.message }, () => process.exit(1))
  await new Promise(() => {})
}
const openCpu = process.cpuUsage(cpuBefore)
times.openCpuMs = (openCpu.user + openCpu.system) / 1000
await sleep(200)

// 4. after (before the check, which allocates)
await fullGC()
const after = process.memoryUsage()

// 5. check
let ok = 0
const raw = createHash('sha256')
for (let i = 0; i < count; i++) {
  const r = received[i]
  if (client === 'floor') {
    if (r === idleEventText(i)) ok++
    raw.update(r ?? '', 'latin1')
  } else if (r != null) {
    hash.add('message', r[0], r[1])
    if (r[0] === String(i) && r[1] === `idle ${i}`) ok++
  }
}

const perConnection = {}
for (const key of ['heapUsed', 'heapTotal', 'rss', 'external', 'arrayBuffers']) {
  perConnection[key] = (after[key] - before[key]) / count
}

if (snapshot) writeHeapSnapshot(snapshot)

process.send({
  client,
  count,
  ok,
  hash: client === 'floor' ? raw.digest('hex') : hash.digest(),
  before,
  after,
  perConnection,
  ...times
}, () => {
  // The connections go with the process; closing 5,000 of them first would only add time.
  process.exit(0)
})
