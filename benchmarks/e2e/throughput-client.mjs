// One client process of the throughput benchmark (forked by ./run.mjs). It loads one client, then:
//   0. a cold run: the first connection of this fresh process, timed like the timed runs below (the
//      runner checks its count and data length like theirs): the "cold" figure;
//   1. a verification run: the whole stream, every event hashed (type, last event ID, data), the count
//      and hash sent to the parent; the floor hashes the raw bytes and counts the blank lines;
//   2. one untimed warm-up run, then `runs` timed runs of the same stream: wall time and
//      process.cpuUsage() from just before the request is made (the constructor call) to the last
//      event, the count and the total data length checked again.
// Each run is one connection, closed at its last event.
//
// argv[2]: JSON { client, transport?, url, n, bytes, runs } (transport: http, https or h2, see ./clients.mjs)

import { createHash } from 'node:crypto'
import { loadClient } from './clients.mjs'
import { EventHash } from './workloads.mjs'

const { client, transport = 'http', url, n, bytes: totalBytes, runs } = JSON.parse(process.argv[2])
const TIMEOUT = 120_000
const LF = 0x0a

const impl = await loadClient(client, { transport, sources: runs + 4 })

function measure (start) {
  return {
    ns: Number(process.hrtime.bigint() - start.t),
    cpu: process.cpuUsage(start.cpu)
  }
}

function begin () {
  return { t: process.hrtime.bigint(), cpu: process.cpuUsage() }
}

// An EventSource run: resolves at the n-th message, or with an error when the stream ends or fails
// first (a client that drops events must not wait for a timeout).
function runEventSource (verify) {
  const { EventSource, init } = impl
  return new Promise((resolve) => {
    let count = 0
    let chars = 0
    let done = false
    const hash = verify ? new EventHash() : null
    // The batch client takes each chunk's messages in one call, and touches each as a listener would.
    const onBatch = !impl.batch
      ? undefined
      : verify
        ? (messages) => {
            for (const message of messages) hash.add(message.type, message.lastEventId, message.data)
            if ((count += messages.length) >= n) finish()
          }
        : (messages) => {
            for (const message of messages) chars += message.data.length
            if ((count += messages.length) >= n) finish()
          }
    const start = begin()
    const es = new EventSource(url, onBatch === undefined ? init : { ...init, onBatch })
    const timer = setTimeout(() => finish(`timed out after ${TIMEOUT} ms`), TIMEOUT)
    function finish (error) {
      if (done) return
      done = true
      const m = measure(start)
      es.close()
      clearTimeout(timer)
      resolve({ error: error ?? null, count, chars, hash: hash?.digest() ?? null, ...m })
    }
    if (onBatch === undefined) {
      es.onmessage = verify
        ? (event) => {
            hash.add(event.type, event.lastEventId, event.data)
            if (++count === n) finish()
          }
        : (event) => {
            chars += event.data.length
            if (++count === n) finish()
          }
    }
    es.onerror = () => {
      if (count < n) finish(`error event after ${count} of ${n} events (readyState ${es.readyState})`)
    }
  })
}

// The floor: a GET whose body bytes are counted and dropped. Verification also hashes them and
// counts events (LF LF pairs: the server's streams end every line with LF).
function runFloor (verify) {
  return new Promise((resolve) => {
    let bytes = 0
    let count = 0
    let previous = 0
    let done = false
    const hash = verify ? createHash('sha256') : null
    const start = begin()
    const timer = setTimeout(() => finish(`timed out after ${TIMEOUT} ms`), TIMEOUT)
    const req = impl.get(url, (res) => {
      if (res.statusCode !== 200) finish(`status ${res.statusCode}`)
      res.on('data', verify
        ? (chunk) => {
            hash.update(chunk)
            for (let i = 0; i < chunk.length; i++) {
              const byte = chunk[i]
              if (byte === LF && previous === LF) count++
              previous = byte
            }
            bytes += chunk.length
            if (bytes >= totalBytes) finish()
          }
        : (chunk) => {
            bytes += chunk.length
            if (bytes >= totalBytes) finish()
          })
      res.on('end', () => finish(bytes < totalBytes ? `body ended after ${bytes} of ${totalBytes} bytes` : undefined))
    })
    req.on('error', (err) => finish(err.message))
    function finish (error) {
      if (done) return
      done = true
      const m = measure(start)
      req.destroy()
      clearTimeout(timer)
      resolve({ error: error ?? null, count: verify ? count : n, bytes, hash: hash?.digest('hex') ?? null, ...m })
    }
  })
}

const run = client === 'floor' ? runFloor : runEventSource
const cold = await run(false)
const verification = await run(true)
const timed = []
if (verification.error === null) {
  // One untimed run of the timed form first: its handler is not the verification run's, and the first
  // run of it was measurably slower (JIT warm-up).
  const warmup = await run(false)
  if (warmup.error !== null) timed.push(warmup)
  for (let i = 0; i < runs && warmup.error === null; i++) {
    const result = await run(false)
    timed.push(result)
    if (result.error !== null) break
  }
}
process.send({ cold, verification, timed }, () => process.exit(0))
