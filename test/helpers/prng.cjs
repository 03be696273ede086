'use strict'

// The seeded PRNG of the tests: mulberry32, small, fast and well mixed, so that a random run is the
// same on every machine and a failing one can be replayed from its seed.

/**
 * @param {number} seed a 32-bit integer
 * @returns {{ next: () => number, int: (n: number) => number, pick: <T>(items: T[]) => T, chance: (p: number) => boolean }}
 */
function prng (seed) {
  let a = seed >>> 0
  /** A number in [0, 1). */
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0
    let x = a
    x = Math.imul(x ^ (x >>> 15), x | 1)
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61)
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296
  }
  return {
    next,
    /** An integer in [0, n). */
    int: (n) => Math.floor(next() * n),
    pick: (items) => items[Math.floor(next() * items.length)],
    chance: (p) => next() < p
  }
}

module.exports = { prng }
