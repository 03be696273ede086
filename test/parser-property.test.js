'use strict'

// Seeded property test: random event streams (every field kind, every line end, BOMs, multi-byte
// and invalid UTF-8, NULs, comments, resets) are parsed under random chunkings and compared with
// the reference model of test/helpers/reference.js.
// Replay a failure with SSE_SEED=<seed> (printed with it); SSE_CASES=<n> runs more cases.

const t = require('tap')
const { isDeepStrictEqual } = require('node:util')
const { split, parseStreams, describeBytes, reference } = require('./helpers')

const SEED = Number(process.env.SSE_SEED ?? 0x5e5e1d)
const CASES = Number(process.env.SSE_CASES ?? 4000)

// mulberry32: a small, well-mixed 32-bit PRNG; the same seed gives the same cases everywhere.
function mulberry32 (seed) {
  let a = seed >>> 0
  return function next () {
    a = (a + 0x6d2b79f5) >>> 0
    let x = a
    x = Math.imul(x ^ (x >>> 15), x | 1)
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61)
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296
  }
}

function generator (random) {
  const int = (n) => Math.floor(random() * n) // 0..n-1
  const pick = (list) => list[int(list.length)]
  const chance = (p) => random() < p

  // Pieces of values, as bytes: ASCII, the bytes the grammar cares about, valid multi-byte
  // characters, and invalid or truncated sequences.
  const atoms = [
    'a', 'b', 'z', '0', '7', ' ', '  ', ':', ': ', '\t', 'data', 'id', '\u0000', 'é', '€', '😀', '\ufeff', '\ufffd',
    [0x80], [0xbf], [0xff], [0xfe], [0xc3], [0xc0, 0x80], [0xe2, 0x82], [0xf0, 0x9f, 0x98], [0xed, 0xa0, 0x80],
    [0xef, 0xbb], [0xef, 0xbb, 0xbf], [0xf4, 0x90, 0x80, 0x80]
  ].map((atom) => typeof atom === 'string' ? [...Buffer.from(atom)] : atom)

  const value = (max = 6) => {
    const out = []
    // Now and then a long value: pieces of 128 bytes or more are kept by reference, and a line
    // dripped byte by byte outgrows the parser's 4 KiB scratch buffer.
    if (chance(0.02)) out.push(...Buffer.alloc(100 + int(5000), pick([0x61, 0x3a, 0x20])))
    for (let n = int(max + 1); n > 0; n--) out.push(...pick(atoms))
    return out
  }
  const ascii = (text) => [...Buffer.from(text)]
  const digits = () => {
    // Up to 15 digits stay exact in a double; 400 digits overflow to Infinity either way.
    if (chance(0.05)) return '9' + '0123456789'.repeat(40)
    let text = '0'.repeat(chance(0.2) ? int(3) : 0)
    for (let n = 1 + int(15); n > 0; n--) text += String(int(10))
    return text
  }
  const separator = () => pick([':', ':', ': ', ':  ', ''])
  const unknownNames = ['Data', 'DATA', 'datax', 'dat', 'd', 'ids', 'i', 'eventsX', 'even', 'retr', 'retryx', 'foo', 'x', 'dataxx', '\ufeffdata', ' data']

  const lines = {
    data: () => [...ascii('data'), ...ascii(separator()), ...value()],
    event: () => [...ascii('event'), ...ascii(separator()), ...value(3)],
    id: () => [...ascii('id'), ...ascii(separator()), ...value(3)],
    retry: () => {
      const sep = separator()
      if (chance(0.7)) return ascii(`retry${sep}${digits()}`)
      return [...ascii(`retry${sep}`), ...pick([[], ascii(' 5'), ascii('5 '), ascii('-1'), ascii('1.5'), ascii('1e3'), value(2)])]
    },
    comment: () => [...ascii(':'), ...value()],
    unknown: () => [...ascii(pick(unknownNames)), ...ascii(separator()), ...value(3)],
    blank: () => [],
    // Raw bytes, line ends included: whatever structure they make, both sides must agree.
    noise: () => {
      const out = []
      for (let n = int(8); n > 0; n--) out.push(pick([0x0a, 0x0d, 0x3a, 0x20, 0x00, 0x61, 0xef, 0xbb, 0xbf, 0x80, 0xc3]))
      return out
    }
  }
  const weights = [
    ['data', 30], ['blank', 25], ['event', 8], ['id', 8], ['retry', 6], ['comment', 8], ['unknown', 8], ['noise', 3]
  ]
  const total = weights.reduce((sum, [, w]) => sum + w, 0)
  const line = () => {
    let r = int(total)
    for (const [kind, w] of weights) {
      if ((r -= w) < 0) return lines[kind]()
    }
  }
  const LINE_ENDS = [[0x0a], [0x0d], [0x0d, 0x0a]]

  function stream () {
    const out = []
    const boms = pick([0, 0, 1, 1, 2])
    for (let i = 0; i < boms; i++) out.push(0xef, 0xbb, 0xbf)
    // Mostly one line-end style per stream, as servers send, sometimes a mix.
    const mixed = chance(0.3)
    const style = pick(LINE_ENDS)
    for (let n = int(24); n > 0; n--) {
      out.push(...line(), ...(mixed ? pick(LINE_ENDS) : style))
    }
    // The end: clean, mid-event, an unterminated line, or a lone CR.
    const ending = int(4)
    if (ending === 1) out.push(...lines.data())
    else if (ending === 2) out.push(...lines.data(), 0x0d)
    else if (ending === 3) out.push(0x0a)
    return Buffer.from(out)
  }

  // Cut points: every byte, random small or large pieces, one chunk, or empty chunks sprinkled in.
  function cuts (length) {
    const mode = int(5)
    const out = []
    if (mode === 0) {
      for (let at = 1; at < length; at++) out.push(at)
    } else if (mode === 1 || mode === 2) {
      const max = mode === 1 ? 8 : 300
      for (let at = 1 + int(max); at < length; at += 1 + int(max)) out.push(at)
    } else if (mode === 3) {
      // A step of 0 repeats a cut: an empty chunk.
      for (let at = 0; at <= length; at += int(20)) out.push(at)
    }
    return out
  }

  return { stream, cuts, pick, chance }
}

