'use strict'

// "Nothing lost": a server that keeps an event log and resumes from Last-Event-ID, and cuts every
// connection after a random number of bytes (seeded PRNG) until it has cut `disconnects` of them;
// then it sends the rest of the log. The EventSource must receive every event of the log exactly once,
// in order, with the right type, data and lastEventId.
//
// Each connection carries the next `window` events of the log, serialized afresh with random line
// ends (LF, CRLF, CR), comments, `retry:` lines, a BOM now and then, multi-line data and 2-, 3- and
// 4-byte characters, so cuts land inside field names, values, UTF-8 sequences, CRLF pairs, blank
// lines and the BOM. How a connection is cut is random too:
//   destroy  the socket is destroyed after the bytes were flushed (FIN in the middle of a chunked
//            body: a network error)
//   reset    the same with a TCP RST (ECONNRESET; bytes still in flight may be lost, which is fine)
//   end      the response ends cleanly after the bytes (end of body; the socket may be reused)
//   early    the socket is destroyed before any response (a network error before `open`)
// Used by test/reliability/reliability-nothing-lost.test.cjs (short) and test/soak/nothing-lost.cjs (1,000 cuts).

const http = require('node:http')
const { EventSource } = require('../..')
const { listen, sse, SSE_HEADERS } = require('./server.cjs')
const { prng } = require('./prng.cjs')
const { bounded, deferred } = require('./wait.cjs')

const BOM = Buffer.from([0xef, 0xbb, 0xbf])
const TEXTS = ['plain', 'héllo', '€uro', '𝄞 clef', '😀', 'a:b: c', '', ' leading space', 'x'.repeat(40), 'ünïcödé 中文']
const KILLS = ['destroy', 'destroy', 'reset', 'end', 'early']

/**
 * The event log: ids `<n>-é` (non-ASCII, so Last-Event-ID is sent as UTF-8 every time), types
 * `message` or `tick`, data of one to three lines (some empty).
 */
function buildLog (count, rng) {
  const log = []
  for (let i = 0; i < count; i++) {
    const lines = []
    for (let n = 1 + rng.int(3); n > 0; n--) lines.push(rng.pick(TEXTS))
    log.push({ id: `${i + 1}-é`, type: rng.chance(0.3) ? 'tick' : 'message', data: lines.join('\n') })
  }
  return log
}

/** Serializes one event with random, valid framing choices. */
function serialize (event, rng) {
  const lines = []
  if (rng.chance(0.15)) lines.push(`: comment ${rng.int(1000)}`)
  if (rng.chance(0.1)) lines.push(`retry: ${rng.int(2)}`)
  if (event.type !== 'message' || rng.chance(0.1)) lines.push(`event: ${event.type}`)
  const idFirst = rng.chance(0.5)
  if (idFirst) lines.push(`id: ${event.id}`)
  for (const value of event.data.split('\n')) {
    // One space after the colon is dropped by the parser, so a value starting with a space needs one more.
    if (value === '' && rng.chance(0.5)) lines.push('data')
    else if (value.startsWith(' ') || rng.chance(0.7)) lines.push(`data: ${value}`)
    else lines.push(`data:${value}`)
  }
  if (!idFirst) lines.push(`id: ${event.id}`)
  lines.push('')
  let out = ''
  let previous = ''
  for (const line of lines) {
    let end = rng.pick(['\n', '\r\n', '\r'])
    // A CR followed by an LF is one line end: after a CR, an empty line must not end with a lone LF,
    // or it would merge with the CR and the blank line would disappear.
    if (previous === '\r' && end === '\n') end = '\r\n'
    out += line + end
    previous = end
  }
  return Buffer.from(out)
}

/**
 * Runs the scenario and resolves with what happened. Rejects when it does not finish within `timeout`.
 * @param {object} options
 * @param {number} options.disconnects how many connections to cut
 * @param {number} options.seed
 * @param {number} [options.window] events per cut connection
 * @param {number} [options.timeout] ms
 * @param {import('tap').Test | null} [options.t] for teardown; null: closed before resolving
 */
