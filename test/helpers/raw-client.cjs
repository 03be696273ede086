'use strict'

// Raw HTTP/1.x clients over node:net, for what an HTTP client hides or will not do: the exact bytes of a
// response and its framing (each chunk of a chunked body, as the server wrote it), a client that never
// reads, one that sends its request and then neither reads nor closes. Every wait is bounded and ends on
// bytes arriving or the socket closing.

const net = require('node:net')
const { once } = require('node:events')
const { bounded, TIMEOUT } = require('./wait.cjs')

const CRLF = Buffer.from('\r\n')

/**
 * Sends `GET path` on a new connection to 127.0.0.1:port and collects the response as it arrives: the
 * head, and the body as the chunks of its chunked framing (or as it came, when it is not chunked).
 * @param {import('tap').Test} t the socket is destroyed at its teardown
 * @param {number} port
 * @param {{ path?: string, headers?: Record<string, string>, version?: '1.1' | '1.0', read?: boolean }} [options]
 *   `headers` more request headers (Host is sent); `read: false` pauses the socket before anything arrives,
 *   so the client never reads (the server's writes pile up in the kernel's buffers, then in its own)
 */
async function rawGet (t, port, { path = '/', headers = {}, version = '1.1', read = true } = {}) {
  const socket = net.connect(port, '127.0.0.1')
  socket.on('error', () => {})
  if (!read) socket.pause()
  t?.teardown(() => socket.destroy())
  const lines = [`GET ${path} HTTP/${version}`, 'Host: 127.0.0.1', ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)]
  socket.write(`${lines.join('\r\n')}\r\n\r\n`, 'latin1')
  const response = new RawResponse(socket)
  await bounded(once(socket, 'connect'), 'the raw client to connect')
  return response
}

class RawResponse {
  /** { status, version, lines: [name, value][] } once the head has arrived. */
  head = null
  /** The body's chunks, one per chunk of the chunked framing (or per 'data' event when not chunked). */
  chunks = []
  /** The terminating chunk (size 0) has arrived. */
  ended = false
  /** How many bytes have arrived, head and framing included. */
  received = 0
  #raw = []
  #pending = Buffer.alloc(0)
  #chunked = false
  #waiting = []
  #closed

  constructor (socket) {
    this.socket = socket
    this.#closed = once(socket, 'close')
    socket.on('data', (data) => {
      this.#raw.push(data)
      this.received += data.length
      this.#pending = Buffer.concat([this.#pending, data])
      this.#parse()
      this.#check()
    })
    socket.once('close', () => this.#check())
  }

  /** Header values by lower-case name, in order. */
  header (name) {
    return this.head.lines.filter(([key]) => key.toLowerCase() === name).map(([, value]) => value)
  }

  /** Every byte received, head and framing included. */
  get raw () {
    return Buffer.concat(this.#raw)
  }

  /** The body so far, as one Buffer. */
  get body () {
    return Buffer.concat(this.chunks)
  }

  /** The body so far, as UTF-8 text. */
  get text () {
    return this.body.toString('utf8')
  }

  /** Resolves with this response once `predicate(this)` holds: asked now and after each read and the close. */
  until (predicate, what = 'a condition on the raw response', ms = TIMEOUT) {
    if (predicate(this)) return Promise.resolve(this)
    const found = new Promise((resolve) => this.#waiting.push({ predicate, resolve }))
    return bounded(found, () => `${what}; received ${JSON.stringify(this.raw.toString('latin1').slice(-300))}`, ms)
  }

  /** Resolves once the socket has closed (bounded). */
  closed (ms = TIMEOUT) {
    return bounded(this.#closed, 'the raw client\'s socket to close', ms)
  }

  #check () {
    this.#waiting = this.#waiting.filter((waiter) => {
      if (!waiter.predicate(this)) return true
      waiter.resolve(this)
      return false
    })
  }

  #parse () {
    if (this.head === null) {
      const end = this.#pending.indexOf('\r\n\r\n')
      if (end === -1) return
      const [status, ...fields] = this.#pending.subarray(0, end).toString('latin1').split('\r\n')
      const [version, code] = status.split(' ')
      const lines = fields.map((line) => {
        const colon = line.indexOf(':')
        return [line.slice(0, colon), line.slice(colon + 1).trim()]
      })
      this.head = { status: Number(code), version, lines }
      this.#chunked = this.header('transfer-encoding').includes('chunked')
      this.#pending = this.#pending.subarray(end + 4)
    }
    if (!this.#chunked) {
      if (this.#pending.length > 0) this.chunks.push(this.#pending)
      this.#pending = Buffer.alloc(0)
      return
    }
    for (;;) {
      const eol = this.#pending.indexOf(CRLF)
      if (eol === -1) return
      const size = parseInt(this.#pending.subarray(0, eol).toString('latin1'), 16)
      if (this.#pending.length < eol + 2 + size + 2) return
      if (size === 0) {
        this.ended = true
      } else {
        this.chunks.push(this.#pending.subarray(eol + 2, eol + 2 + size))
      }
      this.#pending = this.#pending.subarray(eol + 2 + size + 2)
    }
  }
}

module.exports = { rawGet, RawResponse }
