// The client process of the serving benchmarks: forked by ./sample.mjs, it holds raw sockets to the
// server under test and counts the events each one receives. It uses no HTTP client and no SSE library,
// so it costs every server the same: per socket it reads the response head, takes the body out of
// chunked framing, and counts the blocks that end in a blank line and hold a data line (a heartbeat
// comment or better-sse's retry block is no event). Requests carry a `seq`, echoed in the reply.
//
//   connect { port, count, group }  opens `count` more sockets, at most 256 connecting at a time, each
//                                   sending GET /sse with Accept: text/event-stream; replies once all
//                                   are connected and have sent their request
//   expect { events }               replies { at } once every socket that reads has received at least
//                                   `events` events, `at` being process.hrtime when the last did (the
//                                   server's clock too: it is the system's monotonic clock), or, when
//                                   all had before the request, when the last event arrived
//   pause { every }                 stops reading on every `every`-th socket (socket.pause()): the
//                                   kernel's buffers fill, then the server's
//   close { group }                 destroys the sockets of a group
//   report                          { counts, captures }: each reading socket's count, and the body
//                                   (base64) of the sockets that capture (argv[2] capture: "ends", the
//                                   first and the last of each connect; "all"; or "none")
//
// argv[2]: JSON { capture }

import net from 'node:net'

const { capture = 'ends' } = JSON.parse(process.argv[2] ?? '{}')

const LF = 0x0a
const CR = 0x0d
const D = 0x64
const SEMICOLON = 0x3b
const MAX_CONNECTING = 256

// Body framing states.
const HEAD = 0
const SIZE = 1
const DATA = 2
const DATA_END = 3
const DONE = 4
const IDENTITY = 5

class Subscriber {
  constructor (index, group) {
    this.index = index
    this.group = group
    this.socket = null
    this.paused = false
    this.closed = false
    this.error = null
    this.events = 0
    this.captured = null
    // The head, until its blank line.
    this.head = ''
    this.state = HEAD
    // Chunked framing: the size being read, or the bytes left in the chunk.
    this.size = 0
    this.sizeDone = false
    this.remaining = 0
    // The line being read: its length so far and its first byte; whether the block has a data line.
    this.lineLength = 0
    this.lineFirst = 0
    this.hasData = false
  }

  onData (chunk) {
    const events = this.events
    this.read(chunk)
    if (this.events !== events) lastEventAt = process.hrtime.bigint()
  }

  read (chunk) {
    let pos = 0
    if (this.state === HEAD) {
      pos = this.readHead(chunk)
      if (pos === -1) return
    }
    const end = chunk.length
    while (pos < end) {
      switch (this.state) {
        case IDENTITY:
          this.payload(chunk, pos, end)
          return
        case SIZE: {
          const b = chunk[pos++]
          if (b === LF) {
            if (this.size === 0) {
              this.state = DONE
            } else {
              this.remaining = this.size
              this.state = DATA
            }
            this.size = 0
            this.sizeDone = false
          } else if (!this.sizeDone) {
            const digit = b >= 0x30 && b <= 0x39 ? b - 0x30 : b >= 0x61 && b <= 0x66 ? b - 0x57 : b >= 0x41 && b <= 0x46 ? b - 0x37 : -1
            if (digit !== -1) {
              this.size = this.size * 16 + digit
            } else if (b === CR || b === SEMICOLON) {
              this.sizeDone = true
            } else {
              this.fail(`bad chunk size byte ${b}`)
              return
            }
          }
          break
        }
        case DATA: {
          const stop = Math.min(end, pos + this.remaining)
          this.payload(chunk, pos, stop)
          this.remaining -= stop - pos
          pos = stop
          if (this.remaining === 0) this.state = DATA_END
          break
        }
        case DATA_END:
          if (chunk[pos++] === LF) this.state = SIZE
          break
        default:
          return
      }
    }
  }

  // Reads the head; returns where the body starts in `chunk`, or -1 (more head to come, or failed).
  readHead (chunk) {
    const before = this.head.length
    this.head += chunk.toString('latin1')
    const at = this.head.indexOf('\r\n\r\n')
    if (at === -1) {
      if (this.head.length > 65536) this.fail('no end of head in 64 KiB')
      return -1
    }
    const head = this.head.slice(0, at).toLowerCase()
    this.head = ''
    let wrong = null
    if (!head.startsWith('http/1.1 200 ')) wrong = `status line ${JSON.stringify(head.slice(0, head.indexOf('\r\n')))}`
    else if (!/\r\ncontent-type: *text\/event-stream/.test(head)) wrong = 'no content-type: text/event-stream'
    if (wrong !== null) {
      this.fail(wrong)
      return -1
    }
    this.state = /\r\ntransfer-encoding: *chunked/.test(head) ? SIZE : IDENTITY
    return at + 4 - before
  }

