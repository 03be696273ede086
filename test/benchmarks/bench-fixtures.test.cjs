'use strict'

// The benchmark fixtures (benchmarks/fixtures.mjs) parsed by our parser: the event count and a content
// digest must match, so a parser that is fast because it is wrong cannot win the benchmark. The
// digests are pinned here as well, so a change to a fixture builder shows up as a failing test rather
// than as a silently different workload.

const t = require('tap')
const { parseAll } = require('../helpers/index.cjs')

// name → events, retry values, total stream bytes, chunks, sha256 of the expected output (digest()).
const EVENTS_250 = 'e7decc8243c751283de1cc9f94d6fbe1f1d0c77f8b3d099d5b2a7f9e08a7f25d'
const pinned = {
  '250 events, single chunk': { events: 250, retries: 250, bytes: 44890, chunks: 1, digest: EVENTS_250 },
  '250 events, 256-byte chunks': { events: 250, retries: 250, bytes: 44890, chunks: 176, digest: EVENTS_250 },
  '250 events, 64-byte chunks': { events: 250, retries: 250, bytes: 44890, chunks: 702, digest: EVENTS_250 },
  '250 events, 8-byte chunks': { events: 250, retries: 250, bytes: 44890, chunks: 5612, digest: EVENTS_250 },
  '250 events, 1-byte chunks': { events: 250, retries: 250, bytes: 44890, chunks: 44890, digest: EVENTS_250 },
  '250 events, BOM + 8-byte chunks': { events: 250, retries: 250, bytes: 44893, chunks: 5612, digest: EVENTS_250 },
  '250 events, BOM + 1-byte chunks': { events: 250, retries: 250, bytes: 44893, chunks: 44893, digest: EVENTS_250 },
  '256 KiB line, 1-8-byte slices': { events: 1, retries: 0, bytes: 262152, chunks: 58362, digest: '6ed71805f983f0d467a2ba26f1042dce52bf8a28dab14db7dab9cc096d33df5f' },
  '10,000 tiny events, single chunk': { events: 10000, retries: 0, bytes: 90000, chunks: 1, digest: 'd790522b735498d85ad2bf61189a6b1719513cc76d12f54ad6ca8d759757e836' },
  '5,000 LLM-token events, 1 per chunk': { events: 5000, retries: 0, bytes: 245000, chunks: 5000, digest: '6fa21d28631d2b09e74b5d3fda3d401e0136287f1d201ed49bf990960d40eb11' },
  '250 events CRLF, 64-byte chunks': { events: 250, retries: 250, bytes: 46390, chunks: 725, digest: EVENTS_250 },
  '250 events CRLF, 1-byte chunks': { events: 250, retries: 250, bytes: 46390, chunks: 46390, digest: EVENTS_250 },
  '250 events CR, 64-byte chunks': { events: 250, retries: 250, bytes: 44890, chunks: 702, digest: EVENTS_250 },
  '250 events CR, 1-byte chunks': { events: 250, retries: 250, bytes: 44890, chunks: 44890, digest: EVENTS_250 },
  '1 MiB event, 64 KiB chunks': { events: 1, retries: 0, bytes: 1048604, chunks: 17, digest: '6b5b18590aa72102a747d17062cbd16b9711c943affbbc984a4f44142787af70' },
  'UTF-8 text, 7-byte chunks': { events: 200, retries: 0, bytes: 33155, chunks: 4737, digest: '8dbf6d2448681b331862b66fd5069a9944120af6c467ee6b0fdbcceffe12b363' }
}

/** The events and retry values our parser reports for `chunks`, in the shape the digest takes. */
function parse (chunks) {
  const records = parseAll(chunks)
  return {
    events: records.filter((r) => r[0] === 'event').map(([, type, data, lastEventId]) => ({ type, data, lastEventId })),
    retries: records.filter((r) => r[0] === 'retry').map(([, ms]) => ms)
  }
}

