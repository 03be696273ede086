'use strict'

// The benchmark tables of README.md, of docs/ (performance.md, http2.md, the eventsource-parser
// migration guide) and of benchmarks/README.md are generated from the committed results
// (benchmarks/results/*.json) by benchmarks/report.mjs. This runs the generator in check mode (no
// benchmark is run): a table edited by hand, or results committed without regenerating, fail here.

const t = require('tap')
const path = require('node:path')
const { runChild } = require('../helpers/index.cjs')

const root = path.join(__dirname, '..', '..')
const report = () => import('../../benchmarks/report.mjs')

// What generate() says of each file, by FILES' keys: { readme: { path, before, after, changed }, ... }.
async function generated (options) {
  const { generate, FILES } = await report()
  const files = generate(options)
  return Object.fromEntries(Object.entries(FILES).map(([key, path]) => [key, files.find((f) => f.path === path)]))
}

t.test('the committed tables are what the committed JSON gives (npm run bench:report -- --check)', async (t) => {
  const { code, stdout } = await runChild(t, [path.join(root, 'benchmarks', 'report.mjs'), '--check'], { cwd: root }).exited(60_000)
  t.equal(code, 0, stdout)
  for (const file of ['README.md', 'docs/performance.md', 'docs/http2.md', 'docs/migrating-from-eventsource-parser.md', 'benchmarks/README.md']) {
    t.match(stdout, new RegExp(`^${file.replace(/[./]/g, '\\$&')}: up to date$`, 'm'), file)
  }
})

t.test('a figure edited by hand inside a block is reported', async (t) => {
  const { FILES } = await report()
  const fs = require('node:fs')
  const real = fs.readFileSync(FILES.performance, 'utf8')
  const start = real.indexOf('<!-- bench:readme-whole-client:start -->')
  const end = real.indexOf('<!-- bench:readme-whole-client:end -->')
  const block = real.slice(start, end)
  const figure = /\d+\.\d+ M/.exec(block)
  t.ok(figure, 'the block holds an events/s figure')
  const edited = real.slice(0, start) + block.replace(figure[0], '9.99 M') + real.slice(end)
  const files = await generated({ read: (p) => (p === FILES.performance ? edited : fs.readFileSync(p, 'utf8')) })
  t.not(files.performance.before, files.performance.after)
  t.same(files.performance.changed, ['readme-whole-client'])
  t.equal(files.performance.after, real, 'regenerating restores the committed text')
  for (const key of ['readme', 'http2', 'parserDropIn', 'benchmarks']) t.same(files[key].changed, [], key)
})

t.test('results that change make the blocks that show them differ', async (t) => {
  const { loadResults } = await report()
  const results = loadResults()
  t.ok(results.e2e.length > 0 && results.memory.length > 0 && results.parser.length > 0 && results.startup.length > 0,
    'at least one committed result file of each kind')
  const ours = results.e2e[0].json.workloads.small.clients.ours.eventsPerSecond
  ours.median *= 2
  const files = await generated({ results })
  t.same(files.readme.changed, ['readme-summary'], 'the README\'s one table')
  t.same(files.performance.changed, ['readme-whole-client'])
  t.same(files.benchmarks.changed, ['e2e'])
})

t.test('the string form of each parser run is in both files', async (t) => {
  const { loadResults } = await report()
  const results = loadResults()
  const run = results.parser.find((r) => r.json.stringSummary?.length > 0)
  t.ok(run, 'a committed parser run with the string form')
  run.json.stringSummary[0].ratio *= 2
  const files = await generated({ results })
  t.same(files.parserDropIn.changed, ['readme-parser-drop-in'])
  t.same(files.benchmarks.changed, ['parser'])
  t.same(files.readme.changed, [], 'the README shows the parser, not the drop-in')
})

