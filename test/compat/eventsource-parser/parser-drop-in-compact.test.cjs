'use strict'

// The compact string parser (lib/compat/eventsource-parser/compact-string-parser.js), which the
// eventsource-parser drop-in runs in browsers and workers, does what StringParser
// (lib/compat/eventsource-parser/string-parser.js), which Node runs, does: the same callbacks in the same
// order with the same arguments, the same ParseErrors, the same maxBufferSize overflow at the same feed,
// the same throws, on random string streams (test/fuzz/arbitraries.cjs: BOMs decoded and as Latin-1, CR,
// CRLF, a CR at the end of a feed, comments, unknown and near-miss fields, retry values, ids with NUL,
// lone surrogates) cut at random (one character per feed included), with random limits, with and without
// each optional callback, reset({ consume }) between streams, and callbacks that call reset(),
// reset({ consume: true }) or feed() from inside. Both builds of it: lib/'s, and a browser build's, what a browser
// bundle holds. Then its own bounds: linear work whatever the chunking, counted, and the limit on a
// dripped line. FUZZ_SEED, FUZZ_PATH and FUZZ_RUNS replay a failure as in test/parser/parser-property.test.cjs.

const t = require('tap')
const { importBrowserBuild } = require('../../helpers/bundle.cjs')
const fc = require('fast-check')
const { isDeepStrictEqual } = require('node:util')
const { StringParser } = require('../../../lib/compat/eventsource-parser/string-parser')
const { StringParser: CompactParser } = require('../../../lib/compat/eventsource-parser/compact-string-parser')
const { validConfig } = require('../../../lib/compat/eventsource-parser/create-parser')
const { meterStringWork: meter } = require('../../helpers/string-meter.cjs')
const { textStream, cutPlan, cutsOf } = require('../../fuzz/arbitraries.cjs')
const { splitString, sizeCuts, randomCuts, cutSets, prng } = require('../../helpers/index.cjs')

const seed = Number(process.env.FUZZ_SEED ?? 20261127)
const numRuns = Number(process.env.FUZZ_RUNS ?? 20_000)

// Two parsers on tens of thousands of random cases, twice: about 20 s alone, more under a full run.
t.setTimeout(300_000)

// The compact string parser as a browser build holds it (its errors with the web side's short messages).
const browserParser = async (t) => (await importBrowserBuild(t,
  "export { StringParser } from './lib/compat/eventsource-parser/compact-string-parser.js'")).exports.StringParser

const CALLBACKS = ['onEvent', 'onId', 'onRetry', 'onComment', 'onError']

// What a callback may call on its parser, from inside the n-th callback: reset(), reset({ consume: true })
// or feed() of a piece of a line, a few lines, a line end, a BOM's first character, a line past a small
// limit, or a whole random stream.
const innerPiece = fc.constantFrom('data: 12345', 'dat', 'data:', 'a:', ':', ': c', 'x', 'e', '', '\n', '\r', '\r\n', '\n\n',
  'data: x\n\n', 'data: y\n', 'id: 1\n', 'retry: x\n', 'foo\n', '\xEF', '\ufeff', 'event: e\ndata: z\n\ndat')
const innerText = fc.oneof({ weight: 3, arbitrary: innerPiece }, { weight: 1, arbitrary: textStream })
const reentry = fc.record({
  at: fc.integer({ min: 1, max: 12 }),
  call: fc.constantFrom('reset', 'consume', 'feed', 'feed'),
  text: innerText
})
const caseOf = fc.record({
  streams: fc.oneof(
    { weight: 4, arbitrary: fc.array(fc.tuple(textStream, cutPlan), { minLength: 1, maxLength: 1 }) },
    { weight: 1, arbitrary: fc.array(fc.tuple(textStream, cutPlan), { minLength: 2, maxLength: 4 }) }
  ),
  callbacks: fc.oneof({ weight: 2, arbitrary: fc.constant(CALLBACKS) }, { weight: 1, arbitrary: fc.subarray(CALLBACKS) }),
  maxBufferSize: fc.oneof(
    { weight: 5, arbitrary: fc.constant(undefined) },
    { weight: 3, arbitrary: fc.integer({ min: 0, max: 60 }) },
    { weight: 1, arbitrary: fc.integer({ min: 60, max: 3000 }) }
  ),
  consume: fc.boolean(),
  end: fc.boolean(),
  reentries: fc.oneof(
    { weight: 2, arbitrary: fc.constant([]) },
    { weight: 3, arbitrary: fc.array(reentry, { minLength: 1, maxLength: 4 }) }
  )
})

