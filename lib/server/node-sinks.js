// Where an EventStreamWriter (./writer.js) writes on Node, Bun and Deno: a node:http response or a node:http2
// compatibility response (anything with writeHead(), write() and 'drain', such as the `raw` of Express and
// Fastify), a node:http2 stream (respond()), and either through gzip. Each sink is one object for every writer:
// its listeners find their writer on the response (kWriter), so that an idle client costs one property, not a
// closure per listener.

import { codes as argumentCodes } from '../errors/arguments.js'

const { ERR_INVALID_ARG_VALUE } = argumentCodes
const zlib = process.getBuiltinModule('node:zlib')

const kWriter = Symbol('kWriter')
// The socket whose 'drain' a writer waits for, when its response's socket said to wait (see writeResponse()).
const kDrainSocket = Symbol('kDrainSocket')
const CRLF = '\r\n'
// RST_STREAM's code for a stream cut (RFC 9113 7): destroy() alone resets with NO_ERROR, which says the response
// was whole.
const NGHTTP2_CANCEL = 0x8

/**
 * @param {{ drained: (writer: object) => void, ended: (writer: object, why: string) => void }} hooks the writer
 *   class's (./writer.js)
 * @returns {(target: unknown, compress: boolean) => object | null} the sink of a target, or null for one that is
 *   not a Node response or stream
 */
function createNodeSinkFor (hooks) {
  function onClose () {
    hooks.ended(this[kWriter], 'the client left')
  }

  function onDrain () {
    hooks.drained(this[kWriter])
  }

  // Before the head is written: a response that has sent one has another writer, or none of ours.
  function checkUnused (emitter) {
    if (emitter.headersSent) {
      throw new ERR_INVALID_ARG_VALUE('target', emitter.constructor?.name,
        'has sent its head already: one writer per response')
    }
  }

  function watch (emitter, writer) {
    emitter[kWriter] = writer
    emitter.once('close', onClose)
  }

  // node:http writes each write() of a chunked response as its own chunk, through the response's machinery: the
  // size line, the bytes and CRLF, corked until the next tick. A channel writes the same buffer to each of its
  // subscribers, one after the other, and that machinery is then most of what a subscriber costs. So a buffer
  // written to a second response is framed once as a chunk, and the chunk written to each socket in one write.
  // Only while node:http holds nothing of the response's own (its head on the socket, nothing queued), so that
  // the bytes keep their order; anything else goes through write(): HTTP/2, an HTTP/1.0 body (not chunked), a
  // response not yet on its socket (pipelined), a writer's own bytes (written once). Bun and Deno implement
  // node:http differently: their responses go through write().
  let lastBytes = null
  let lastChunk = null
  const framesChunks = typeof process.versions.bun !== 'string' && typeof process.versions.deno !== 'string'

  function writeResponse (res, bytes) {
    if (bytes !== lastBytes) {
      lastBytes = bytes
      lastChunk = null
      return res.write(bytes)
    }
    const socket = res.socket
    // (An empty chunk would end the body.)
    if (!framesChunks || bytes.length === 0 || res.chunkedEncoding !== true || socket == null ||
      res.writableLength !== socket.writableLength) {
      return res.write(bytes)
    }
    lastChunk ??= chunkOf(bytes)
    return socket.write(lastChunk)
  }

  // node:http's ServerResponse and node:http2's Http2ServerResponse.
  const response = {
    lastEventId: (res) => lastEventIdOf(res.req?.headers),
    open (res, writer, headers) {
      // Watched once Node has taken the head: writeHead() throws for a header it refuses (a CR or LF in a
      // value of options.headers), and a writer that was never made must not be ended by the response's close.
      checkUnused(res)
      res.writeHead(200, headers)
      watch(res, writer)
      // The head now, not with the first event: a client's `open` must not wait for the first event.
      res.flushHeaders()
      return res
    },
    gone: (res) => res.destroyed,
    write: writeResponse,
    waitForDrain (res) {
      // node:http says 'drain' only after a write() of its own said false (writableNeedDrain); a false from the
      // socket, written to by writeResponse(), is the socket's to end. (Node 26 keeps a tick's chunks in the
      // response: its write() may say false while the socket needs no drain.)
      const socket = res.socket
      if (res.chunkedEncoding === true && !res.writableNeedDrain && socket != null) {
        socket[kWriter] = res[kWriter]
        res[kDrainSocket] = socket
        socket.once('drain', onDrain)
      } else {
        res.once('drain', onDrain)
      }
    },
    // how: 'end', 'cut' (destroyed: what the client has not read is dropped with its connection) or 'gone'
    // (./writer.js).
    close (res, how) {
      res.off('drain', onDrain)
      // (Not res.socket: an HTTP/2 response's throws once its session is gone.)
      res[kDrainSocket]?.off('drain', onDrain)
      if (how === 'end') res.end()
      else if (how === 'cut' && res.stream !== undefined) res.stream.close(NGHTTP2_CANCEL)
      else if (how === 'cut') res.destroy()
    },
    readable: notWeb,
    response: notWeb
  }

  // A node:http2 stream of the core API (server.on('stream')): the request's headers are not on it, so its
  // Last-Event-ID comes from options.lastEventId.
  const stream = {
    lastEventId: () => undefined,
    open (h2stream, writer, headers) {
      // As a response's: watched once respond() has taken the head.
      checkUnused(h2stream)
      h2stream.respond({ ':status': 200, ...headers })
      watch(h2stream, writer)
      return h2stream
    },
    gone: (h2stream) => h2stream.destroyed,
    write: (h2stream, bytes) => h2stream.write(bytes),
    waitForDrain (h2stream) {
      h2stream.once('drain', onDrain)
    },
    close (h2stream, how) {
      h2stream.off('drain', onDrain)
      if (how === 'end') h2stream.end()
      else if (how === 'cut') h2stream.close(NGHTTP2_CANCEL)
    },
    readable: notWeb,
    response: notWeb
  }

  // A response through gzip, flushed after each write so that every event reaches the client at once. The
  // target is { output, gzip }: the writer writes to gzip, which pipes into the response.
  function gzipped (sink) {
    return {
      lastEventId: sink.lastEventId,
      open (output, writer, headers) {
        sink.open(output, writer, { ...headers, 'content-encoding': 'gzip', vary: 'accept-encoding' })
        if (sink.gone(output)) return { output, gzip: null }
        const gzip = zlib.createGzip({ flush: zlib.constants.Z_SYNC_FLUSH })
        gzip[kWriter] = writer
        gzip.pipe(output)
        return { output, gzip }
      },
      gone: (target) => sink.gone(target.output),
      write: (target, bytes) => target.gzip.write(bytes),
      waitForDrain (target) {
        target.gzip.once('drain', onDrain)
      },
      close (target, how) {
        if (target.gzip === null) return
        target.gzip.off('drain', onDrain)
        // end() writes gzip's trailer and ends the response through pipe(); a response that has ended already
        // (or is cut) has nothing to take it.
        if (how === 'end') {
          target.gzip.end()
        } else {
          target.gzip.destroy()
          if (how === 'cut') sink.close(target.output, how)
        }
      },
      readable: notWeb,
      response: notWeb
    }
  }
  const gzippedResponse = gzipped(response)

  return function nodeSinkFor (target, compress) {
    if (target === null || typeof target !== 'object') return null
    if (typeof target.respond === 'function' && typeof target.pushStream === 'function') {
      // Its request's Accept-Encoding is not on it either: options.compress does not apply (docs/server.md).
      return stream
    }
    if (typeof target.writeHead === 'function' && typeof target.write === 'function') {
      return compress && acceptsGzip(target.req?.headers) ? gzippedResponse : response
    }
    return null
  }
}