t.test(`random streams match the reference model (seed ${SEED}, ${CASES} cases)`, async (t) => {
  const random = mulberry32(SEED)
  const { stream, cuts, pick, chance } = generator(random)
  let failures = 0
  // What the cases exercised, so a generator change cannot make this test vacuous.
  const seen = { event: 0, retry: 0, comment: 0, typed: 0, withId: 0, replacement: 0, infinite: 0, resets: 0, boms: 0 }
  for (let i = 0; i < CASES && failures < 3; i++) {
    const streams = [stream()]
    while (chance(0.15)) streams.push(stream())
    const options = chance(0.1) ? { lastEventId: pick(['', 'x', 'é']) } : {}
    const expected = reference(streams, options)
    tally(seen, streams, expected)
    // Each case under three chunkings: one from the random modes, then one byte at a time, then whole.
    const cutList = streams.map((s) => cuts(s.length))
    const variants = [
      cutList,
      streams.map((s) => Array.from({ length: Math.max(0, s.length - 1) }, (_, k) => k + 1)),
      streams.map(() => [])
    ]
    for (const variant of variants) {
      const chunked = streams.map((s, k) => split(s, variant[k], { rotate: i }))
      let actual
      try {
        actual = parseStreams(chunked, options)
      } catch (err) {
        actual = `threw ${err}`
      }
      if (!isDeepStrictEqual(actual, expected)) {
        failures++
        t.same(actual, expected, [
          `SSE_SEED=${SEED} case ${i}`,
          `options ${JSON.stringify(options)}`,
          ...streams.map((s, k) => `stream ${k}: ${describeBytes(s)} in chunks of ${sizes(chunked[k])}`)
        ].join('\n'))
        break
      }
    }
  }
  t.equal(failures, 0, 'no case differs from the reference model')
  for (const [what, count] of Object.entries(seen)) t.ok(count > 20, `${what}: ${count}`)
})

function tally (seen, streams, records) {
  seen.resets += streams.length - 1
  seen.boms += streams.filter((s) => s[0] === 0xef && s[1] === 0xbb && s[2] === 0xbf).length
  for (const [kind, a, b, c] of records) {
    seen[kind]++
    if (kind === 'event') {
      if (a !== 'message') seen.typed++
      if (c !== '') seen.withId++
      if (b.includes('\ufffd')) seen.replacement++
    }
    if (kind === 'retry' && a === Infinity) seen.infinite++
  }
}

// Chunk sizes, run-length encoded: "1x140" rather than 140 ones.
function sizes (chunks) {
  const runs = []
  for (const { length } of chunks) {
    const last = runs.at(-1)
    if (last && last[0] === length) last[1]++
    else runs.push([length, 1])
  }
  return runs.map(([size, n]) => n === 1 ? String(size) : `${size}x${n}`).join(' + ')
}
