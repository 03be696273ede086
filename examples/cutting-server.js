'use strict'

// For the resumption examples (mcp-resume.js, offset-resume.js): a local server's way of sending an
// event stream over connections that keep being cut, as a proxy's timeout, a deploy or a phone that
// changes networks cuts them. While it has cuts left, each response carries a random number of whole
// events and then either ends cleanly or stops in the middle of the next event and drops the socket.

const { encodeEvent } = require('../lib/entries/server.js')

/**
 * A small seeded generator (mulberry32), so that a run can be repeated exactly.
 * @param {number} seed
 * @returns {() => number} in [0, 1)
 */
function seeded (seed) {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let x = Math.imul(state ^ (state >>> 15), 1 | state)
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x
    return ((x ^ (x >>> 14)) >>> 0) / 2 ** 32
  }
}

class Cutter {
  #random
  #left

  /** @param {{ cuts: number, seed?: number }} options */
  constructor ({ cuts, seed = 1 }) {
    this.#left = cuts
    this.#random = seeded(seed)
  }

  /** Cuts still to make. */
  get left () {
    return this.#left
  }

  /**
   * Sends `events` with `writer`, made for `res`. With cuts left: the first `whole` events, then a random
   * number of the others, then a clean end or part of the next event and a dropped socket. Without: every
   * event, then the end.
   * @param {import('node:http').ServerResponse} res
   * @param {import('../types/server').EventStreamWriter} writer
   * @param {import('../types/server').ServerSentEvent[]} events
   * @param {{ whole?: number }} [options] events always sent in full before a cut (a priming event)
   * @returns {number} how many events went out in full
   */
  send (res, writer, events, { whole = 0 } = {}) {
    if (this.#left === 0 || events.length <= whole) {
      writer.send(events)
      writer.close()
      return events.length
    }
    this.#left--
    const sent = whole + Math.floor(this.#random() * (Math.min(events.length - whole, 4) + 1))
    writer.send(events.slice(0, sent))
    const next = events[sent]
    if (next === undefined || this.#random() < 0.3) {
      writer.close()
      return sent
    }
    // Part of the next event, which no writer would send: what a cut leaves. After the writer's write (at the
    // end of this tick), and then the socket goes, once the bytes have been handed to it: a socket destroyed
    // at once could lose the whole events written before.
    const bytes = encodeEvent(next)
    const part = bytes.subarray(0, 1 + Math.floor(this.#random() * (bytes.length - 1)))
    setImmediate(() => res.write(part, () => res.socket?.destroy()))
    return sent
  }
}

/**
 * Listens on a free port of 127.0.0.1.
 * @param {import('node:http').Server} server
 * @returns {Promise<{ origin: string, close(): Promise<void> }>}
 */
async function listenLocally (server) {
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    origin: `http://127.0.0.1:${server.address().port}`,
    close () {
      server.closeAllConnections()
      return new Promise((resolve) => server.close(() => resolve()))
    }
  }
}

module.exports = { Cutter, listenLocally }
