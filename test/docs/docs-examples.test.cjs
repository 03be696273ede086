'use strict'

// Every code block of the documentation (README.md, docs/*.md, SECURITY.md) is checked as written, so
// that none can drift from the API:
// - JavaScript blocks are complete programs. Each is written to a file of its own in a temporary
//   project whose node_modules has `whatwg-eventsource` (this checkout) and this checkout's
//   dependencies, and run there with plain node, a few at a time, against examples/docs-server.js
//   (its origins in SSE_ORIGIN and SSE_TLS_ORIGIN, its certificate as ca.pem in the working
//   directory). It must exit 0 by itself and print exactly the lines its `// prints: ...` comments
//   give, in order (`...` stands for any text).
// - A JavaScript block that cannot run as it is (it needs a proxy, or Jest) says so in an HTML comment
//   before its fence, `<!-- not run: why -->`. It is type-checked instead: by tsc against types/,
//   strict, as a Node project without the DOM lib compiles it.
// - TypeScript blocks are compiled by test/docs/docs-typescript.test.cjs, as CommonJS and as ES modules.
// - JSON blocks must parse (and the overrides block names this version); shell blocks are listed, and
//   the npm scripts they name must exist; text blocks (output, trees) are not code. A fence without a
//   language fails.

const t = require('tap')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { runChild } = require('../helpers/index.cjs')
const { redisMissing } = require('../helpers/redis.cjs')
const { ROOT, docPages, codeBlocks } = require('../helpers/docs.cjs')
const { startDocsServer } = require('../../examples/docs-server')

const JS = new Set(['js', 'javascript', 'cjs', 'mjs'])
const TS = new Set(['ts', 'typescript', 'tsx', 'mts', 'cts'])
const SHELL = new Set(['sh', 'bash', 'shell', 'console'])
// How many examples run at once: they mostly wait on sockets, and tsc runs beside them.
const CONCURRENCY = 3
const RUN_LIMIT = 30_000
const TSC_LIMIT = 120_000

const PACKAGE = require('../../package.json')
const blocks = docPages().flatMap((page) => codeBlocks(page))

const where = (block) => `${block.page}:${block.line}`
const isModule = (code) => /^\s*(?:import\s+[^\s(]|export\s)/m.test(code)
const notRun = (block) => block.marker !== null && /^not run:\s*\S/.test(block.marker)
// A block that starts a redis-server of its own (docs/server-redis.md) runs only where there is one.
const needsRedis = (block) => block.marker !== null && /^needs redis-server\b/.test(block.marker)

/** The expected stdout of a block: its `// prints: ...` lines, each a pattern for one line of output. */
function expectedOutput (code) {
  return [...code.matchAll(/^\s*\/\/ prints: (.*)$/gm)].map(([, line]) => line.trimEnd())
}
const linePattern = (line) => new RegExp(`^${line.split('...').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`)

// The temporary project: node_modules with this package under its name, and this checkout's
// dependencies (undici, the drop-ins' originals, @sinonjs/fake-timers...) beside it, as an
// application that installed them would have them.
const project = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'whatwg-eventsource-docs-')))
t.teardown(() => fs.rmSync(project, { recursive: true, force: true }))
const modules = path.join(project, 'node_modules')
fs.mkdirSync(modules)
fs.symlinkSync(ROOT, path.join(modules, PACKAGE.name), 'dir')
for (const name of fs.readdirSync(path.join(ROOT, 'node_modules'))) {
  if (name.startsWith('.') || name === PACKAGE.name) continue
  fs.symlinkSync(path.join(ROOT, 'node_modules', name), path.join(modules, name), 'dir')
}

// Each JavaScript block in a folder of its own: the file its module syntax calls for.
const files = new Map()
for (const block of blocks) {
  if (!JS.has(block.lang)) continue
  const dir = path.join(project, `${block.page.replace(/\W+/g, '-')}-${block.line}`)
  fs.mkdirSync(dir)
  const ext = block.lang === 'mjs' || isModule(block.code) ? '.mjs' : '.cjs'
  const file = path.join(dir, `example${ext}`)
  fs.writeFileSync(file, block.code)
  files.set(block, file)
}

/** tsc over the blocks that are not run; resolves like runChild's exited(). */
function startTypeCheck () {
  const checked = [...files].filter(([block]) => notRun(block)).map(([, file]) => file)
  fs.writeFileSync(path.join(project, 'tsconfig.json'), JSON.stringify({
    compilerOptions: {
      strict: true,
      noEmit: true,
      allowJs: true,
      checkJs: true,
      target: 'es2022',
      module: 'nodenext',
      moduleResolution: 'nodenext',
      // Each file a module of its own, as node runs it: no names shared between examples.
      moduleDetection: 'force',
      lib: ['es2022'],
      types: ['node'],
      skipLibCheck: true
    },
    files: checked.map((file) => path.relative(project, file))
  }, null, 2))
  const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc')
  return runChild(t, [tsc, '-p', project, '--pretty', 'false'], { cwd: project, isolate: true, coverage: false }).exited(TSC_LIMIT, 'tsc')
}