/**
 * Everything a caller of a parser made by `Parser` sees, in order: each callback with its arguments (and
 * whether it was called on the parser, as both call them), each ParseError in full, each feed and reset
 * (a callback's included) and what each that throws throws.
 */
function observe (Parser, { streams, callbacks, maxBufferSize, consume, end, reentries }) {
  const records = []
  let calls = 0
  const attempt = (what, fn) => {
    records.push(what)
    try {
      fn()
    } catch (err) {
      records.push(['threw', err.name, err.code, err.message])
    }
  }
  const after = () => {
    calls++
    for (const { at, call, text } of reentries) {
      if (at !== calls) continue
      if (call === 'feed') attempt(['feed from a callback', text], () => parser.feed(text))
      else attempt([call], () => parser.reset(call === 'consume' ? { consume: true } : undefined))
    }
  }
  const all = {
    onEvent (e) { records.push(['event', e.id, e.event, e.data, Object.keys(e).join(), this === parser]); after() },
    onId (id) { records.push(['id', id, this === parser]); after() },
    onRetry (ms) { records.push(['retry', ms, this === parser]); after() },
    onComment (text) { records.push(['comment', text, this === parser]); after() },
    onError (e) {
      records.push(['error', e.name, e.type, e.message, e.field, e.value, e.line, Object.keys(e).join(), e instanceof Error, this === parser])
      after()
    }
  }
  const config = {}
  for (const name of callbacks) config[name] = all[name]
  if (maxBufferSize !== undefined) config.maxBufferSize = maxBufferSize
  const parser = new Parser(validConfig(config))
  streams.forEach((chunks, i) => {
    if (i > 0) attempt(['reset', consume], () => parser.reset({ consume }))
    for (const chunk of chunks) attempt(['feed'], () => parser.feed(chunk))
  })
  if (end) attempt(['reset', true], () => parser.reset({ consume: true }))
  return records
}

function chunked (streams) {
  return streams.map(([text, plan]) => splitString(text, cutsOf(plan, text.length)))
}

function sameAsStringParser (Parser) {
  return fc.property(caseOf, (c) => {
    const options = { ...c, streams: chunked(c.streams) }
    const expected = observe(StringParser, options)
    const actual = observe(Parser, options)
    if (!isDeepStrictEqual(actual, expected)) {
      throw new Error([
        'the compact string parser and StringParser differ',
        `  compact: ${JSON.stringify(actual)}`,
        `  string:  ${JSON.stringify(expected)}`,
        `  options: ${JSON.stringify({ ...c, streams: undefined })}`,
        ...options.streams.map((chunks, k) => `  stream ${k}: ${JSON.stringify(chunks)}`)
      ].join('\n'))
    }
  })
}

t.test('a browser build\'s drop-in parses with the compact parser, Node\'s with StringParser', async (t) => {
  const { resolved } = await importBrowserBuild(t, "export { StringParser } from '#string-parser'")
  t.equal(resolved['#string-parser'], 'lib/compat/eventsource-parser/compact-string-parser.js',
    'a browser build\'s createParser is on the compact parser')
  const pkg = require('../../../package.json')
  t.same(pkg.imports['#string-parser'], {
    node: './lib/compat/eventsource-parser/string-parser.js',
    default: './lib/compat/eventsource-parser/compact-string-parser.js'
  })
  // On Node, createParser() is StringParser's: its fast paths are what the drop-in's timings are of.
  t.equal(require('#string-parser').StringParser, StringParser)
  t.ok(await browserParser(t), 'a browser build exports the class')
})

for (const [name, load] of [
  ['lib/', async () => CompactParser],
  ['the browser build', browserParser]
]) {
  t.test(`${name}: ${numRuns} random cases, the same as StringParser (seed ${seed})`, async (t) => {
    const Parser = await load(t)
    const details = fc.check(sameAsStringParser(Parser), { seed, numRuns, path: process.env.FUZZ_PATH })
    if (details.failed) t.fail(`${fc.defaultReportMessage(details)}\n${details.errorInstance?.message}`)
    else t.pass('no counterexample')
  })
}

// Inputs aimed at the rules that decide StringParser's limit checks and drops, each at every chunking:
// the one-line event (a first data line and its blank line in a feed without CR: not checked), in a feed
// with a CR or after a line dropped up to its CR; incomplete lines that cannot become fields; BOMs; a CR at
// the end of a feed.
const inputs = [
  'data: 12345\n\ndata: 1\n\n',
  'data: 12345\n\ndata: 1\r\n\r\n',
  'foo\rdata: 12345\n\ndata: 1\n\n',
  'foo\r\ndata: 12345\n\ndata: 6\n\n',
  'id: 1\ndata: 12345\n\nevent: e\ndata: 123\n\n',
  'data: 12\ndata: 3\n\ndata\n\n',
  'datx: 1\nretr\ndata: 2\nreTry: 3\nid\n\n',
  '\xEF\xBB\xBFdata: a\n\n\ufeffdata: b\n\n',
  '\ufeff: c\n:\n: 123456\ndata: 1\r\ndata: 2\r\r\n'
]

