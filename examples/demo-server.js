'use strict'

// A small SSE server for the demo: a numbered "tick" every 200 ms, each with an id; it drops the
// connection after every third event, and resumes after the id the client sends in Last-Event-ID.

const http = require('node:http')

/**
 * @param {{ total?: number, interval?: number, dropEvery?: number }} [options]
 * @returns {Promise<{ url: string, close(): Promise<void>, server: http.Server }>}
 */
async function startDemoServer ({ total = 7, interval = 200, dropEvery = 3 } = {}) {
  const server = http.createServer((req, res) => {
    const resumeFrom = Number(req.headers['last-event-id'] ?? 0)
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
    // A short reconnection time, so the demo does not wait the default 3 s.
    res.write(`: resuming after ${resumeFrom}\nretry: 500\n\n`)
    let next = resumeFrom + 1
    const timer = setInterval(() => {
      if (next > total) {
        res.write('event: done\ndata: that was all\n\n')
        clearInterval(timer)
        return
      }
      res.write(`id: ${next}\nevent: tick\ndata: tick ${next} of ${total}\n\n`)
      if (next % dropEvery === 0) {
        clearInterval(timer)
        // end(), not destroy(): destroy() could drop the event just written before it is flushed.
        res.end()
      }
      next++
    }, interval)
    res.on('close', () => clearInterval(timer))
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