t.test('every block names its language, one this test knows', async (t) => {
  for (const block of blocks) {
    t.ok(JS.has(block.lang) || TS.has(block.lang) || SHELL.has(block.lang) || block.lang === 'json' || block.lang === 'text',
      `${where(block)}: \`\`\`${block.lang || '(none)'}`)
  }
})

t.test('blocks that are not run say why, and only JavaScript blocks need to', async (t) => {
  for (const block of blocks.filter((b) => b.marker !== null && /^not run/.test(b.marker))) {
    t.ok(notRun(block), `${where(block)}: "${block.marker}" gives a reason`)
    t.ok(JS.has(block.lang), `${where(block)}: a ${block.lang} block is never run anyway`)
    t.comment(`type-checked only: ${where(block)} (${block.marker.replace(/^not run:\s*/, '')})`)
  }
})

t.test('JSON blocks parse; the drop-ins\' overrides name this version', async (t) => {
  for (const block of blocks.filter((b) => b.lang === 'json')) {
    t.doesNotThrow(() => JSON.parse(block.code), where(block))
    for (const [, name, range] of block.code.matchAll(/"npm:(@whatwg-eventsource\/[\w-]+)@([^"]+)"/g)) {
      t.equal(range, `^${PACKAGE.version}`, `${where(block)}: ${name} in step with whatwg-eventsource`)
    }
  }
})

t.test('shell blocks are listed, and the npm scripts they run exist', async (t) => {
  for (const block of blocks.filter((b) => SHELL.has(b.lang))) {
    t.comment(`shell, not run: ${where(block)}: ${block.code.split('\n')[0]}`)
    for (const [, script] of block.code.matchAll(/\bnpm run ([\w-]+(?::[\w-]+)*)/g)) {
      t.ok(Object.hasOwn(PACKAGE.scripts, script), `${where(block)}: npm run ${script}`)
    }
    for (const [, script] of block.code.matchAll(/\bnpm (start|test)\b/g)) {
      t.ok(Object.hasOwn(PACKAGE.scripts, script), `${where(block)}: npm ${script}`)
    }
  }
})

// Started now, so that it runs while the examples do.
const typeCheck = startTypeCheck()
// Its failure is reported by the test that awaits it, not as an unhandled rejection meanwhile.
typeCheck.catch(() => {})

t.test('every JavaScript block runs as written and prints what it says', async (t) => {
  const server = await startDocsServer()
  t.teardown(() => server.close())
  const runnable = [...files].filter(([block]) => JS.has(block.lang) && !notRun(block) &&
    !(needsRedis(block) && redisMissing() !== null))
  t.ok(runnable.length >= 20, `${runnable.length} runnable blocks`)
  for (const [block] of files) {
    if (needsRedis(block) && redisMissing() !== null) t.skip(`${where(block)}: ${redisMissing()}`)
  }

  const run = async ([block, file]) => {
    const dir = path.dirname(file)
    fs.copyFileSync(server.caFile, path.join(dir, 'ca.pem'))
    const child = runChild(t, [file], {
      cwd: dir,
      isolate: true,
      env: { SSE_ORIGIN: server.origin, SSE_TLS_ORIGIN: server.tlsOrigin, NO_COLOR: '1' }
    })
    return child.exited(RUN_LIMIT, `${where(block)} to exit`).then((result) => ({ block, result }), (error) => ({ block, error }))
  }
  // A few at a time, results in document order.
  const results = new Array(runnable.length)
  let next = 0
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next < runnable.length) {
      const i = next++
      results[i] = await run(runnable[i])
    }
  }))

  for (const { block, result, error } of results) {
    t.test(where(block), async (t) => {
      if (error) return t.fail(error.message)
      const expected = expectedOutput(block.code)
      t.ok(expected.length > 0, 'the block says what it prints')
      const output = result.stdout.split('\n')
      while (output.length > 0 && output.at(-1) === '') output.pop()
      t.equal(result.code, 0, `exits 0\n${result.stderr}`)
      t.equal(output.length, expected.length, `prints ${expected.length} lines:\n${result.stdout}`)
      expected.forEach((line, i) => t.match(output[i] ?? '', linePattern(line), `line ${i + 1}`))
    })
  }
})

t.test('blocks that are not run type-check (tsc, strict, no DOM lib)', async (t) => {
  const { code, stdout } = await typeCheck
  const errors = stdout.split('\n').filter((line) => /error TS\d+/.test(line))
  const checked = [...files].filter(([block]) => notRun(block))
  t.ok(checked.length > 0, `${checked.length} blocks`)
  for (const [block, file] of checked) {
    const mine = errors.filter((line) => line.startsWith(path.relative(project, file)))
    t.same(mine, [], `${where(block)} (${block.lang}) type-checks`)
  }
  t.equal(code, errors.length === 0 ? 0 : 2, stdout)
})
