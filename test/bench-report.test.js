'use strict'

// The benchmark tables of README.md, of docs/ (performance.md, http2.md, the eventsource-parser
// migration guide) and of benchmarks/README.md are generated from the committed results
// (benchmarks/results/*.json) by benchmarks/report.mjs. This runs the generator in check mode (no
// benchmark is run): a table edited by hand, or results committed without regenerating, fail here.

const t = require('tap')
const path = require('node:path')
const { runChild } = require('./helpers')

const root = path.join(__dirname, '..')
const report = () => import('../benchmarks/report.mjs')

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

t.test('the e2e targets are the issue\'s, and a cold target reads the cold figures', async (t) => {
  const { renderBlocks, loadResults } = await report()
  const { E2E_TARGETS } = await import('../benchmarks/e2e/targets.mjs')
  t.same(E2E_TARGETS.map((x) => [x.phase, x.peer, x.goal]), [
    ['warm', 'undici', 3], ['warm', 'eventsource', 2], ['warm', 'floor', 0.4], ['cold', 'eventsource', 1.5], ['all', 'undici', 3]
  ])
  const results = loadResults()
  const run = results.e2e.find((r) => r.json.workloads.small.clients.ours.cold)
  t.ok(run, 'a committed e2e run with cold figures')
  const cold = run.json.workloads.small.clients.ours.cold.eventsPerSecond
  const peer = run.json.workloads.small.clients.eventsource.cold.eventsPerSecond.median
  // Ours cold at exactly 1.5x the eventsource package's: the target is met, whatever warm says.
  cold.median = 1.5 * peer
  const block = renderBlocks(results).benchmarks.e2e
  t.match(block, /cold small events\/s: ours ÷ eventsource package \| +1\.50x[^|]*\| +>= 1\.5x \| +met \|/)
})

t.test('the README\'s one table: each measure per client and Node version, medians', async (t) => {
  const { renderBlocks, loadResults } = await report()
  const results = loadResults()
  const block = renderBlocks(results).readme['readme-summary']
  for (const run of results.e2e) t.match(block, `Node ${run.json.environment.node}`)
  const small = results.e2e.at(-1)
  const ours = small.json.workloads.small.clients.ours
  t.match(block, small.json.clients.ours)
  const { fmtRate } = await import('../benchmarks/report/format.mjs')
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
