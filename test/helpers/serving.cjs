'use strict'

// Servers made with whatwg-eventsource/server (lib/server/): a serve() server whose handler makes an
// EventStreamWriter (or subscribes to a Channel) for each request, and lets the test reach each one; a Channel
// with such a server.

const { serve } = require('./server.cjs')

/**
 * serve() with a handler that makes what `make(req, res, index)` returns (a writer) for each request;
 * `writers` in arrival order, `writer(index)` resolves with the index-th (0-based) once its request has
 * arrived (bounded). A `make` that throws answers 500 with the error's code as the body, and the error
 * is kept in `errors[index]` (a head sent before the throw: the connection is destroyed instead).
 * @param {import('tap').Test} t
 * @param {(req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse, index: number) => any} make
 * @param {object} [serveOptions] serve()'s options (tls, http2)
 */
async function writerServer (t, make, serveOptions) {
  const writers = []
  const errors = []
  const srv = await serve(t, (req, res, index) => {
    try {
      writers[index] = make(req, res, index)
    } catch (err) {
      errors[index] = err
      // A writer that threw after sending its head has broken its promise: the client sees the 200 cut off.
      if (res.headersSent) res.destroy()
      else res.writeHead(500, { 'content-type': 'text/plain' }).end(String(err.code))
    }
  }, serveOptions)
  return Object.assign(srv, {
    writers,
    errors,
    writer: (index) => srv.request(index).then(() => writers[index])
  })
}

/**
 * A Channel (closed at teardown) and a writerServer() whose every request subscribes to it: `subscribe(channel,
 * req, res, index)` when given (it returns the writer), else channel.subscribe(res). The responses are kept, in
 * arrival order, to see what Node holds for each subscriber (`writableLength`).
 * @param {import('tap').Test} t
 * @param {object} [options] the Channel's, over { heartbeat: 0 } (the bytes on the wire are the test's own)
 * @param {Function} [subscribe]
 */
async function channelServer (t, options, subscribe) {
  // Required here: the helpers load in every test, the serving entry only in those that serve.
  const { Channel } = require('../../lib/entries/server.js')
  const channel = new Channel({ heartbeat: 0, ...options })
  t.teardown(() => channel.close())
  const responses = []
  const srv = await writerServer(t, (req, res, index) => {
    responses.push(res)
    return subscribe === undefined ? channel.subscribe(res) : subscribe(channel, req, res, index)
  })
  return { channel, srv, responses }
}

module.exports = { writerServer, channelServer }