t.test('the floor of a spec-exact EventSource follows the hot path of each e2e run', async (t) => {
  const { loadResults } = await report()
  const results = loadResults()
  const run = results.e2e.find((r) => r.json.hotPath?.perEvent['EventTarget: dispatchEvent(new MessageEvent(...))'])
  t.ok(run, 'a committed e2e run with a hot path')
  run.json.hotPath.perEvent['EventTarget: dispatchEvent(new MessageEvent(...))'].p50Ns *= 2
  const files = await generated({ results })
  t.same(files.benchmarks.changed, ['floor'], 'the floor table (the hot-path figures themselves stay in the JSON)')
  t.same(files.performance.changed, ['readme-whole-client'], 'the floor line under the whole-client table')
})

t.test('every run is listed under its table, with its note', async (t) => {
  const { renderBlocks, loadResults } = await report()
  const results = loadResults()
  results.parser[0].json.note = 'a note for the test'
  const blocks = renderBlocks(results)
  for (const kind of ['parser', 'e2e', 'memory', 'startup', 'server']) {
    for (const run of results[kind]) {
      t.match(blocks.benchmarks[kind], `- \`results/${run.file}\`, `, `${kind}: ${run.file} is listed`)
      // (Its paragraph may be cut into lines.)
      if (run.json.note) t.match(blocks.benchmarks[kind].replace(/\s+/g, ' '), run.json.note, `${kind}: ${run.file}'s note is printed`)
    }
  }
  for (const run of [...results.memoryTls, ...results.e2eTls]) t.match(blocks.benchmarks.tls, `- \`results/${run.file}\`, `, `tls: ${run.file} is listed`)
  // A note that not every run shares is printed on its own run's line.
  t.match(blocks.benchmarks.parser, `- \`results/${results.parser[0].file}\`, `)
  t.match(blocks.benchmarks.parser.replace(/\s+/g, ' '), /\. Note: a note for the test\./)
  t.match(blocks.performance['readme-parser'], `> Note (Node ${results.parser[0].json.node}): a note for the test.`)
})

t.test('the Redis backplane\'s tables follow its runs', async (t) => {
  const { loadResults, renderBlocks } = await report()
  const results = loadResults()
  t.ok(results.serverRedis.length > 0, 'a committed run of benchmarks/server-redis/run.mjs')
  const before = renderBlocks(results).serverRedis['server-redis']
  for (const run of results.serverRedis) t.match(before, `- \`results/${run.file}\`, `, `${run.file} is listed`)
  const run = results.serverRedis[0].json
  t.match(before, `| ${run.node} | three processes, a RedisChannel |`)
  run.redis3.throughput.deliveriesPerSecond *= 2
  const after = renderBlocks(results).serverRedis['server-redis']
  const ratioRow = (block) => block.split('\n').find((line) => /^\| v[\d.]+ \| [\d.]+x/.test(line))
  t.not(ratioRow(after), ratioRow(before), 'the ratio to one process follows the deliveries')
  const files = await generated({ results })
  t.same(files.serverRedis.changed, ['server-redis'])
  t.same(files.benchmarks.changed, [], 'benchmarks/README.md has no Redis figure')
})

// The cells of one row of a generated table, by the start of its first cell: [label, ...one per column].
function row (block, label) {
  const line = block.split('\n').find((l) => l.startsWith(`| ${label}`))
  return line === undefined ? null : line.split(' | ').map((c) => c.replace(/^\| |\s*\|$/g, '').trim())
}

// The column of a Node version in a summary table of benchmarks/README.md.
function column (block, node) {
  const header = block.split('\n').find((l) => l.startsWith('| ') && l.includes('| Node v'))
  return header.split(' | ').map((c) => c.replace(/^\| |\s*\|$/g, '').trim()).indexOf(`Node ${node}`)
}

