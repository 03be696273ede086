'use strict'

// Every TypeScript block of the documentation (README.md, docs/*.md, SECURITY.md) compiles as pasted
// into the projects its readers have. Each block is a file of its own in a temporary folder whose
// node_modules has `whatwg-eventsource` (a link to this checkout, so that its own `exports` and types/
// resolve) and @types/node:
// - a CommonJS package (`npm init -y` writes "type": "commonjs" since npm 11) and an ES module package
//   ("type": "module"), with the tsconfig Node guides give (module and moduleResolution node16, target
//   es2022, strict, skipLibCheck off, types node). Both are one program, so that the libraries are
//   checked once: TypeScript takes each file's format from the package.json nearest to it.
// - the tsconfig `tsc --init` writes (TypeScript 5.9: module nodenext, verbatimModuleSyntax,
//   exactOptionalPropertyTypes, noUncheckedIndexedAccess...) with the lines its comments give for
//   Node (lib esnext, so no DOM; types node), in an ES module package. In a CommonJS package that
//   tsconfig refuses every `import` statement (TS1295: TypeScript's rule, not this package's), which
//   the README's TypeScript section says.
// A block that needs one format says so in the prose before it and on its first line,
// `// ES module only: why` or `// CommonJS only: why` (`mts` and `cts` blocks are so by their
// extension). It compiles in that format only, and must fail in the other, or the mark is stale.
// The compiler is the typescript of devDependencies, and TypeScript 7 too when it is installed as
// `typescript7` (an npm alias): one tsc process for each, over both tsconfigs, as its start is slow.

const t = require('tap')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { runChild } = require('../helpers/index.cjs')
const { ROOT, docPages, codeBlocks, read } = require('../helpers/docs.cjs')

const TS = new Set(['ts', 'typescript', 'tsx', 'mts', 'cts'])
const TSC_LIMIT = 120_000
const PACKAGE = require('../../package.json')

const COMPILERS = [
  {
    name: `TypeScript ${require('typescript/package.json').version}`,
    dir: path.join(ROOT, 'node_modules', 'typescript')
  },
  { name: 'TypeScript 7', dir: path.join(ROOT, 'node_modules', 'typescript7'), optional: true }
]

const NODE16 = {
  module: 'node16',
  moduleResolution: 'node16',
  target: 'es2022',
  strict: true,
  noEmit: true,
  skipLibCheck: false,
  types: ['node'],
  // Each block is a file of its own, as when pasted: no names shared between blocks.
  moduleDetection: 'force'
}
// What `tsc --init` of TypeScript 5.9 writes, its commented-out "For nodejs" lines taken, and noEmit.
const TSC_INIT = {
  module: 'nodenext',
  target: 'esnext',
  lib: ['esnext'],
  types: ['node'],
  sourceMap: true,
  declaration: true,
  declarationMap: true,
  noUncheckedIndexedAccess: true,
  exactOptionalPropertyTypes: true,
  strict: true,
  jsx: 'react-jsx',
  verbatimModuleSyntax: true,
  isolatedModules: true,
  noUncheckedSideEffectImports: true,
  moduleDetection: 'force',
  skipLibCheck: true,
  noEmit: true
}

// Where each block is compiled: a folder (a package of its own), its format, its tsconfig.
const TARGETS = [
  { dir: 'commonjs', type: 'commonjs', label: 'CommonJS, node16' },
  { dir: 'module', type: 'module', label: 'ES module, node16' },
  { dir: 'module-tsc-init', type: 'module', label: 'ES module, tsc --init', init: true }
]
const MARK = /^\/\/ (ES module|CommonJS) only: \S/
const FORMAT = { 'ES module': 'module', CommonJS: 'commonjs' }

const where = (block) => `${block.page}:${block.line}`

/** The format a block's first line says it needs ('module' or 'commonjs'), or null. */
function markOf (block) {
  const mark = MARK.exec(block.code.split('\n')[0])
  return mark ? FORMAT[mark[1]] : null
}

