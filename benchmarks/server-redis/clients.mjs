// The subscribers of the Redis benchmark (./run.mjs), in one process: raw TCP connections that send a GET and
// read the event stream, no HTTP client in between. Each delivery's latency is the time it is read minus the
// time its event was published (the time at the start of its data). Driven over IPC: { expect: n } resets the
// counts and answers, once every connection has read n events, { latencies (a sample), lastAt, deliveries }.

import net from 'node:net'

const { ports, subscribers } = JSON.parse(process.argv[2])
const now = () => performance.timeOrigin + performance.now()
const DATA = 'data: '

let expected = Infinity
let done = 0
let deliveries = 0
let lastAt = 0
// Every latency would be millions of numbers: a fixed-size reservoir sample of them.
const SAMPLE = 200_000
let sample = new Float64Array(SAMPLE)
let seen = 0

const connections = []
let opened = 0
for (let i = 0; i < subscribers; i++) {
  const socket = net.connect(ports[i % ports.length], '127.0.0.1')
  const connection = { count: 0, tail: '' }
  connections.push(connection)
  socket.setEncoding('latin1')
  socket.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n')
  let head = true
  socket.on('data', (text) => {
    const at = now()
    if (head) {
      // The response head, then the first bytes of the body (a retry: line).
      if (!text.includes('\r\n\r\n')) return
      head = false
      if (++opened === subscribers) process.send({ opened })
    }
    text = connection.tail + text
    let from = 0
    for (;;) {
      const start = text.indexOf(DATA, from)
      if (start === -1) break
      const end = text.indexOf(';', start)
      if (end === -1) break
      const latency = at - Number(text.slice(start + DATA.length, end))
      seen++
      if (seen <= SAMPLE) sample[seen - 1] = latency
      else if (Math.random() * seen < SAMPLE) sample[Math.floor(Math.random() * SAMPLE)] = latency
      deliveries++
      from = end
      if (++connection.count === expected) {
        lastAt = at
        if (++done === subscribers) report()
      }
    }
    // What follows the last value read: at most the start of the next event, which the next chunk completes.
    connection.tail = text.length - from > 256 ? text.slice(-256) : text.slice(from)
  })
  socket.on('error', (error) => { throw error })
}

function report () {
  const latencies = Array.from(sample.subarray(0, Math.min(seen, SAMPLE))).sort((a, b) => a - b)
  process.send({ latencies, lastAt, deliveries })
}

process.on('message', ({ expect }) => {
  expected = expect
  done = 0
  deliveries = 0
  seen = 0
  sample = new Float64Array(SAMPLE)
  for (const connection of connections) connection.count = 0
})
