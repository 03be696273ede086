'use strict'

// A producer that sends in a loop without awaiting anything never lets its tick end, so the writer cannot wait
// for the end of the tick to write: past its pending high-water mark (64 KiB) it writes at once, so that
// send() says false once the client has not read, and maxBufferedBytes bounds what such a loop keeps sending.

const t = require('tap')
const { writerServer } = require('../helpers/serving.cjs')
const { rawGet } = require('../helpers/raw-client.cjs')
const { EventStreamWriter } = require('../../lib/entries/server.js')

const EVENT = { data: 'x'.repeat(100) } // 108 bytes encoded

t.test('send() in a synchronous loop says false once a client that does not read is full', async (t) => {
  const server = await writerServer(t, (req, res) => new EventStreamWriter(res, { heartbeat: 0 }))
  await rawGet(t, server.port, { read: false })
  const writer = await server.writer(0)
  let sent = 0
  while (writer.send(EVENT) && sent < 1_000_000) sent++
  t.ok(sent < 10_000, `false after ${sent} events (${sent * 108} bytes), without the tick ever ending`)
  t.notOk(writer.signal.aborted, 'still open: within maxBufferedBytes')
})

t.test('a loop that goes on anyway is cut at maxBufferedBytes, inside the loop', async (t) => {
  const server = await writerServer(t, (req, res) => new EventStreamWriter(res, { heartbeat: 0, maxBufferedBytes: 256 * 1024 }))
  await rawGet(t, server.port, { read: false })
  const writer = await server.writer(0)
  let sent = 0
  while (!writer.signal.aborted && sent < 1_000_000) {
    writer.send(EVENT)
    sent++
  }
  t.equal(writer.signal.reason?.code, 'ERR_EVENTSOURCE_CLIENT_TOO_SLOW')
  t.ok(sent * 108 < 2 * 1024 * 1024, `cut after ${sent} events: the bound held while the loop ran`)
  t.equal(writer.send(EVENT), false, 'and send() says false from then on')
})
