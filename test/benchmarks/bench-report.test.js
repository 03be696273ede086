'use strict'

// The benchmark tables of README.md, of docs/ (performance.md, http2.md, the eventsource-parser
// migration guide) and of benchmarks/README.md are generated from the committed results
// (benchmarks/results/*.json) by benchmarks/report.mjs. This runs the generator in check mode (no
// benchmark is run): a table edited by hand, or results committed without regenerating, fail here.

const t = require('tap')
const path = require('node:path')
const { runChild } = require('../helpers')

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
  t.same(files.benchmarks.changed, ['e2e', 'floor'], 'the hot-path table and the floor table')
  t.same(files.performance.changed, ['readme-whole-client'], 'the floor line under the whole-client table')
})

t.test('every run names its Node version and its note', async (t) => {
  const { renderBlocks, loadResults } = await report()
  const results = loadResults()
  results.parser[0].json.note = 'a note for the test'
  const blocks = renderBlocks(results)
  for (const kind of ['parser', 'e2e', 'memory', 'startup']) {
    for (const run of results[kind]) {
      const node = run.json.node ?? run.json.environment.node
      t.match(blocks.benchmarks[kind], `**Node ${node}**`, `${kind}: ${run.file} is headed with its Node version`)
      if (run.json.note) t.match(blocks.benchmarks[kind], `> Note: ${run.json.note}.`, `${kind}: ${run.file}'s note is printed`)
    }
  }
  t.match(blocks.performance['readme-parser'], `> Note (Node ${results.parser[0].json.node}): a note for the test.`)
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

t.test('the e2e targets are issue 28\'s, per Node', async (t) => {
  const { E2E_TARGETS, NODE20_BASELINE } = await import('../../benchmarks/e2e/targets.mjs')
  t.same(E2E_TARGETS.map((x) => [x.id, x.workload, x.phase, x.peers, x.goal, x.nodes]), [
    ['undici', 'small', 'warm', ['undici', 'undici8', 'node'], 3.5, [22, 24, 26]],
    ['eventsource', 'small', 'warm', ['eventsource', 'eventsource5'], 3, [22, 24, 26]],
    ['node20', 'small', 'warm', [], 1, [20]]
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
  const peer = (id, label, factor) => {
    const value = ours * factor
    run.json.clients[id] = label
    w.clients[id] = {
      label,
      verified: true,
      eventsPerSecond: { median: value, min: value, max: value },
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
  const section = blocks.benchmarks.e2e.slice(blocks.benchmarks.e2e.indexOf(`#### Throughput, Node ${node}`))
  const targets = section.slice(section.indexOf('**Targets (issue 28):**'), section.indexOf('#### Throughput', 10))
  // undici 8 (0.8x ours) is the fastest of undici 7, undici 8 and Node's own: 1.25x, missed.
  t.match(targets, /ours ÷ the faster of undici 7, undici 8 and Node's own EventSource \|[^\n]*\| +undici 8 \| +1\.25x \(per round 1\.25x\) \| >= 3\.5x \(Node 22, 24, 26\) \| +\*\*MISSED\*\* \|/)
  // eventsource 4 stays the faster of the two eventsource packages: its ratio is unchanged (MISSED in the committed run).
  t.match(targets, /ours ÷ the faster of the eventsource package 4 and 5 +\|[^\n]*\| +eventsource 4 \|/)
  t.notMatch(targets, /committed Node 20/, 'the Node 20 baseline is no target row on Node 24')
  const byNode = blocks.performance['readme-whole-client']
  const row = byNode.split('\n').find((l) => l.startsWith(`| ${node}`))
  t.match(row, /1\.25x vs undici 8: \*\*MISSED\*\*/)
  t.notMatch(row, /\| +- +\| +- +\|/, 'the new peers have figures in their row')
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
  // A peer outside a Node's engines range is named with the reason.
  t.match(blocks.benchmarks.e2e, /Not measured in this run: undici 8 EventSource \(needs Node >=22\.19\.0 \(its engines field\), this is v20\.[^)]*\); eventsource 5 \(needs Node/)
})

t.test('the parser tables have a column per peer of issue 28 and one per target', async (t) => {
  const { renderBlocks, loadResults } = await report()
  const results = loadResults()
  const blocks = renderBlocks(results)
  t.match(blocks.benchmarks.parser, /\| +ours p50 \| undici 7 EventSourceStream p50 \| undici 8 EventSourceStream p50 \| +eventsource-parser 4 p50 \| +fastest peer \| +ratio \| target: < 1 \(every Node\) \| target: <= 0\.5 \(Node 24, 26\) \|/)
  // A file from before undici 8 was a peer (as the Node 22 file would be without it) shows "-" for it.
  const older = loadResults()
  const v22run = older.parser.find((r) => r.json.node.startsWith('v22.'))
  for (const row of v22run.json.summary) {
    for (const name of Object.keys(row.peers)) if (name.startsWith('undici@8')) delete row.peers[name]
  }
  const olderBlocks = renderBlocks(older)
  t.match(olderBlocks.benchmarks.parser, /not in this file \("-"\): undici 8 EventSourceStream/)
  t.match(olderBlocks.performance['readme-parser'], /\| peers measured +\|[^\n]*\| +undici 7 EventSourceStream, -, eventsource-parser 4 \|/)
  // On Node 24 a fixture at exactly 1x the fastest peer misses both targets; at 0.5x it meets both.
  const run = results.parser.find((r) => r.json.node.startsWith('v24.'))
  const [first, second] = run.json.summary
  first.ratio = 1
  second.ratio = 0.5
  const section = renderBlocks(results).benchmarks.parser
  const v24 = section.slice(section.indexOf(`#### Parser, Node ${run.json.node}`))
  t.match(v24, new RegExp(`\\| ${first.fixture} [^\\n]*\\| +1\\.00x [^|]*\\| +\\*\\*MISSED\\*\\* \\| +\\*\\*MISSED\\*\\* \\|`))
  t.match(v24, new RegExp(`\\| ${second.fixture} [^\\n]*\\| +0\\.50x [^|]*\\| +met \\| +met \\|`))
  // On Node 20 the 0.5x target is none.
  const v20 = section.slice(section.indexOf('#### Parser, Node v20'), section.indexOf('#### Parser, Node v22'))
  t.notMatch(v20, /\| +(met|\*\*MISSED\*\*) \|\n/, 'no status in the 0.5x column on Node 20')
  t.match(blocks.performance['readme-parser'], /\| at most 0\.5x the fastest peer \(Node 24, 26\) \| +\d+ of 16 fixtures \(not a target\) \|/)
  t.match(blocks.performance['readme-parser'], /\| peers measured +\| +undici 7 EventSourceStream, undici 8 EventSourceStream, eventsource-parser 4 \|/)
})

t.test('the memory targets are issue 28\'s: 0.3x undici 7\'s heap; 4 KiB heap and 12 KiB RSS over h2, with the floor', async (t) => {
  const { renderBlocks, loadResults } = await report()
  const blocks = renderBlocks(loadResults())
  t.match(blocks.benchmarks.memory, /\| idle heap per connection: ours ÷ undici 7 EventSource, 5,000 open +\| [^|]+\| <= 0\.3x \|/)
  // ours+agent beside it, as information: no goal, no status.
  t.match(blocks.benchmarks.memory, /\| \(information\) the same with ours on the undici package's Agent, 5,000 open \| +\d\.\d\dx [^|]+\| +- \| +- \|/)
  t.notMatch(blocks.benchmarks.memory, /0\.6x/, 'no time-to-open target')
  t.match(blocks.benchmarks.tls, /\| target \(ours, issue 28\) +\| +median \(range\) \| +floor: node:http2 stream \| +goal \| +status \|/)
  t.match(blocks.benchmarks.tls, /\| heap per idle source, 10,000 sources over h2 \| [^|]+\| +2\.\d\d KiB [^|]*\| +<= 4 KiB \|/)
  t.match(blocks.benchmarks.tls, /\| RSS per idle source, 10,000 sources over h2 +\| [^|]+\| +\d+\.\d\d KiB [^|]*\| +<= 12 KiB \|/)
  t.notMatch(blocks.http2['readme-http2'], /2000 ms/, 'no time-to-open target')
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
