'use strict'

// A small SSE server for the demo: a numbered "tick" every 200 ms, each with an id; it drops the
// connection after every third event, and resumes after the id the client sends in Last-Event-ID.
// Events are written by an EventStreamWriter (whatwg-eventsource/server, docs/server.md), which
// encodes them and sends the head, heartbeats and the end.

const http = require('node:http')
const { EventStreamWriter } = require('../lib/entries/server.js')

/**
 * @param {{ total?: number, interval?: number, dropEvery?: number }} [options]
 * @returns {Promise<{ url: string, close(): Promise<void>, server: http.Server }>}
 */
async function startDemoServer ({ total = 7, interval = 200, dropEvery = 3 } = {}) {
  const server = http.createServer((req, res) => {
    const writer = new EventStreamWriter(res)
    // The id of the last event the client had, or '' on its first connection.
    const resumeFrom = Number(writer.lastEventId || 0)
    // A short reconnection time, so the demo does not wait the default 3 s.
    writer.send({ comment: `resuming after ${resumeFrom}`, retry: 500 })
    let next = resumeFrom + 1
    const timer = setInterval(() => {
      if (next > total) {
        writer.send({ event: 'done', data: 'that was all' })
        clearInterval(timer)
        return
      }
      writer.send({ id: `${next}`, event: 'tick', data: `tick ${next} of ${total}` })
      // close() writes what was sent, then ends the response.
      if (next % dropEvery === 0) writer.close()
      next++
    }, interval)
    // Closed whoever closed it: the client, close() above, or the server.
    writer.closed.then(() => clearInterval(timer))
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    server,
    url: `http://127.0.0.1:${server.address().port}/events`,
    close () {
      server.closeAllConnections()
      return new Promise((resolve) => server.close(() => resolve()))
    }
  }
}

module.exports = { startDemoServer }