async function runResume ({ disconnects, seed, window = 10, timeout = 60_000, t = null }) {
  const rng = prng(seed)
  // More events than the cut connections can ever deliver, so the final connection has work to do.
  const log = buildLog(disconnects * window + 50, rng)
  const indexOf = new Map(log.map((event, i) => [event.id, i]))
  const stats = {
    seed,
    events: log.length,
    disconnects: 0,
    kills: { destroy: 0, reset: 0, end: 0, early: 0 },
    cutsInsideAnEvent: 0,
    bytesSent: 0,
    requests: 0,
    connections: 0,
    received: 0,
    errors: 0,
    duplicates: 0,
    mismatches: [],
    headerMismatches: [],
    badHeaders: 0,
    elapsedMs: 0
  }
  const lastEventIdHeaders = []

  const server = http.createServer((req, res) => {
    stats.requests++
    const header = req.headers['last-event-id']
    // Node hands header values over as latin1: turn them back into the UTF-8 bytes that were sent.
    const lastId = header === undefined ? '' : Buffer.from(header, 'latin1').toString('utf8')
    lastEventIdHeaders.push(lastId)
    let start = 0
    if (lastId !== '') {
      const index = indexOf.get(lastId)
      if (index === undefined) {
        stats.badHeaders++
        res.writeHead(400).end()
        return
      }
      start = index + 1
    }
    if (stats.disconnects >= disconnects) {
      // The budget is spent: the rest of the log, and the connection stays open.
      const parts = []
      for (let i = start; i < log.length; i++) parts.push(serialize(log[i], rng))
      const body = Buffer.concat(parts)
      stats.bytesSent += body.length
      sse(res, body, { end: false })
      return
    }
    stats.disconnects++
    const kill = rng.pick(KILLS)
    stats.kills[kill]++
    if (kill === 'early') {
      req.socket.destroy()
      return
    }
    const parts = rng.chance(0.2) ? [BOM] : []
    const ends = []
    for (let i = start; i < Math.min(start + window, log.length); i++) {
      parts.push(serialize(log[i], rng))
      ends.push(parts.reduce((n, p) => n + p.length, 0))
    }
    const body = Buffer.concat(parts)
    const cut = rng.int(body.length + 1)
    if (!ends.includes(cut) && cut < body.length) stats.cutsInsideAnEvent++
    stats.bytesSent += cut
    res.writeHead(200, SSE_HEADERS)
    const after = () => {
      if (kill === 'end') res.end()
      else if (kill === 'reset') req.socket.resetAndDestroy()
      else req.socket.destroy()
    }
    if (cut === 0) {
      res.flushHeaders()
      // Let the head reach the client first, so the connection is announced before it is cut.
      res.socket.write('', after)
    } else {
      res.write(body.subarray(0, cut), after)
    }
  })
  const srv = await listen(t, server)

  const started = performance.now()
  const done = deferred()
  const es = new EventSource(`http://127.0.0.1:${srv.port}/log`, { reconnectionTime: 0 })
  let next = 0
  let lastSeen = ''
  const onMessage = (event) => {
    stats.received++
    const index = indexOf.get(event.lastEventId)
    if (index !== undefined && index < next) stats.duplicates++
    const expected = log[next]
    if (expected === undefined || event.type !== expected.type || event.data !== expected.data ||
        event.lastEventId !== expected.id) {
      if (stats.mismatches.length < 10) {
        stats.mismatches.push({ at: next, expected, got: { type: event.type, data: event.data, lastEventId: event.lastEventId } })
      }
    }
    next = index === undefined ? next + 1 : index + 1
    lastSeen = event.lastEventId
    if (next === log.length) done.resolve()
  }
  es.addEventListener('message', onMessage)
  es.addEventListener('tick', onMessage)
  const lastIdAtError = []
  es.addEventListener('error', () => {
    stats.errors++
    lastIdAtError.push(lastSeen)
    if (es.readyState !== EventSource.CONNECTING) done.reject(new Error(`failed for good after ${stats.disconnects} cuts`))
  })

  try {
    await bounded(done.promise, () => `all ${log.length} events (received ${stats.received}, cuts ${stats.disconnects})`, timeout)
  } finally {
    stats.elapsedMs = Math.round(performance.now() - started)
    stats.readyState = es.readyState
    es.close()
    stats.connections = srv.connections
    if (t === null) await srv.close()
  }
  // The request after the n-th error must resume from the last event the client had then.
  for (let i = 0; i < lastIdAtError.length; i++) {
    if (lastEventIdHeaders[i + 1] !== lastIdAtError[i] && stats.headerMismatches.length < 10) {
      stats.headerMismatches.push({ request: i + 1, sent: lastEventIdHeaders[i + 1], expected: lastIdAtError[i] })
    }
  }
  stats.firstRequestHeader = lastEventIdHeaders[0]
  return stats
}

module.exports = { runResume, buildLog, serialize }
