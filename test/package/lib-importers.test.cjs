'use strict'

// Files outside lib/ that take names from a module of lib/ directly (ssecat in bin/, the benchmarks, the
// examples): every name they take is exported. Nothing in lib/ imports these names, so a change of lib/ that
// stops exporting one passes every check of lib/ and breaks them only when they run (as ssecat's failing runs
// and the hot-path benchmark both did once).

const t = require('tap')
const fs = require('node:fs')
const path = require('node:path')
const { pathToFileURL } = require('node:url')

const root = path.join(__dirname, '..', '..')
const FOLDERS = ['bin', 'benchmarks', 'examples']

function sourceFiles (folder) {
  const found = []
  if (!fs.existsSync(folder)) return found
  for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
    const file = path.join(folder, entry.name)
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules' && entry.name !== 'results') found.push(...sourceFiles(file))
    } else if (/\.(?:c|m)?js$/.test(entry.name)) {
      found.push(file)
    }
  }
  return found
}

// `const { a, b: c } = require('../lib/x')`, `const { a } = await import('../lib/x.js')` and
// `import { a, b as c } from '../lib/x.js'`, of a relative path into lib/. A nested pattern is left out.
const TAKES = /(?:const\s*\{([^{}]*)\}\s*=\s*(?:await\s+import|require)\(\s*'(\.[^']*\/lib\/[^']*)'\s*\))|(?:import\s*\{([^{}]*)\}\s*from\s*'(\.[^']*\/lib\/[^']*)')/g

function takenNames (list) {
  return list.split(',')
    .map((item) => item.trim().split(/\s+as\s+|\s*:\s*/)[0].trim())
    .filter((name) => name !== '')
}

function resolveModule (from, specifier) {
  const target = path.resolve(path.dirname(from), specifier)
  if (fs.existsSync(target) && fs.statSync(target).isDirectory()) return path.join(target, 'index.js')
  return target.endsWith('.js') ? target : `${target}.js`
}

const takes = []
for (const folder of FOLDERS) {
  for (const file of sourceFiles(path.join(root, folder))) {
    const source = fs.readFileSync(file, 'utf8')
    for (const match of source.matchAll(TAKES)) {
      takes.push({
        file: path.relative(root, file),
        module: resolveModule(file, match[2] ?? match[4]),
        names: takenNames(match[1] ?? match[3])
      })
    }
  }
}

t.test('the files outside lib/ that take names from lib/ are found', async (t) => {
  // ssecat takes displayHref and IDEMPOTENT_METHOD; the hot-path benchmark messageEventClass.
  const files = new Set(takes.map((take) => take.file))
  t.ok(files.has(path.join('bin', 'cli', 'main.js')), 'bin/cli/main.js')
  t.ok(files.has(path.join('benchmarks', 'e2e', 'hot-path.bench.mjs')), 'benchmarks/e2e/hot-path.bench.mjs')
})

t.test('every name they take is exported', async (t) => {
  for (const { file, module, names } of takes) {
    const exported = await import(pathToFileURL(module).href)
    for (const name of names) {
      t.ok(name in exported, `${file}: ${path.relative(root, module)} exports ${name}`)
    }
  }
})
