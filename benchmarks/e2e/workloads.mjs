// The event streams of the whole-client benchmarks, shared by the server (which sends them) and the
// runners (which know what every client must have received). Every event is generated from its index,
// so the expected count, bytes and hash need no copy of the stream.
//
//   small  67-byte events:      id: 000042\ndata: {"n":"000042","t":"<27 bytes>"}\n\n
//   large  16 KiB (16,384-byte) events, the same shape with a 16,344-byte "t"
//   idle   one event per connection, naming the connection: id: <i>\ndata: idle <i>\n\n

import { createHash } from 'node:crypto'

export const SMALL_EVENT_BYTES = 67
export const LARGE_EVENT_BYTES = 16 * 1024

// id line (11 bytes) + "data: " (6) + the JSON-ish value + the two LFs.
const FRAME = 11 + 6 + 2
const VALUE_HEAD = 21 // {"n":"000042","t":"  and  "}

// Deterministic ASCII filler: slices of one 64 KiB pseudo-random alphanumeric string.
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'
const FILLER = (() => {
  let x = 0x9e3779b9
  let s = ''
  for (let i = 0; i < 65536; i++) {
    x ^= x << 13; x ^= x >>> 17; x ^= x << 5
    s += ALPHABET[(x >>> 0) % ALPHABET.length]
  }
  return s
})()

function pad6 (i) {
  return String(i).padStart(6, '0')
}

function filler (i, length) {
  const start = (i * 7919) % (FILLER.length - length)
  return FILLER.slice(start, start + length)
}

/** The data of event `i` of a `small` or `large` stream. */
export function eventData (kind, i) {
  const size = kind === 'large' ? LARGE_EVENT_BYTES : SMALL_EVENT_BYTES
  return `{"n":"${pad6(i)}","t":"${filler(i, size - FRAME - VALUE_HEAD)}"}`
}

/** The id of event `i` (also its last event ID as the client sees it). */
export function eventId (i) {
  return pad6(i)
}

/** The bytes of event `i` on the wire. */
export function eventText (kind, i) {
  return `id: ${eventId(i)}\ndata: ${eventData(kind, i)}\n\n`
}

/** The whole stream of `n` events as one Buffer (the server slices it into writes). */
export function streamBytes (kind, n) {
  const size = kind === 'large' ? LARGE_EVENT_BYTES : SMALL_EVENT_BYTES
  const buffer = Buffer.allocUnsafe(size * n)
  let offset = 0
  for (let i = 0; i < n; i++) {
    const written = buffer.write(eventText(kind, i), offset, 'latin1')
    if (written !== size) throw new Error(`event ${i} of ${kind} is ${written} bytes, not ${size}`)
    offset += written
  }
  return buffer
}

/**
 * The hash every EventSource client computes over what it received: per event, the type, the last
 * event ID and the data, in order.
 */
export class EventHash {
  #hash = createHash('sha256')
  count = 0
  add (type, lastEventId, data) {
    this.count++
    this.#hash.update(`${type}\u0000${lastEventId}\u0000${data}\u0000`)
  }

  digest () {
    return this.#hash.digest('hex')
  }
}

/** What a correct EventSource client receives from a `small`/`large` stream of `n` events. */
export function expectedEvents (kind, n) {
  const hash = new EventHash()
  for (let i = 0; i < n; i++) hash.add('message', eventId(i), eventData(kind, i))
  return { count: n, hash: hash.digest() }
}

/** What the floor (raw bytes) receives: the byte count, the number of events and the SHA-256 of the bytes. */
export function expectedBytes (kind, n) {
  const bytes = streamBytes(kind, n)
  return { bytes: bytes.length, count: n, hash: createHash('sha256').update(bytes).digest('hex') }
}

export function idleEventText (i) {
  return `id: ${i}\ndata: idle ${i}\n\n`
}

/** The data every idle connection `i` must receive (one event), hashed in connection order. */
export function expectedIdle (n) {
  const hash = new EventHash()
  for (let i = 0; i < n; i++) hash.add('message', String(i), `idle ${i}`)
  return { count: n, hash: hash.digest() }
}
