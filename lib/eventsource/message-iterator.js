// `for await (const event of source)`: the MessageEvents of an EventSource, every type, in stream
// order. Events wait in a queue bounded in events (highWaterMark) and in bytes (highWaterMarkBytes);
// when either is reached the source stops reading the socket and decoding (TCP backpressure through
// the dispatcher) until the consumer has taken the queue back under half of both.
// The iteration ends when the source is closed and throws when the connection fails; leaving the
// loop early (break, return, throw) closes the source.

import { unshared } from '../parser/unshared-string.js'

// Events are queued as they are: the parser's strings are views of their network chunk's text
// (lib/parser/unshared-string.js), so a queue that holds events of many chunks would keep all their texts.
// Once the queue spans PIN_SPAN chunks, the source copies the strings of the events it adds, which bounds
// what the queue keeps to PIN_SPAN chunks. Copying every queued event would cost a fast consumer, whose
// queue holds the events of one chunk at a time, a visible share of its throughput.
const PIN_SPAN = 16

// What a queued event costs beyond its strings: a MessageEvent's heap (a few hundred bytes, more on later
// Nodes) plus its slot in the queue, rounded up.
const EVENT_OVERHEAD = 512

/**
 * The bytes a queued event counts for highWaterMarkBytes: its strings at two bytes per UTF-16 code unit (an
 * upper bound for a flat string in V8), plus EVENT_OVERHEAD.
 * @param {MessageEvent} event
 */
function eventCost (event) {
  return EVENT_OVERHEAD + 2 * (event.data.length + event.type.length + event.lastEventId.length)
}

class MessageIterator {
  #queue = []
  #costs = []
  // The number of the network chunk each queued event came in (the source counts them).
  #chunks = []
  #head = 0
  #bytes = 0
  #waiting = null
  #done = false
  #error = null
  #highWaterMark
  #highWaterMarkBytes
  #source

  /**
   * @param {{ resume(): void, close(): void, remove(it: MessageIterator): void }} source
   * @param {number} highWaterMark events
   * @param {number} [highWaterMarkBytes] see eventCost()
   */
  constructor (source, highWaterMark, highWaterMarkBytes = Infinity) {
    this.#source = source
    this.#highWaterMark = highWaterMark
    this.#highWaterMarkBytes = highWaterMarkBytes
  }

  /** Queued, not yet taken. */
  get size () {
    return this.#queue.length - this.#head
  }

  // Whether an event of chunk number `chunk` is to be queued with strings of its own: the queue already
  // holds events of PIN_SPAN chunks before it.
  keepsChunksBefore (chunk) {
    return this.#waiting === null && this.size > 0 && chunk - this.#chunks[this.#head] >= PIN_SPAN
  }

  /** Bytes queued, as eventCost() counts them. */
  get bytes () {
    return this.#bytes
  }

  get full () {
    return this.size >= this.#highWaterMark || this.#bytes >= this.#highWaterMarkBytes
  }