  // Counts the events in body bytes [start, end) of `chunk`.
  payload (chunk, start, end) {
    if (this.captured !== null) this.captured.push(Buffer.from(chunk.subarray(start, end)))
    let pos = start
    while (pos < end) {
      // indexOf has no end: a LF found past `end` belongs to the framing, and means none in the range.
      const lf = chunk.indexOf(LF, pos)
      if (lf === -1 || lf >= end) {
        if (this.lineLength === 0) this.lineFirst = chunk[pos]
        this.lineLength += end - pos
        return
      }
      if (this.lineLength === 0 && lf === pos) {
        // A blank line: the end of a block.
        if (this.hasData) {
          this.hasData = false
          if (++this.events === target) reached(this)
        }
      } else if ((this.lineLength === 0 ? chunk[pos] : this.lineFirst) === D) {
        this.hasData = true
      }
      this.lineLength = 0
      pos = lf + 1
    }
  }

  fail (message) {
    this.state = DONE
    // A socket that does not read may be dropped by the server: what a server may do with it.
    if (this.paused) return
    if (this.error === null) this.error = `socket ${this.index}: ${message}`
    this.socket?.destroy()
    if (waiter !== null) finish()
    return false
  }
}

const subscribers = []
let target = Infinity
let pending = 0
let waiter = null
// When the last event arrived, on any socket (a chunk that held at least one).
let lastEventAt = 0n

function reading (s) {
  return !s.paused && !s.closed
}

function reached (s) {
  if (reading(s) && --pending === 0) finish()
}

// `at`: now when the last socket reaches the target as this runs; when every socket had reached it
// before the request came, the time the last event arrived.
function finish (at = process.hrtime.bigint()) {
  const failed = subscribers.find((s) => s.error !== null && s.group !== 'closed')
  const w = waiter
  waiter = null
  target = Infinity
  if (failed) w.reject(new Error(failed.error))
  else w.resolve({ at: String(at) })
}

function connect ({ port, count, group }) {
  const request = `GET /sse HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAccept: text/event-stream\r\nCache-Control: no-cache\r\n\r\n`
  const first = subscribers.length
  for (let i = 0; i < count; i++) {
    const s = new Subscriber(first + i, group)
    if (capture === 'all' || (capture === 'ends' && (i === 0 || i === count - 1))) s.captured = []
    subscribers.push(s)
  }
  return new Promise((resolve, reject) => {
    let next = first
    let connected = 0
    let connecting = 0
    const open = () => {
      while (connecting < MAX_CONNECTING && next < first + count) {
        const s = subscribers[next++]
        connecting++
        const socket = net.connect({ port, host: '127.0.0.1' })
        s.socket = socket
        socket.on('data', (chunk) => s.onData(chunk))
        socket.on('error', (err) => s.fail(err.message))
        socket.on('close', () => {
          if (!s.closed && s.error === null) s.fail('closed by the server')
        })
        socket.once('connect', () => {
          socket.write(request)
          connecting--
          if (++connected === count) resolve({})
          else open()
        })
      }
    }
    open()
    // A socket that cannot connect at all fails this request rather than hanging it.
    const check = setInterval(() => {
      const failed = subscribers.slice(first).find((s) => s.error !== null)
      if (failed) {
        clearInterval(check)
        reject(new Error(failed.error))
      } else if (connected === count) {
        clearInterval(check)
      }
    }, 100)
  })
}

function expect ({ events }) {
  return new Promise((resolve, reject) => {
    const failed = subscribers.find((s) => s.error !== null && s.group !== 'closed')
    if (failed) return reject(new Error(failed.error))
    waiter = { resolve, reject }
    target = events
    pending = 0
    for (const s of subscribers) if (reading(s) && s.events < events) pending++
    if (pending === 0) finish(lastEventAt)
  })
}

const HANDLERS = {
  connect,
  expect,
  pause ({ every }) {
    let paused = 0
    for (const s of subscribers) {
      if (reading(s) && s.index % every === every - 1) {
        s.paused = true
        s.socket.pause()
        paused++
      }
    }
    return { paused }
  },
  close ({ group }) {
    for (const s of subscribers) {
      if (s.group !== group) continue
      s.closed = true
      s.group = 'closed'
      s.captured = null
      s.socket.destroy()
    }
    return {}
  },
  report () {
    const open = subscribers.filter(reading)
    return {
      counts: open.map((s) => s.events),
      captures: open.filter((s) => s.captured !== null).map((s) => ({ index: s.index, body: Buffer.concat(s.captured).toString('base64') }))
    }
  }
}

process.on('message', async (m) => {
  let reply
  try {
    reply = await HANDLERS[m.type](m)
  } catch (err) {
    reply = { error: err.message }
  }
  process.send({ seq: m.seq, ...reply })
})
process.on('disconnect', () => process.exit(0))
process.send({ type: 'ready' })
