'use strict'

// For the resumption examples (mcp-resume.js, offset-resume.js): a local server's way of sending an
// event stream over connections that keep being cut, as a proxy's timeout, a deploy or a phone that
// changes networks cuts them. While it has cuts left, each response carries a random number of whole
// events and then either ends cleanly or stops in the middle of the next event and drops the socket.

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
   * Writes `frames` (serialized events, in order) to `res`, whose head is written. With cuts left: the
   * first `whole` frames, then a random number of the others, then a clean end or part of the next frame
   * and a dropped socket. Without: every frame, then the end.
   * @param {import('node:http').ServerResponse} res
   * @param {string[]} frames
   * @param {{ whole?: number }} [options] frames always sent in full before a cut (a priming event)
   * @returns {number} how many frames went out in full
   */
  send (res, frames, { whole = 0 } = {}) {
    if (this.#left === 0 || frames.length <= whole) {
      res.end(frames.join(''))
      return frames.length
    }
    this.#left--
    const sent = whole + Math.floor(this.#random() * (Math.min(frames.length - whole, 4) + 1))
    const head = frames.slice(0, sent).join('')
    const next = frames[sent]
    if (next === undefined || this.#random() < 0.3) {
      res.end(head)
      return sent
    }
    // Part of the next frame, then the socket goes, once the bytes have been handed to it: a socket
    // destroyed at once could lose the whole events written before.
    const part = Buffer.from(next).subarray(0, 1 + Math.floor(this.#random() * (Buffer.byteLength(next) - 1)))
    res.write(head)
    res.write(part, () => res.socket?.destroy())
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