/** The format a block needs, by its mark or its extension (`mts`, `cts`), or null when it is meant for both. */
function formatOf (block) {
  if (block.lang === 'mts') return 'module'
  if (block.lang === 'cts') return 'commonjs'
  return markOf(block)
}

/**
 * Where a block is compiled: [{ target, fails }]. Every target of its format (all of them for a block
 * meant for both); a marked block also in the node16 target of the other format, where it must fail.
 */
function placesOf (block) {
  const format = formatOf(block)
  return TARGETS.flatMap((target) => {
    if (format === null || format === target.type) return [{ target, fails: false }]
    return !target.init && markOf(block) !== null ? [{ target, fails: true }] : []
  })
}

/** The paragraph before a block's fence (an HTML comment just before the fence skipped). */
function proseBefore (block) {
  const lines = read(block.page).split('\n').slice(0, block.line - 1)
  while (lines.length > 0 && (lines.at(-1).trim() === '' || /^\s*<!--.*-->\s*$/.test(lines.at(-1)))) lines.pop()
  const paragraph = []
  while (lines.length > 0 && lines.at(-1).trim() !== '') paragraph.unshift(lines.pop())
  return paragraph.join(' ')
}

const blocks = docPages().flatMap((page) => codeBlocks(page)).filter((block) => TS.has(block.lang))
const extension = (block) => ({ mts: '.mts', cts: '.cts', tsx: '.tsx' })[block.lang] ?? '.ts'
const fileOf = (block, target) => `${target.dir}/${block.page.replace(/\W+/g, '-')}-${block.line}${extension(block)}`
/** An error of tsc, `(10,5): error TS1309: ...`, as a place in the page: `README.md:117:5: error TS1309: ...`. */
const inPage = (block, error) =>
  error.replace(/^\((\d+),(\d+)\)/, (_, line, column) => `${block.page}:${block.line + Number(line)}:${column}`)

/**
 * Writes the project into a new temporary folder, and returns it: node_modules, each target's folder
 * with its package.json and its blocks (placesOf), tsconfig.json (node16) over commonjs/ and module/,
 * module-tsc-init/tsconfig.json over its folder.
 */
function writeProject () {
  const project = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'whatwg-eventsource-docs-ts-')))
  const modules = path.join(project, 'node_modules')
  fs.mkdirSync(path.join(modules, '@types'), { recursive: true })
  fs.symlinkSync(ROOT, path.join(modules, PACKAGE.name), 'dir')
  fs.symlinkSync(path.join(ROOT, 'node_modules', '@types', 'node'), path.join(modules, '@types', 'node'), 'dir')
  const files = { node16: [], init: [] }
  for (const target of TARGETS) {
    fs.mkdirSync(path.join(project, target.dir))
    fs.writeFileSync(path.join(project, target.dir, 'package.json'), JSON.stringify({ type: target.type }))
  }
  for (const block of blocks) {
    for (const { target } of placesOf(block)) {
      fs.writeFileSync(path.join(project, fileOf(block, target)), block.code)
      files[target.init ? 'init' : 'node16'].push(fileOf(block, target))
    }
  }
  const tsconfig = (compilerOptions, list, from) => {
    const relative = list.map((file) => path.relative(from, path.join(project, file)))
    return JSON.stringify({ compilerOptions, files: relative }, null, 2)
  }
  fs.writeFileSync(path.join(project, 'tsconfig.json'), tsconfig(NODE16, files.node16, project))
  fs.writeFileSync(path.join(project, 'module-tsc-init', 'tsconfig.json'),
    tsconfig(TSC_INIT, files.init, path.join(project, 'module-tsc-init')))
  return project
}

/**
 * Runs a compiler over both tsconfigs: one process in build mode (--force: every time, whatever an
 * earlier run left), which reads the libraries' files once for both. Resolves with its errors by file,
 * as paths from the project, `{ 'module/README-md-1.ts': ['(10,5): error TS1309: ...'] }`, and the run.
 */
