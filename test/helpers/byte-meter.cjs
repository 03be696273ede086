'use strict'

// Linear work of the byte parser, without a clock (test/parser/parser-linear.test.cjs through the public class,
// test/parser/parser-platforms.test.cjs through the one lib/parser/parser.js exports): while `fn` runs, the
// byte-copying primitives are wrapped and counted. Uint8Array#set counts the bytes copied; Buffer.allocUnsafe
// the bytes allocated, the allocations, those of 1 KiB or more, and the largest; subarray (of Uint8Array and
// of Buffer) the views made.

const { Buffer } = require('node:buffer')
const { withPatched } = require('./patch.cjs')

// An allocation this large or larger counts as large.
const LARGE_ALLOCATION = 1024

/** Runs `fn` synchronously with the primitives counted; returns the counts. */
function meterByteWork (fn) {
  const counts = { copied: 0, allocated: 0, allocations: 0, largeAllocations: 0, largest: 0, views: 0 }
  const countView = (subarray) => function (start, end) {
    counts.views++
    return subarray.call(this, start, end)
  }
  withPatched([
    [Uint8Array.prototype, 'set', (set) => function (source, offset) {
      counts.copied += source.length
      return set.call(this, source, offset)
    }],
    [Buffer, 'allocUnsafe', (allocUnsafe) => function (size) {
      counts.allocated += size
      counts.allocations++
      if (size >= LARGE_ALLOCATION) counts.largeAllocations++
      if (size > counts.largest) counts.largest = size
      return allocUnsafe.call(this, size)
    }],
    [Uint8Array.prototype, 'subarray', countView],
    [Buffer.prototype, 'subarray', countView]
  ], fn)
  return counts
}

module.exports = { meterByteWork }
