'use strict'

// whatwg-eventsource/parser does linear work whatever the chunking, proved without a clock, as
// test/parser/parser-linear.test.cjs proves it for the byte parser: while the parser runs, the primitives it
// works with are wrapped and counted. String#indexOf counts the characters it searched,
// String#charCodeAt the characters read one by one, Array#join and String#slice the characters they
// copied (an upper bound: V8 may make a slice a view), String#concat the appends to the tail of an
// incomplete line and the longest string appended to (an append copies that string in an engine
// without ropes). A parser that joins the incomplete line on every feed, or searches it again, does
// O(N^2) work on a line dripped in small feeds, which these bounds reject, as the naive splitter below
// shows with the same meter.

const t = require('tap')
const { createParser } = require('../../../lib/entries/parser.js')
const { prng, randomCuts, splitString, sizeCuts, quadraticCopies } = require('../../helpers/index.cjs')
const { meterStringWork: meter } = require('../../helpers/string-meter.cjs')

// The methods metered, to check afterwards that each was put back.
const originals = {
  indexOf: String.prototype.indexOf,
  charCodeAt: String.prototype.charCodeAt,
  slice: String.prototype.slice,
  join: Array.prototype.join,
  concat: String.prototype.concat
}

/** Cuts `text` into feeds of min..max characters, from a seeded PRNG (made before metering starts). */
function drip (text, min, max, seed = 1) {
  return splitString(text, randomCuts(text.length, prng(seed), { min, max }))
}

/** Feeds `feeds` to a fresh parser, metered; returns the events' data and the counts. */
function run (feeds) {
  const events = []
  const parser = createParser({ onEvent (event) { events.push(event.data) } })
  const counts = meter(() => {
    for (const feed of feeds) parser.feed(feed)
  })
  return { events, counts }
}

/** Checks each count against `factor` times the input's length. */
function linear (t, counts, length, factor) {
  for (const what of ['searched', 'read', 'sliced', 'joined']) {
    t.ok(counts[what] <= factor * length, `${what} ${counts[what]} characters for ${length}`)
  }
}

// The O(N^2) ways: join the incomplete line with each feed, and search it again from its start.
function naiveSplitter (feeds) {
  let pending = ''
  const lines = []
  return meter(() => {
    for (const feed of feeds) {
      pending = [pending, feed].join('')
      let lf
      while ((lf = pending.indexOf('\n')) !== -1) {
        lines.push(pending.slice(0, lf))
        pending = pending.slice(lf + 1)
      }
    }
  })
}

// A bound of 3 per input character, as for the byte parser: each is searched once for LF and once for
// CR, read one by one at most twice (feeds of up to 16 characters, the start of each line), and copied
// once into its line (and sliced once as a value). Measured: at most 2.0.
const FACTOR = 3
// The tail an incomplete line's tiny pieces are appended to is at most this long (TAIL_BATCH in
// lib/compat/eventsource-parser/pending-text.js): an append copies at most that much, in any engine.
const TAIL_BATCH = 1024
// Pieces of 64 to 127 characters (ROPE_PIECE there) go to a tail of at most ROPE_BATCH characters, kept
// as it is (a rope in V8).
const ROPE_PIECE = 128
const ROPE_BATCH = 8192

t.test('a 256 KiB data line dripped in 1-8 character feeds costs linear work', async (t) => {
  const value = 'x'.repeat(256 * 1024)
  const input = `data: ${value}\n\n`
  const feeds = drip(input, 1, 8)
  const { events, counts } = run(feeds)
  t.same(events, [value])
  linear(t, counts, input.length, FACTOR)
  // Joining the incomplete line with each feed would copy it once per feed.
  const quadratic = quadraticCopies(feeds)
  t.ok(quadratic > 1000 * FACTOR * input.length, `pending + feed would copy ${quadratic} characters`)
})

t.test('the meter rejects the naive splitter', async (t) => {
  // Small enough to run the quadratic splitter quickly, large enough to fail the bound by far.
  const input = `data: ${'x'.repeat(16 * 1024)}\n\n`
  const feeds = drip(input, 1, 8, 7)
  const naive = naiveSplitter(feeds)
  t.ok(naive.joined > 100 * FACTOR * input.length, `naive joined ${naive.joined} characters for ${input.length}`)
  t.ok(naive.searched > 100 * FACTOR * input.length, `naive searched ${naive.searched} characters for ${input.length}`)
  const { events, counts } = run(feeds)
  t.equal(events[0].length, 16 * 1024)
  linear(t, counts, input.length, FACTOR)
})

t.test('a line dripped one character per feed is kept in batches, not one piece per feed', async (t) => {
  const value = 'y'.repeat(64 * 1024)
  const input = `data:${value}\n\n`
  const { events, counts } = run(splitString(input, sizeCuts(input.length, 1)))
  t.same(events, [value])
  linear(t, counts, input.length, FACTOR)
  // Tiny pieces are appended to a tail of at most 1 KiB, which then becomes one piece: each character is
  // appended once and joined once, and the line's join reads a few dozen pieces, not 64 K of them.
  t.ok(counts.appends <= input.length, `${counts.appends} appends for ${input.length} feeds`)
  t.ok(counts.longestAppendedTo <= TAIL_BATCH, `appended to strings of ${counts.longestAppendedTo} characters at most`)
  // Each batch is cut before the tail's end, so that slice() flattens it: a tail cut at its own length
  // would stay a rope of a cell per character until the line ends.
  t.equal(counts.wholeSlices, 0, 'no tail cut at its own length')
  t.ok(counts.joined <= input.length, `joined ${counts.joined} characters for ${input.length}`)
  t.ok(counts.largestJoin <= input.length / TAIL_BATCH + 3, `the largest join read ${counts.largestJoin} pieces`)
})