t.test('inputs at every chunking, with and without a limit and onComment', async (t) => {
  for (const text of inputs) {
    for (const options of [{}, { maxBufferSize: 4 }, { maxBufferSize: 4, callbacks: ['onEvent', 'onError'] }, { end: true }]) {
      let differs = null
      let chunkings = 0
      for (const { name, cuts } of cutSets(text.length)) {
        chunkings++
        const c = { callbacks: CALLBACKS, consume: false, end: false, reentries: [], ...options, streams: [splitString(text, cuts)] }
        const actual = observe(CompactParser, c)
        const expected = observe(StringParser, c)
        if (!isDeepStrictEqual(actual, expected)) {
          differs = { name, actual, expected }
          break
        }
      }
      t.same(differs, null, `${JSON.stringify(text)} ${JSON.stringify(options)}: ${chunkings} chunkings`)
    }
  }
})

// The random cases have a few data lines an event; both parsers keep an event's data as a head and the
// rope of its last lines, moved to the head every TAIL_LINES lines (lib/parser/field-rules.js). Events of
// hundreds of lines, short and long, in feeds of several sizes, under limits around their sizes.
t.test('events of hundreds of data lines, the same as StringParser', async (t) => {
  const random = prng(46)
  const values = ['', 'x', 'y\u00e9', '\ud83d\ude00', 'z'.repeat(300), 'data'.repeat(50)]
  let text = ''
  for (const lines of [255, 256, 257, 600, 1300]) {
    for (let i = 0; i < lines; i++) text += `data:${random.pick(values)}\n`
    text += lines === 600 ? `event: e${lines}\nid: ${lines}\n\n` : '\n'
  }
  const web = await browserParser(t)
  const seen = new Set()
  for (const [name, cuts] of [['whole', []], ['16 KiB feeds', sizeCuts(text.length, 16 * 1024)], ['1-300 characters', randomCuts(text.length, prng(7), { min: 1, max: 300 })]]) {
    for (const maxBufferSize of [undefined, 20_000, 60_000, 100_000]) {
      const c = { callbacks: CALLBACKS, consume: false, end: false, reentries: [], maxBufferSize, streams: [splitString(text, cuts)] }
      const expected = observe(StringParser, c)
      for (const [kind] of expected) seen.add(kind)
      t.same(observe(CompactParser, c), expected, `${name}, maxBufferSize ${maxBufferSize}: lib/'s, the same`)
      t.same(observe(web, c), expected, 'the browser build\'s, the same')
    }
  }
  t.ok(seen.has('event') && seen.has('threw'), 'events, and overflows')
})

t.test('what the random cases exercised', async (t) => {
  // Counted on StringParser over the cases the property draws: a generator change that stopped reaching
  // the limit or the reentrant calls would make the test above weaker without failing it.
  const tally = { overflow: 0, threw: 0, 'feed from a callback': 0, reset: 0, consume: 0, event: 0, error: 0, comment: 0, retry: 0, id: 0 }
  fc.assert(fc.property(caseOf, (c) => {
    for (const [kind, , type] of observe(StringParser, { ...c, streams: chunked(c.streams) })) {
      if (kind in tally) tally[kind]++
      if (type === 'max-buffer-size-exceeded') tally.overflow++
    }
  }), { seed, numRuns: 2000 })
  for (const [kind, count] of Object.entries(tally)) t.ok(count > 50, `${kind}: ${count}`)
})

t.test('a chunk that is not a string, and a feed after an overflow: the same errors as StringParser\'s', async (t) => {
  // A browser build's messages are its short ones (lib/errors/messages-web.js): there the name and code are compared.
  for (const [Parser, seen] of [
    [CompactParser, (err) => ({ name: err.name, code: err.code, message: err.message })],
    [await browserParser(t), (err) => ({ name: err.name, code: err.code })]
  ]) {
    for (const chunk of [Buffer.from('data: x\n\n'), null, undefined, 42, ['data: x\n\n']]) {
      const errors = [StringParser, Parser].map((P) => {
        try {
          new P(validConfig({})).feed(chunk)
        } catch (err) {
          return seen(err)
        }
        return null
      })
      t.equal(errors[1]?.code, 'ERR_INVALID_ARG_TYPE', String(chunk))
      t.same(errors[1], errors[0])
    }
    const parser = new Parser(validConfig({ maxBufferSize: 3 }))
    parser.feed('data: 1234')
    t.throws(() => parser.feed('\n'), { code: 'ERR_EVENTSOURCE_PARSER_TERMINATED' })
  }
})

