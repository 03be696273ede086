'use strict'

// `for await (const event of source)`: the MessageEvents of an EventSource, every type, in stream
// order. Events wait in a bounded queue; when it is full the source stops reading the socket (TCP
// backpressure through the dispatcher) until the consumer has taken half of them.
// The iteration ends when the source is closed and throws when the connection fails; leaving the
// loop early (break, return, throw) closes the source.

class MessageIterator {
  #queue = []
  #head = 0
  #waiting = null
  #done = false
  #error = null
  #highWaterMark
  #source

  /**
   * @param {{ pause(): void, resume(): void, close(): void, remove(it: MessageIterator): void }} source
   * @param {number} highWaterMark
   */
  constructor (source, highWaterMark) {
    this.#source = source
    this.#highWaterMark = highWaterMark
  }

  /** Queued, not yet taken. */
  get size () {
    return this.#queue.length - this.#head
  }

  get full () {
    return this.size >= this.#highWaterMark
  }

  push (event) {
    if (this.#done) return
    if (this.#waiting !== null) {
      const resolve = this.#waiting.resolve
      this.#waiting = null
      resolve({ value: event, done: false })
      return
    }
    this.#queue.push(event)
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
      this.#queue[this.#head++] = undefined
      // Compact once the taken part dominates, so the array does not grow without end.
      if (this.#head > 1024 && this.#head * 2 > this.#queue.length) {
        this.#queue = this.#queue.slice(this.#head)
        this.#head = 0
      }
      if (this.size <= this.#highWaterMark >> 1) this.#source.resume()
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
    this.#head = 0
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

module.exports = { MessageIterator }
