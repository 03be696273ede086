'use strict'

// Linear work of the string parser, without a clock
// (test/compat/eventsource-parser/parser-drop-in-linear.test.cjs and
// test/compat/eventsource-parser/parser-drop-in-callbacks.test.cjs): while `fn` runs, the
// primitives they work with are wrapped and counted. String#indexOf, #includes and #search count the
// characters searched, up to the match or to the end; #charCodeAt the characters read one by one; #slice and
// Array#join the characters they copied (an upper bound: V8 may make a slice a view), how many slices were of
// a whole string (V8 returns that very string, a rope unflattened), and the largest join in pieces;
// String#concat the appends (the tail of an incomplete line) and the longest string appended to (an append
// copies it in an engine without ropes).

const { withPatched } = require('./patch.cjs')

const unpatchedIndexOf = String.prototype.indexOf

/** Runs `fn` synchronously with the primitives counted; returns the counts. */
function meterStringWork (fn) {
  const counts = { searched: 0, read: 0, sliced: 0, wholeSlices: 0, joined: 0, largestJoin: 0, appends: 0, longestAppendedTo: 0 }
  const searched = (original) => function (search, from = 0) {
    const at = original.call(this, search, from)
    const start = Math.min(Math.max(from, 0), this.length)
    // Where the search stopped: at the match (#includes only says whether there is one), or at the end.
    const found = typeof at === 'boolean' ? (at ? unpatchedIndexOf.call(this, search, start) : -1) : at
    counts.searched += (found === -1 ? this.length : found + (typeof search === 'string' ? search.length : 1)) - start
    return at
  }
  withPatched([
    [String.prototype, 'includes', searched],
    [String.prototype, 'indexOf', searched],
    [String.prototype, 'search', searched],
    [String.prototype, 'charCodeAt', (charCodeAt) => function (index) {
      counts.read++
      return charCodeAt.call(this, index)
    }],
    [String.prototype, 'slice', (slice) => function (start, end) {
      const result = slice.call(this, start, end)
      counts.sliced += result.length
      // A slice of a whole string is that string: in V8 a rope stays a rope, no flattening.
      if (result.length === this.length && result.length !== 0) counts.wholeSlices++
      return result
    }],
    [Array.prototype, 'join', (join) => function (separator) {
      const result = join.call(this, separator)
      counts.joined += result.length
      counts.largestJoin = Math.max(counts.largestJoin, this.length)
      return result
    }],
    [String.prototype, 'concat', (concat) => function (...strings) {
      counts.appends++
      counts.longestAppendedTo = Math.max(counts.longestAppendedTo, this.length)
      return concat.apply(this, strings)
    }]
  ], fn)
  return counts
}

module.exports = { meterStringWork }