  // `cost`: eventCost(event), computed once for every iteration; `chunk`: the network chunk it came in.
  push (event, cost = 0, chunk = 0) {
    if (this.#done) return
    if (this.#waiting !== null) {
      const resolve = this.#waiting.resolve
      this.#waiting = null
      resolve({ value: event, done: false })
      return
    }
    this.#queue.push(event)
    this.#costs.push(cost)
    this.#chunks.push(chunk)
    this.#bytes += cost
  }

  /** The source closed (error === null) or failed: what is queued is still delivered first. */
  finish (error) {
    if (this.#done) return
    this.#done = true
    this.#error = error
    if (this.#waiting !== null) this.#settle()
  }

  next () {
    if (this.size > 0) {
      const value = this.#queue[this.#head]
      this.#bytes -= this.#costs[this.#head]
      this.#queue[this.#head++] = undefined
      // Compact once the taken part dominates, so the array does not grow without end.
      if (this.#head > 1024 && this.#head * 2 > this.#queue.length) {
        this.#queue = this.#queue.slice(this.#head)
        this.#costs = this.#costs.slice(this.#head)
        this.#chunks = this.#chunks.slice(this.#head)
        this.#head = 0
      }
      if (this.size <= this.#highWaterMark >> 1 && this.#bytes <= this.#highWaterMarkBytes / 2) this.#source.resume()
      return Promise.resolve({ value, done: false })
    }
    if (this.#done) return this.#settled()
    return new Promise((resolve, reject) => { this.#waiting = { resolve, reject } })
  }

  return () {
    this.#leave()
    return Promise.resolve({ value: undefined, done: true })
  }

  throw (error) {
    this.#leave()
    return Promise.reject(error)
  }

  [Symbol.asyncIterator] () {
    return this
  }

  #leave () {
    this.#queue = []
    this.#costs = []
    this.#chunks = []
    this.#head = 0
    this.#bytes = 0
    // A next() still waiting (return() called while it was pending) ends too.
    if (this.#waiting !== null) {
      const { resolve } = this.#waiting
      this.#waiting = null
      resolve({ value: undefined, done: true })
    }
    if (!this.#done) {
      this.#done = true
      this.#source.remove(this)
      this.#source.close()
    }
  }

  #settled () {
    if (this.#error === null) return Promise.resolve({ value: undefined, done: true })
    const error = this.#error
    this.#error = null
    return Promise.reject(error)
  }

  #settle () {
    const { resolve, reject } = this.#waiting
    this.#waiting = null
    this.#settled().then(resolve, reject)
  }
}

/**
 * The iterations of one source: each `for await` has its MessageIterator, fed every message the source
 * dispatches. The source's connection stops reading while any of their queues is full, and reads again
 * once none is.
 */
class MessageIterators {
  #iterators = new Set()
  #source
  #highWaterMark
  #highWaterMarkBytes
  // What a MessageIterator asks of its source, answered for all of them.
  #port
  // The source's MessageEvents (its build's createMessageEvent), and the network chunks it has received
  // since the first iteration began (see PIN_SPAN).
  #createMessageEvent
  #chunks = 0
  // Messages parsed and not yet dispatched (their tasks are queued): counted against the high-water mark with
  // the queues, so that a transport whose chunks come from promise jobs (a stream's reads) cannot run ahead of
  // dispatch, as a socket's callbacks cannot.
  #parsed = 0
  #pausedForParsed = false

  // `source`: its connection's pause() and resume(), and its close(); createMessageEvent: its build's.
  constructor (source, highWaterMark, highWaterMarkBytes, createMessageEvent) {
    this.#source = source
    this.#highWaterMark = highWaterMark
    this.#highWaterMarkBytes = highWaterMarkBytes
    this.#createMessageEvent = createMessageEvent
    this.#port = {
      resume: () => this.#resumeIfDrained(),
      close: () => source.close(),
      remove: (iterator) => {
        this.#iterators.delete(iterator)
        this.#resumeIfDrained()
      }
    }
  }

  /** A new iteration. */
  add () {
    const iterator = new MessageIterator(this.#port, this.#highWaterMark, this.#highWaterMarkBytes)
    this.#iterators.add(iterator)
    return iterator
  }

  /** The source closed (error === null) or failed: every iteration ends, or throws `error`. */
  finish (error) {
    for (const iterator of this.#iterators) iterator.finish(error)
    this.#iterators.clear()
  }

  /** The source received a network chunk. */
  received () {
    this.#chunks++
  }

  /** A message was parsed: its task is queued. */
  parsed () {
    this.#parsed++
  }

  /** A message's task ran, or will not (the source closed). */
  taken () {
    if (this.#parsed > 0) this.#parsed--
  }

  // The MessageEvent of a message, with strings of its own once a queue already spans many chunks (PIN_SPAN).
  createEvent (type, data, origin, lastEventId) {
    if (this.#keepsChunksBefore(this.#chunks)) {
      type = unshared(type)
      data = unshared(data)
      lastEventId = unshared(lastEventId)
    }
    return this.#createMessageEvent(type, data, origin, lastEventId)
  }

  #keepsChunksBefore (chunk) {
    for (const iterator of this.#iterators) if (iterator.keepsChunksBefore(chunk)) return true
    return false
  }

  // Queues a dispatched event for every iteration; the connection pauses when a queue is full.
  push (event) {
    const cost = eventCost(event)
    for (const iterator of this.#iterators) iterator.push(event, cost, this.#chunks)
    if (this.full) {
      this.#source.pause()
    } else if (this.#pausedForParsed && !this.#fullWithParsed) {
      // Paused for messages still to dispatch (pauseIfFull()), which a waiting loop took as they came: no
      // next() call of its would resume the connection.
      this.#pausedForParsed = false
      this.#source.resume()
    }
  }

  /**
   * After a chunk of a stream source is parsed: its connection pauses while the messages still to dispatch fill a
   * queue. (A socket's chunks come in callbacks of their own, after the last chunk's messages were dispatched.)
   */
  pauseIfFull () {
    if (!this.#fullWithParsed) return
    this.#pausedForParsed = true
    this.#source.pause()
  }

  /** Whether any queue is full: a new connection starts paused. */
  get full () {
    for (const iterator of this.#iterators) if (iterator.full) return true
    return false
  }

  // Whether any queue is full once the messages still to dispatch are in it.
  get #fullWithParsed () {
    if (this.#parsed >= this.#highWaterMark) return true
    for (const iterator of this.#iterators) if (iterator.size + this.#parsed >= this.#highWaterMark) return true
    return this.full
  }

  #resumeIfDrained () {
    if (!this.full) this.#source.resume()
  }
}

/** The iteration of a source that is closed already: it ends at once, and asks nothing of the source. */
function finishedIterator () {
  const iterator = new MessageIterator(null, 1)
  iterator.finish(null)
  return iterator
}

export { MessageIterator, MessageIterators, finishedIterator, eventCost, PIN_SPAN }