// `bytes` as one chunk of a chunked body (RFC 9112 7.1): its size in hexadecimal, CRLF, the bytes, CRLF.
function chunkOf (bytes) {
  const size = bytes.length.toString(16)
  const chunk = Buffer.allocUnsafe(size.length + bytes.length + 4)
  chunk.latin1Write(size + CRLF, 0)
  chunk.set(bytes, size.length + 2)
  chunk.latin1Write(CRLF, size.length + 2 + bytes.length)
  return chunk
}

function lastEventIdOf (headers) {
  const value = headers?.['last-event-id']
  return typeof value === 'string' ? value : undefined
}

// Whether the request accepts gzip (RFC 9110 12.5.3): listed, and not with q=0.
function acceptsGzip (headers) {
  const accepted = headers?.['accept-encoding']
  if (typeof accepted !== 'string') return false
  for (const item of accepted.split(',')) {
    const [name, ...parameters] = item.toLowerCase().split(';')
    // OWS is allowed on either side of the ';' (weight = OWS ";" OWS "q=" qvalue): 'gzip ; q=1' is gzip.
    const coding = name.trim()
    if (coding !== 'gzip' && coding !== 'x-gzip') continue
    const q = parameters.map((p) => p.trim()).find((p) => p.startsWith('q='))
    return q === undefined || Number(q.slice(2)) > 0
  }
  return false
}

function notWeb () {
  throw new TypeError('readable and response() are for a writer made for a WHATWG Request: ' +
    'this one writes to a Node response')
}

export { createNodeSinkFor, acceptsGzip }