t.test('a line in 64- to 127-character feeds is kept in batches and joined once', async (t) => {
  const value = 'w'.repeat(1024 * 1024)
  const input = `data:${value}\n\n`
  for (const feeds of [splitString(input, sizeCuts(input.length, 64)), drip(input, 64, 127, 5)]) {
    const { events, counts } = run(feeds)
    t.same(events, [value])
    linear(t, counts, input.length, FACTOR)
    // Appended to a tail, each character copied once, by the line's join, which reads a few hundred
    // pieces, not one per feed.
    t.ok(counts.appends <= feeds.length, `${counts.appends} appends for ${feeds.length} feeds`)
    t.ok(counts.longestAppendedTo < ROPE_BATCH + ROPE_PIECE, `appended to strings of ${counts.longestAppendedTo} characters at most`)
    t.ok(counts.joined <= input.length, `joined ${counts.joined} characters for ${input.length}`)
    t.ok(counts.largestJoin <= input.length / (ROPE_BATCH - ROPE_PIECE) + 3, `the largest join read ${counts.largestJoin} pieces`)
  }
})

t.test('a long line in 1 KiB feeds is joined once', async (t) => {
  // Pieces this long are kept as they are, never appended to a tail: each character is copied once.
  const value = 'z'.repeat(1024 * 1024)
  const input = `data:${value}\n\n`
  const { events, counts } = run(splitString(input, sizeCuts(input.length, 1024)))
  t.same(events, [value])
  t.ok(counts.joined <= input.length, `joined ${counts.joined} characters for ${input.length}`)
  t.equal(counts.appends, 0, 'no appends')
  linear(t, counts, input.length, FACTOR)
})

t.test('many short events dripped in 1-8 character feeds cost linear work, LF and CRLF', async (t) => {
  for (const eol of ['\n', '\r\n', '\r']) {
    const parts = []
    for (let i = 0; i < 8192; i++) parts.push(`id: ${i}${eol}event: tick${eol}data: ${'y'.repeat(i % 40)}${eol}${eol}`)
    const input = parts.join('')
    const { events, counts } = run(drip(input, 1, 8, 11))
    t.equal(events.length, 8192, JSON.stringify(eol))
    linear(t, counts, input.length, FACTOR)
  }
})

t.test('an event of 200,000 one-character data lines costs linear work, its data flattened in bounded steps', async (t) => {
  // The strings that join its lines are bounded by flattening them now and then (joinTail() of
  // lib/parser/field-rules.js): each character is copied a bounded number of times, not the whole data
  // buffer each time.
  const lines = 200_000
  const input = `${'data:x\n'.repeat(lines)}\n`
  for (const [name, feeds] of [['64 KiB feeds', splitString(input, sizeCuts(input.length, 64 * 1024))], ['1-8 character feeds', drip(input, 1, 8, 5)]]) {
    const { events, counts } = run(feeds)
    t.same(events.map((data) => data === 'x\n'.repeat(lines).slice(0, -1)), [true], `${name}: the event, whole`)
    linear(t, counts, input.length, FACTOR)
  }
})

t.test('large feeds: each character searched once for LF and once for CR', async (t) => {
  const parts = []
  let ids = 0
  for (let i = 0; i < 2000; i++) {
    parts.push(`id: ${i}\nevent: e\ndata: ${'v'.repeat(i % 300)}\n\n`)
    ids += String(i).length
  }
  const input = parts.join('')
  for (const size of [16 * 1024, 64 * 1024]) {
    const { events, counts } = run(splitString(input, sizeCuts(input.length, size)))
    t.equal(events.length, 2000)
    // And each id value once for U+0000.
    t.ok(counts.searched <= 2 * input.length + ids, `searched ${counts.searched} characters for ${input.length}`)
  }
})

t.test('a dripped line keeps its order across tails and pieces of every size', async (t) => {
  // Distinct characters; pieces of 1 to 7 characters with a 20,000-character one now and then, so that
  // a tail is cut short by a long piece, as well as full; and runs of 64- to 127-character pieces, so
  // that a tail kept as it is meets tiny pieces, which have it flattened.
  const value = Array.from({ length: 200_000 }, (_, i) => 'abcdefghijklmnopqrstuvwxyz'[i % 26]).join('')
  const input = `data:${value}\n\n`
  const cuts = []
  for (let at = 0, n = 0; at < input.length; n++) {
    const round = n % 300
    at += round === 149 ? 20_000 : round >= 200 ? 64 + (n % 64) : 1 + (n % 7)
    if (at < input.length) cuts.push(at)
  }
  const events = []
  const parser = createParser({ onEvent (event) { events.push(event.data) } })
  for (const feed of splitString(input, cuts)) parser.feed(feed)
  t.equal(events.length, 1)
  t.ok(events[0] === value, 'the value, character for character')
})

t.test('the meter is restored after use', async (t) => {
  t.equal(String.prototype.indexOf, originals.indexOf)
  t.equal(String.prototype.charCodeAt, originals.charCodeAt)
  t.equal(String.prototype.slice, originals.slice)
  t.equal(Array.prototype.join, originals.join)
  t.equal(String.prototype.concat, originals.concat)
})