async function compile (t, compiler, project) {
  const tsc = path.join(compiler.dir, 'bin', 'tsc')
  const args = [tsc, '-b', '--force', 'tsconfig.json', 'module-tsc-init/tsconfig.json', '--pretty', 'false']
  const run = await runChild(t, args, { cwd: project, isolate: true, coverage: false }).exited(TSC_LIMIT, compiler.name)
  const errors = {}
  let file = null
  for (const line of run.stdout.split('\n')) {
    const m = /^(\S[^(]*)(\(\d+,\d+\): error TS\d+: .*)$/.exec(line)
    // An error's further lines (the chain of a message) are indented.
    if (/^\s+\S/.test(line) && file !== null) errors[file].push(line)
    else if (line.trim() !== '') (errors[file = m ? m[1] : '(no file)'] ??= []).push(m ? m[2] : line)
  }
  return { errors, run }
}

t.test('the TypeScript blocks are found, and each one that needs a format says so before it', async (t) => {
  t.ok(blocks.length >= 2, `${blocks.length} blocks: ${blocks.map(where).join(', ')}`)
  for (const block of blocks) {
    // A mark mistyped would leave the block compiled in both formats, and failing in one.
    if (/^\/\/\s*(?:ES ?modules?|ESM|CommonJS|CJS)\b.*\bonly\b/i.test(block.code.split('\n')[0])) {
      t.not(markOf(block), null,
        `${where(block)}: its first line reads \`// ES module only: why\` or \`// CommonJS only: why\``)
    }
    if (markOf(block) !== null && (block.lang === 'mts' || block.lang === 'cts')) {
      t.equal(markOf(block), formatOf(block), `${where(block)}: the mark agrees with .${block.lang}`)
    }
    const format = formatOf(block)
    if (format === null) continue
    const [words, name] = format === 'module'
      ? [/\bES modules?\b|\bESM\b/, 'an ES module']
      : [/\bCommonJS\b/, 'CommonJS']
    t.match(proseBefore(block), words, `${where(block)}: the prose before it says it needs ${name}`)
  }
})

const project = writeProject()
t.teardown(() => fs.rmSync(project, { recursive: true, force: true }))

for (const compiler of COMPILERS) {
  const installed = fs.existsSync(path.join(compiler.dir, 'bin', 'tsc'))
  const skip = !installed && compiler.optional &&
    'TypeScript 7 is not installed: it runs when devDependencies has "typescript7": "npm:typescript@^7"'
  t.test(`each block compiles as pasted: ${compiler.name}`, { skip }, async (t) => {
    if (compiler.optional) {
      const { version } = JSON.parse(fs.readFileSync(path.join(compiler.dir, 'package.json'), 'utf8'))
      t.match(version, /^7\./, `typescript7 is TypeScript 7 (${version})`)
    }
    const { errors, run } = await compile(t, compiler, project)
    for (const block of blocks) {
      for (const { target, fails } of placesOf(block)) {
        const mine = (errors[fileOf(block, target)] ?? []).map((error) => inPage(block, error))
        if (!fails) t.same(mine, [], `${where(block)} compiles (${target.label})`)
        else t.not(mine.length, 0, `${where(block)} does not compile as ${target.label}, as its first line says`)
      }
    }
    // No error but in a block (a bad tsconfig or a library's types would show here), and the exit code
    // agrees with what tsc printed.
    const known = new Set(blocks.flatMap((block) => placesOf(block).map(({ target }) => fileOf(block, target))))
    const elsewhere = Object.keys(errors).filter((file) => !known.has(file))
    t.same(elsewhere.map((file) => `${file}${errors[file].join('\n')}`), [], 'no error outside the blocks')
    t.equal(run.code === 0, !/error TS\d+/.test(run.stdout), `tsc's exit code (${run.code}) says whether it found errors`,
      { stdout: run.stdout, stderr: run.stderr })
  })
}