t.test('benchmarks/README.md: one summary table per benchmark, a column per Node version', async (t) => {
  const { renderBlocks, loadResults } = await report()
  const results = loadResults()
  const blocks = renderBlocks(results).benchmarks
  const versions = {
    parser: results.parser.map((r) => r.json.node),
    e2e: results.e2e.map((r) => r.json.environment.node),
    memory: results.memory.map((r) => r.json.environment.node),
    startup: results.startup.map((r) => r.json.environment.node),
    server: results.server.map((r) => r.json.environment.node),
    tls: [...new Set([...results.memoryTls, ...results.e2eTls].map((r) => r.json.environment.node))]
  }
  versions['parser-strings'] = versions.parser
  for (const [name, nodes] of Object.entries(versions)) {
    const headers = blocks[name].split('\n').filter((l, i, all) => l.startsWith('| ') && all[i + 1]?.startsWith('| --'))
    t.equal(headers.length, 1, `${name}: one table`)
    t.same(headers[0].split(' | ').slice(1).map((c) => c.replace(/\s*\|$/, '')), nodes.map((n) => `Node ${n}`), `${name}: a column per Node version`)
    t.notMatch(blocks[name], /^#/m, `${name}: no heading per run`)
  }
})

t.test('a missing marker is an error, not a silently stale table', async (t) => {
  const { generate, FILES } = await report()
  const fs = require('node:fs')
  const read = (p) => {
    const text = fs.readFileSync(p, 'utf8')
    return p === FILES.benchmarks ? text.replace('<!-- bench:startup:end -->', '') : text
  }
  t.throws(() => generate({ read }), /bench:startup:start/)
})

t.test('the e2e targets are issue 28\'s, per Node, and issue 48\'s batch path', async (t) => {
  const { E2E_TARGETS, NODE20_BASELINE } = await import('../../benchmarks/e2e/targets.mjs')
  t.same(E2E_TARGETS.map((x) => [x.id, x.subject ?? 'ours', x.workload, x.phase, x.peers, x.goal, x.nodes]), [
    ['undici', 'ours', 'small', 'warm', ['undici', 'undici8', 'node'], 3.5, [22, 24, 26]],
    ['eventsource', 'ours', 'small', 'warm', ['eventsource', 'eventsource5'], 3, [22, 24, 26]],
    ['node20', 'ours', 'small', 'warm', [], 1, [20]],
    ['batch', 'ours+batch', 'small', 'warm', ['ours'], 2, [22, 24, 26]]
  ])
  t.equal(E2E_TARGETS[2].baseline, NODE20_BASELINE)
  t.equal(NODE20_BASELINE.file, 'e2e-v20.20.2.json')
})

// A run of Node 22 or later whose file holds the new peers: undici 8 faster than undici 7 (0.65x ours
// in the committed Node 24 run) and Node's own, eventsource 5 slower than eventsource 4. Warm figures per process, so the ranges can be checked.
async function withNewPeers () {
  const { loadResults } = await report()
  const results = loadResults()
  const run = results.e2e.find((r) => r.json.environment.node.startsWith('v24.'))
  const w = run.json.workloads.small
  const ours = w.clients.ours.warm.eventsPerSecond.median
  // Over all timed runs too: a run's median of them need not be its warm one.
  const oursAll = w.clients.ours.eventsPerSecond.median
  const peer = (id, label, factor) => {
    const value = ours * factor
    const all = oursAll * factor
    run.json.clients[id] = label
    w.clients[id] = {
      label,
      verified: true,
      eventsPerSecond: { median: all, min: all, max: all },
      warm: { eventsPerSecond: { median: value, min: value, max: value } },
      // Each process at the same fraction of ours' process of the same round: one per-round ratio.
      processes: w.clients.ours.processes.map((p) => ({ round: p.round, warm: { eventsPerSecond: p.warm.eventsPerSecond * factor } }))
    }
  }
  peer('undici8', 'undici@8.12.4 EventSource', 0.8) // ours ÷ this = 1.25
  peer('node', `Node ${run.json.environment.node} EventSource`, 0.2)
  peer('eventsource5', 'eventsource@5.1.5', 0.1)
  return { results, run }
}

t.test('the faster of the target\'s peers sets each ratio, the new peers included', async (t) => {
  const { renderBlocks } = await report()
  const { results, run } = await withNewPeers()
  const blocks = renderBlocks(results)
  const node = run.json.environment.node
  const e2e = blocks.benchmarks.e2e
  const at = column(e2e, node)
  // undici 8 (0.8x ours) is the fastest of undici 7, undici 8 and Node's own: 1.25x, missed.
  t.equal(row(e2e, 'target: >= 3.5x the faster of undici 7, undici 8, Node\'s own')[at], '1.25x vs undici 8: **MISSED**')
  t.equal(row(e2e, 'small: ours ÷ undici 8')[at], '1.25x (1.25x)', 'ours ÷ undici 8, with its one per-round ratio')
  // eventsource 4 stays the faster of the two eventsource packages: its ratio is unchanged (MISSED in the committed run).
  t.match(row(e2e, 'target: >= 3x the faster of eventsource 4, eventsource 5')[at], / vs eventsource 4: /)
  t.equal(row(e2e, 'target: >= 1x ours in')[at], 'n/a', 'the Node 20 baseline is no target on Node 24')
  const byNode = blocks.performance['readme-whole-client']
  const line = byNode.split('\n').find((l) => l.startsWith(`| ${node}`))
  t.match(line, /1\.25x vs undici 8: \*\*MISSED\*\*/)
  t.notMatch(line, /\| +- +\| +- +\|/, 'the new peers have figures in their row')
})

t.test('files without the new peers show "-" and the targets that are not one on a Node say so', async (t) => {
  const { renderBlocks, loadResults } = await report()
  const blocks = renderBlocks(loadResults())
  const byNode = blocks.performance['readme-whole-client']
  t.match(byNode, /\| Node +\| +ours \| undici 7 \| undici 8 \| Node's own \| eventsource 4 \| eventsource 5 \|/)
  const v20 = byNode.split('\n').find((l) => l.startsWith('| v20.'))
  const cells = v20.split('|').map((c) => c.trim())
  t.equal(cells[4], '-', 'undici 8: not in the Node 20 file')
  t.equal(cells[7], '-', 'eventsource 5: not in the Node 20 file')
  t.match(cells[8], /not a target$/, 'the 3.5x target is no target on Node 20')
  t.match(cells[10], /^\d\.\d\dx: (met|\*\*MISSED\*\*)$/, 'the Node 20 baseline is one')
  const v22 = byNode.split('\n').find((l) => l.startsWith('| v22.'))
  t.equal(v22.split('|').map((c) => c.trim())[10], '', 'the Node 20 baseline is left empty on Node 22')
  // A peer outside a Node's engines range is named with the reason, and "-" in its column.
  const e2e = blocks.benchmarks.e2e.replace(/\n(?!\n|\||- |<!--)/g, ' ')
  t.match(e2e, /Not measured: on v20\.[^,]*, undici 8 EventSource \(needs Node >=22\.19\.0 \(its engines field\), this is v20\.[^)]*\); eventsource 5 \(needs Node/)
  const at = column(blocks.benchmarks.e2e, cells[1])
  t.equal(row(blocks.benchmarks.e2e, 'small: ours ÷ undici 8')[at], '-')
  t.equal(row(blocks.benchmarks.e2e, 'small: ours ÷ eventsource 5')[at], '-')
})

t.test('the parser tables: a row per fixture, per peer of issue 28 and per target', async (t) => {
  const { renderBlocks, loadResults } = await report()
  const { PARSER_TARGETS, targetMet } = await import('../../benchmarks/parser-targets.mjs')
  const results = loadResults()
  const blocks = renderBlocks(results)
  const parser = blocks.benchmarks.parser
  for (const peer of ['undici 7 EventSourceStream', 'undici 8 EventSourceStream', 'eventsource-parser 4']) {
    t.match(row(parser, `all fixtures: ours ÷ ${peer}`)?.slice(1).join(' '), /^(\d\.\d\dx \(\d\.\d\dx–\d\.\d\dx\) ?)+$/, `ours ÷ ${peer}: median (range) over the fixtures`)
  }
  // A file from before undici 8 was a peer (as the Node 22 file would be without it) shows "-" for it.
  const older = loadResults()
  const v22run = older.parser.find((r) => r.json.node.startsWith('v22.'))
  for (const fixture of v22run.json.summary) {
    for (const name of Object.keys(fixture.peers)) if (name.startsWith('undici@8')) delete fixture.peers[name]
  }
  const olderBlocks = renderBlocks(older)
  t.equal(row(olderBlocks.benchmarks.parser, 'all fixtures: ours ÷ undici 8')[column(olderBlocks.benchmarks.parser, v22run.json.node)], '-')
  t.match(olderBlocks.performance['readme-parser'], /\| peers measured +\|[^\n]*\| +undici 7 EventSourceStream, -, eventsource-parser 4 \|/)
  // On Node 24 a fixture at exactly 1x the fastest peer misses both targets; at 0.5x it meets both.
  const run = results.parser.find((r) => r.json.node.startsWith('v24.'))
  const [first, second] = run.json.summary
  first.ratio = 1
  second.ratio = 0.5
  const section = renderBlocks(results).benchmarks.parser
  const v24 = column(section, run.json.node)
  t.match(row(section, first.fixture)[v24], /^1\.00x /)
  t.match(row(section, second.fixture)[v24], /^0\.50x /)
  const met = (target) => run.json.summary.filter((r) => targetMet(target, r.ratio)).length
  t.equal(row(section, `target: ${PARSER_TARGETS[0].what}`)[v24], `${met(PARSER_TARGETS[0])} of 16: **MISSED**`, 'the fixture at 1x misses')
  t.equal(row(section, `target: ${PARSER_TARGETS[1].what}`)[v24], `${met(PARSER_TARGETS[1])} of 16: **MISSED**`)
  t.ok(run.json.summary.filter((r) => targetMet(PARSER_TARGETS[1], r.ratio)).includes(second), 'the fixture at 0.5x meets 0.5x')
  // On Node 20 the 0.5x target is none.
  const v20 = results.parser.find((r) => r.json.node.startsWith('v20.'))
  t.match(row(section, `target: ${PARSER_TARGETS[1].what}`)[column(section, v20.json.node)], /^\d+ of 16 \(not a target\)$/)
  t.match(blocks.performance['readme-parser'], /\| at most 0\.5x the fastest peer \(Node 24, 26\) \| +\d+ of 16 fixtures \(not a target\) \|/)
  t.match(blocks.performance['readme-parser'], /\| peers measured +\| +undici 7 EventSourceStream, undici 8 EventSourceStream, eventsource-parser 4 \|/)
})

t.test('the memory targets are issue 28\'s: 0.3x undici 7\'s heap; 4 KiB heap and 12 KiB RSS over h2, with the floor', async (t) => {
  const { renderBlocks, loadResults } = await report()
  const blocks = renderBlocks(loadResults())
  const memory = blocks.benchmarks.memory
  for (const count of ['1,000', '5,000']) {
    t.match(row(memory, `target, ${count} open: heap <= 0.3x undici 7's`).slice(1).join(' | '), /^(\d\.\d\dx: (met|\*\*MISSED\*\*)( \| )?)+$/, `the target at ${count}`)
  }
  // ours+agent beside it, as information: no target row of its own.
  t.match(row(memory, '5,000 open: ours ÷ ours on undici\'s Agent, heap')[1], /^\d\.\d\dx \(/)
  t.notMatch(memory, /^\| target[^|\n]*open all/m, 'no time-to-open target')
  const tls = blocks.benchmarks.tls
  t.match(row(tls, 'h2, 10,000 idle: floor, heap per source')[1], /^2\.\d\d KiB /)
  t.match(row(tls, 'h2, 10,000 idle, target: heap <= 4 KiB')[1], /^\d+\.\d\d KiB: (met|\*\*MISSED\*\*)$/)
  t.match(row(tls, 'h2, 10,000 idle, target: RSS <= 12 KiB')[1], /^\d+\.\d\d KiB: (met|\*\*MISSED\*\*)$/)
  t.notMatch(blocks.http2['readme-http2'], /2000 ms/, 'no time-to-open target')
})

t.test('each summary of benchmarks/README.md follows its JSON', async (t) => {
  const { generate, loadResults, RESULTS_DIR } = await report()
  const changed = (results, dir) => generate({ results, dir }).find((f) => f.path.endsWith('benchmarks/README.md')).changed
  let results = loadResults()
  results.startup[0].json.results.ours.parentMs.median *= 2
  t.same(changed(results), ['startup'])
  results = loadResults()
  results.memory[0].json.counts[Object.keys(results.memory[0].json.counts).at(-1)].clients.ours.heapUsedPerConnection.median *= 2
  t.same(changed(results), ['memory'])
  results = loadResults()
  results.memoryTls[0].json.counts['10000'].clients['h2:ours'].rssPerConnection.median *= 2
  t.same(changed(results), ['tls'])
  results = loadResults()
  results.size[0].json.rows[0].gzipped += 1
  t.same(changed(results), ['size'])
  // The drop-in on strings is read from its directory: a copy with one shape's ratio changed.
  const fs = require('node:fs')
  const os = require('node:os')
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-report-'))
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
  for (const file of fs.readdirSync(RESULTS_DIR)) fs.copyFileSync(path.join(RESULTS_DIR, file), path.join(dir, file))
  const file = fs.readdirSync(dir).find((f) => f.startsWith('parser-strings-'))
  const json = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'))
  json.summary[0].ratios[json.peers[0]].ratio = 9
  fs.writeFileSync(path.join(dir, file), JSON.stringify(json))
  t.same(changed(loadResults(dir), dir), ['parser-strings'])
})

t.test('the README\'s one table: each measure per client and Node version, medians', async (t) => {
  const { renderBlocks, loadResults } = await report()
  const results = loadResults()
  const block = renderBlocks(results).readme['readme-summary']
  for (const run of results.e2e) t.match(block, `Node ${run.json.environment.node}`)
  const small = results.e2e.at(-1)
  const ours = small.json.workloads.small.clients.ours
  t.match(block, small.json.clients.ours)
  const { fmtRate } = await import('../../benchmarks/report/format.mjs')
  t.match(block, new RegExp(`${small.json.workloads.small.title}, events/s +\\| +${small.json.clients.ours} \\|[^\\n]* ${fmtRate(ours.eventsPerSecond.median)} \\|`), 'our median, in its row')
  t.match(block, /heap per idle connection/)
  t.match(block, /from spawn to the first event/)
  t.match(block, /parser time ÷/)
  // Without startup results, no startup row, and a Node version without a kind of result reads n/a.
  const fewer = { ...results, startup: [], parser: results.parser.slice(0, 1) }
  const partial = renderBlocks(fewer).readme['readme-summary']
  t.notMatch(partial, /from spawn/)
  t.match(partial, /parser time ÷[^\n]*n\/a/)
})

t.test('the serving table follows its JSON, with issue 49\'s targets', async (t) => {
  const { generate, renderBlocks, loadResults } = await report()
  const changed = (results) => generate({ results }).find((f) => f.path.endsWith('benchmarks/README.md')).changed
  const results = loadResults()
  t.ok(results.server.length > 0, 'a committed results/server-<node>.json')
  const run = results.server[0]
  const block = renderBlocks(results).benchmarks.server
  const at = column(block, run.json.environment.node)
  const { SERVER_TARGETS } = await import('../../benchmarks/server/targets.mjs')
  for (const target of SERVER_TARGETS) {
    t.match(row(block, `target: ${target.what}`)?.[at], /^-?\d+\.\d\d(x| KiB| MiB)[^|]*: (met|\*\*MISSED\*\*)$/, target.id)
  }
  // The fan-out's 5x over the best peer: ours' rate halved changes that row and the status where it crosses 5x.
  const fanout = run.json.fanout['20']
  const best = Math.max(...run.json.peers.map((id) => fanout[id].deliveriesPerSecond.median))
  fanout.ours.deliveriesPerSecond.median = best * 4
  const missed = renderBlocks(results).benchmarks.server
  t.match(row(missed, 'target: 20 per tick: ours ÷ the best peer >= 5x')[at], /^4\.00x vs [^:]+: \*\*MISSED\*\*$/)
  t.same(changed(results), ['server'])
  // A failed server reads FAILED in its rows, not a figure.
  const again = loadResults()
  again.server[0].json.idle['10000'].hono.verified = false
  t.equal(row(renderBlocks(again).benchmarks.server, '10,000 idle: ours ÷ hono, heap')[at], 'FAILED')
})