// Linear work, without a clock, counted as test/compat/eventsource-parser/parser-drop-in-linear.test.cjs counts it
// for StringParser (test/helpers/string-meter.cjs).
function run (feeds, config = {}) {
  const events = []
  const parser = new CompactParser(validConfig({ ...config, onEvent (event) { events.push(event.data) } }))
  const counts = meter(() => {
    for (const feed of feeds) parser.feed(feed)
  })
  return { events, counts }
}

// At most 3 per input character, the bound StringParser is held to: each is searched once for LF and once
// for CR (in its feed), a line's name for its colon, read one by one at most a few times per line, and
// copied once into its line and once into its value.
const FACTOR = 3

function linear (t, counts, length) {
  for (const what of ['searched', 'read', 'sliced', 'joined']) {
    t.ok(counts[what] <= FACTOR * length, `${what} ${counts[what]} characters for ${length}`)
  }
  t.ok(counts.appends <= length, `${counts.appends} appends`)
  t.ok(counts.longestAppendedTo <= 1024, `appended to strings of ${counts.longestAppendedTo} characters at most`)
}

t.test('a 256 KiB data line dripped in 1-7 character feeds: linear work', async (t) => {
  const value = 'x'.repeat(256 * 1024)
  const input = `data: ${value}\n\n`
  const feeds = splitString(input, randomCuts(input.length, prng(1), { min: 1, max: 7 }))
  const { events, counts } = run(feeds)
  t.same(events, [value])
  linear(t, counts, input.length)
  // Joining the incomplete line with each feed, as a naive splitter does, would copy it once per feed.
  let quadratic = 0
  let pending = 0
  for (const feed of feeds) quadratic += (pending += feed.length)
  t.ok(quadratic > 1000 * FACTOR * input.length, `pending + feed would copy ${quadratic} characters`)
})

t.test('many short events in 1-8 character feeds, and in large feeds: linear work, LF, CRLF and CR', async (t) => {
  for (const eol of ['\n', '\r\n', '\r']) {
    const parts = []
    for (let i = 0; i < 8192; i++) parts.push(`id: ${i}${eol}event: tick${eol}: c${eol}data: ${'y'.repeat(i % 40)}${eol}${eol}`)
    const input = parts.join('')
    for (const cuts of [randomCuts(input.length, prng(11), { min: 1, max: 8 }), sizeCuts(input.length, 64 * 1024)]) {
      const { events, counts } = run(splitString(input, cuts))
      t.equal(events.length, 8192, `${JSON.stringify(eol)}, ${cuts.length + 1} feeds`)
      linear(t, counts, input.length)
    }
  }
})

t.test('LF lines with one CR far ahead in the same feed: each character searched once for it', async (t) => {
  // A search for CR from each line would find the same CR again for every line before it.
  const parts = []
  for (let i = 0; i < 8192; i++) parts.push(`data: ${i}\n\n`)
  const input = parts.join('') + 'data: last\r\r'
  const { events, counts } = run([input])
  t.equal(events.length, 8193)
  t.equal(events.at(-1), 'last')
  linear(t, counts, input.length)
})

t.test('a line dripped past maxBufferSize overflows at the character that passes it, as StringParser does', async (t) => {
  const input = `data:${'x'.repeat(20_000)}`
  const overflowAt = (Parser) => {
    const errors = []
    const parser = new Parser(validConfig({ maxBufferSize: 10_000, onError (e) { errors.push(e.type) } }))
    for (let i = 0; i < input.length; i++) {
      parser.feed(input[i])
      if (errors.length !== 0) {
        t.same(errors, ['max-buffer-size-exceeded'])
        t.throws(() => parser.feed('\n'), { code: 'ERR_EVENTSOURCE_PARSER_TERMINATED' }, 'and throws until reset()')
        parser.reset()
        t.doesNotThrow(() => parser.feed('data: x\n\n'), 'but not after')
        return i
      }
    }
    return -1
  }
  t.equal(overflowAt(CompactParser), 10_000, 'the 10,001st character')
  t.equal(overflowAt(StringParser), 10_000, 'as StringParser')
  // And what is held until then is one line's pieces, joined never: the overflow drops them.
  const { counts } = run([input.slice(0, 9_000), ...input.slice(9_000, 10_001)], { maxBufferSize: 10_000, onError () {} })
  t.equal(counts.joined, 0, 'nothing joined')
})
