'use strict'

// `node examples/offset-resume.js`: reading an append-only log whose position travels in the URL's
// query, as Durable Streams and Electric do (a URL with the position in it can be cached by a CDN;
// a header cannot), rather than in Last-Event-ID. Each event's ID is the offset after it, so the
// source's last event ID is always where to go on from; the request function puts it in the URL of
// every attempt. test/docs/example-resume.test.cjs runs it with 200 cuts and checks that nothing is lost or
// repeated.

const http = require('node:http')
const { EventSource } = require('..')
const { EventStreamWriter } = require('../lib/entries/server.js')
const { Cutter, listenLocally } = require('./cutting-server')

/**
 * Reads the log from its start until `count` entries have come.
 * @param {string} streamUrl the log's URL, without an offset
 * @param {number} count
 * @param {(entry: string, offset: string) => void} onEntry
 * @returns {Promise<void>}
 */
function readLog (streamUrl, count, onEntry) {
  return new Promise((resolve, reject) => {
    let read = 0
    const source = new EventSource(streamUrl, {
      // Relative to streamUrl: the same path with the offset as its query.
      request: ({ lastEventId }) => ({ url: `?offset=${encodeURIComponent(lastEventId || '0')}` }),
      reconnect: { maxRetries: 10 }
    })
    source.onmessage = (event) => {
      onEntry(event.data, event.lastEventId)
      if (++read === count) {
        source.close()
        resolve()
      }
    }
    source.onerror = (event) => {
      if (source.readyState === EventSource.CLOSED) reject(new Error(`The stream failed: ${event.message}`, { cause: event.cause }))
    }
  })
}

/**
 * A local log of `count` entries, served from the offset in the query (Last-Event-ID is ignored), on
 * streams it cuts `cuts` times.
 * @param {{ count: number, cuts: number, seed?: number, retry?: number }} options
 */
async function startLogServer ({ count, cuts, seed, retry = 250 }) {
  const cutter = new Cutter({ cuts, seed })
  const log = Array.from({ length: count }, (_, i) => `entry ${i + 1}${i % 3 === 0 ? '\nsecond line' : ''}`)
  // Offsets are opaque to the client: here the position, zero-padded.
  const offset = (position) => String(position).padStart(8, '0')
  const events = log.map((entry, i) => ({ id: offset(i + 1), data: entry }))
  const offsets = []
  const server = http.createServer((req, res) => {
    const from = Number(new URL(req.url, 'http://localhost').searchParams.get('offset'))
    offsets.push(from)
    cutter.send(res, new EventStreamWriter(res, { retry }), events.slice(from))
  })
  const { origin, close } = await listenLocally(server)
  return { url: `${origin}/log`, log, offsets, cutter, close }
}

/**
 * Reads the whole log from a local server.
 * @param {{ count?: number, cuts?: number, seed?: number, retry?: number, log?: (line: string) => void }} [options]
 */
async function run ({ count = 20, cuts = 5, seed = 1, retry = 250, log = () => {} } = {}) {
  const server = await startLogServer({ count, cuts, seed, retry })
  try {
    const entries = []
    await readLog(server.url, count, (entry, offset) => {
      entries.push(entry)
      log(`${offset}: ${JSON.stringify(entry)}`)
    })
    return { entries, expected: server.log, offsets: server.offsets, cutsLeft: server.cutter.left }
  } finally {
    await server.close()
  }
}

module.exports = { readLog, startLogServer, run }

if (require.main === module) {
  run({ log: console.log }).then(({ offsets }) => console.log(`requested from offsets ${offsets.join(', ')}`))
}