t.test('benchmark fixtures', async (t) => {
  const { buildFixtures, digest } = await import('../../benchmarks/fixtures.mjs')
  const fixtures = buildFixtures()
  t.same(fixtures.map((f) => f.name), Object.keys(pinned), 'the benchmark runs exactly the pinned fixtures')

  for (const f of fixtures) {
    t.test(f.name, async (t) => {
      const want = pinned[f.name]
      t.ok(f.chunks.every((c) => c instanceof Uint8Array && c.length > 0), 'non-empty Uint8Array chunks')
      t.equal(f.chunks.length, want.chunks, 'chunk count')
      t.equal(f.bytes, want.bytes, 'stream bytes')
      t.equal(f.events.length, want.events, 'model: event count')
      t.equal(f.retries.length, want.retries, 'model: retry count')
      t.equal(digest(f.events, f.retries), want.digest, 'model: digest')

      const got = parse(f.chunks)
      t.equal(got.events.length, want.events, 'parser: event count')
      t.equal(got.retries.length, want.retries, 'parser: retry count')
      t.equal(digest(got.events, got.retries), want.digest, 'parser: digest')
      // On a mismatch, show the first differing event rather than two hashes.
      if (digest(got.events, got.retries) !== want.digest) t.same(got.events, f.events)
    })
  }
})

t.test('the digest sees type, data, id, order and retries', async (t) => {
  const { digest } = await import('../../benchmarks/fixtures.mjs')
  const a = { type: 'message', data: 'x', lastEventId: '1' }
  const b = { type: 'message', data: 'y', lastEventId: '2' }
  const base = digest([a, b], [1000])
  t.not(digest([b, a], [1000]), base, 'order')
  t.not(digest([{ ...a, type: 'other' }, b], [1000]), base, 'type')
  t.not(digest([{ ...a, data: 'x\n' }, b], [1000]), base, 'data')
  t.not(digest([{ ...a, lastEventId: '' }, b], [1000]), base, 'lastEventId')
  t.not(digest([a, b], [1001]), base, 'retry value')
  t.not(digest([a, b], []), base, 'retry count')
  t.not(digest([a], [1000]), base, 'event count')
})

// The parser benchmark times ours against every peer issue 28 names, each fed as
// benchmarks/parser-peers.mjs feeds it: every one must load on this Node and give each fixture's model
// events (and retry values), or the benchmark's verification would report it instead of timing it.
t.test('every parser the benchmark times gives every fixture\'s events', async (t) => {
  const { buildFixtures, digest } = await import('../../benchmarks/fixtures.mjs')
  const { PARSER_PEERS, peerInfo, byteImplementations, stringImplementations, toStrings } =
    await import('../../benchmarks/parser-peers.mjs')
  t.same(PARSER_PEERS, ['undici7', 'undici8', 'eventsource-parser'], 'the peers of issue 28')
  t.same(PARSER_PEERS.map((id) => peerInfo(id).name.replace(/@\d+\.\d+\.\d+/, (v) => v.split('.')[0])),
    ['undici@7 EventSourceStream', 'undici@8 EventSourceStream', 'eventsource-parser@4'], 'their packages and majors')
  const bytes = await byteImplementations({ keepAlive: false })
  const strings = await stringImplementations({ keepAlive: false })
  t.same(bytes.map((i) => i.id), ['ours', ...PARSER_PEERS])
  t.same(strings.map((i) => i.id), ['drop-in', 'eventsource-parser'])
  for (const f of buildFixtures()) {
    const want = digest(f.events, f.retries)
    const input = toStrings(f.chunks)
    for (const [impl, chunks] of [...bytes.map((i) => [i, f.chunks]), ...strings.map((i) => [i, input])]) {
      const got = impl.collect(chunks)
      t.equal(digest(got.events, got.retries), want, `${impl.name}: ${f.name}`)
      t.equal(impl.count(chunks), f.events.length, `${impl.name}: ${f.name}, the timed form's count`)
    }
  }
})
