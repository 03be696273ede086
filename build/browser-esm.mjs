// Generates web/, the ES-module copy of lib/ that the browser and worker entry points import. lib/ is
// CommonJS, what Node runs; a bundler cannot tree-shake CommonJS (each file becomes a closure whose
// exports object keeps every member, used or not): in esbuild's browser bundles that was a seventh of the
// EventSource's gzipped bytes and a quarter of EventSourceParser's (benchmarks/size). Each
// file of lib/ that a browser build reaches is rewritten here line by line (lib/ keeps to a few forms:
// `const { a, b } = require('x')` at the top, `x ??= require('y')` for a lazy load, one
// `module.exports = { ... }` at the end), with package.json's "imports" resolved to their web side
// (`default`). Nothing else changes: the code is lib/'s, so the tests of lib/ hold for it, and
// test/package/browser-esm.test.js checks that web/ is what this script makes from today's lib/.
//
//   node build/browser-esm.mjs            writes web/
//   node build/browser-esm.mjs --check    exits 1 if web/ differs from what it would write

import { readFileSync, writeFileSync, mkdirSync, rmSync, readdirSync, existsSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'))
const OUT = 'web'

// The entry points, as CommonJS files of the package's root (browser.mjs imports web/'s modules itself);
// everything they require is followed.
export const ROOTS = ['parser.js', 'parser-stream.js', 'polyfill.js', 'eventsource.js', 'extensions.js']

/** lib/a/b.js -> web/a/b.mjs, and parser.js (an entry point) -> web/parser.mjs */
export function outPath (file) {
  return path.posix.join(OUT, file.replace(/^lib\//, '').replace(/\.js$/, '.mjs'))
}

/** What a specifier in `file` names, as a path from the root: a relative path, or a "#" import's web side. */
function resolve (file, specifier) {
  if (specifier.startsWith('#')) {
    const target = pkg.imports[specifier]?.default
    if (target === undefined) throw new Error(`${file}: ${specifier} has no web side`)
    return path.posix.normalize(target)
  }
  if (!specifier.startsWith('.')) throw new Error(`${file}: ${specifier} is not a file of the package`)
  const joined = path.posix.join(path.posix.dirname(file), specifier)
  return joined.endsWith('.js') ? joined : `${joined}.js`
}

/** The relative specifier of `target` from `file`'s output. */
function specifierOf (file, target) {
  const rel = path.posix.relative(path.posix.dirname(outPath(file)), outPath(target))
  return rel.startsWith('.') ? rel : `./${rel}`
}

/**
 * One file of lib/ as an ES module.
 * @returns {{ text: string, requires: string[] }}
 */
export function convert (file, source) {
  const requires = []
  const imports = []
  let n = 0
  // Top-level `const { ... } = require('x')`, on one line or several, with or without a comment after it
  // (dropped: web/ says where its source is); `name: { a, b }` takes members of a member.
  let text = source.replace(/^const (\{[^=]*?\}) = require\('([^']+)'\)(?: *\/\/[^\n]*)?\n/gms, (all, pattern, specifier) => {
    const target = resolve(file, specifier)
    requires.push(target)
    const names = []
    const nested = []
    const body = pattern.slice(1, -1)
    for (const [, member, inner] of body.matchAll(/([\w$]+)\s*:\s*\{([^}]*)\}/g)) {
      const local = `${member}$${n++}`
      names.push(`${member} as ${local}`)
      nested.push(`const { ${inner.trim().replace(/\s+/g, ' ')} } = ${local}\n`)
    }
    for (const part of body.replace(/[\w$]+\s*:\s*\{[^}]*\}/g, '').split(',')) {
      const name = part.trim()
      if (name === '') continue
      names.push(name.replace(/^([\w$]+)\s*:\s*([\w$]+)$/, '$1 as $2'))
    }
    imports.push(`import { ${names.join(', ')} } from '${specifierOf(file, target)}'\n`)
    return nested.join('')
  })
  // Bare `require('x')` for its effect, at the top.
  text = text.replace(/^require\('([^']+)'\)\n/gm, (all, specifier) => {
    const target = resolve(file, specifier)
    requires.push(target)
    imports.push(`import '${specifierOf(file, target)}'\n`)
    return ''
  })
  // Lazy loads inside functions, imported at the top (a bundle has the module anyway): `require('y').name`
  // as the one name, which leaves the rest of the module to tree-shaking; `require('y')` as the module's
  // namespace.
  text = text.replace(/^(?!\s*(?:\/\/|\*)).*require\('[^']+'\).*$/gm, (line) => line.replace(/require\('([^']+)'\)(\.[\w$]+)?/g, (all, specifier, member) => {
    const target = resolve(file, specifier)
    requires.push(target)
    const local = `${member === undefined ? 'module' : member.slice(1)}$${n++}`
    imports.push(member === undefined
      ? `import * as ${local} from '${specifierOf(file, target)}'\n`
      : `import { ${member.slice(1)} as ${local} } from '${specifierOf(file, target)}'\n`)
    return local
  }))
  // `name: value` members become constants of their own.
  text = text.replace(/^module\.exports = \{([^}]*)\}\n/m, (all, body) => {
    const consts = []
    const names = body.replace(/\/\/.*$/gm, '').split(',').map((name) => name.trim()).filter(Boolean).map((name) => {
      const [, member, value] = /^([\w$]+)(?:\s*:\s*(.+))?$/s.exec(name) ?? []
      if (member === undefined) throw new Error(`${file}: an export this script does not rewrite: ${name}`)
      if (value === undefined) return member
      consts.push(`const ${member}$export = ${value}\n`)
      return `${member}$export as ${member}`
    })
    return `${consts.join('')}export { ${names.join(', ')} }\n`
  })
  if (/^(?!\s*(?:\/\/|\*)).*(?:\brequire\(|module\.exports|\bexports\.)/m.test(text)) throw new Error(`${file}: a require or an export this script does not rewrite`)
  text = text.replace(/^'use strict'\n/gm, '').replace(/\n{3,}/g, '\n\n').replace(/^\n+/, '').replace(/\n+$/, '\n')
  const head = `// Generated by build/browser-esm.mjs from ${file}: edit that file, then run the script.\n`
  return { text: head + imports.join('') + '\n' + text, requires }
}

/** The modules of lib/ that browser.mjs imports. */
function browserModules () {
  const source = readFileSync(path.join(root, 'browser.mjs'), 'utf8')
  return [...source.matchAll(/from '\.\/web\/([^']+)\.mjs'/g)].map(([, file]) => `lib/${file}.js`)
}

/** Every output file, path -> text. */
export function generate () {
  const files = new Map()
  const queue = [...ROOTS, ...browserModules()]
  while (queue.length > 0) {
    const file = queue.shift()
    if (files.has(outPath(file))) continue
    const { text, requires } = convert(file, readFileSync(path.join(root, file), 'utf8'))
    files.set(outPath(file), text)
    queue.push(...requires)
  }
  return new Map([...files].sort(([a], [b]) => a.localeCompare(b)))
}

function listOut (dir = OUT) {
  if (!existsSync(path.join(root, dir))) return []
  return readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => entry.isDirectory()
    ? listOut(path.posix.join(dir, entry.name))
    : [path.posix.join(dir, entry.name)])
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const files = generate()
  if (process.argv.includes('--check')) {
    const stale = [...files].filter(([file, text]) => !existsSync(path.join(root, file)) || readFileSync(path.join(root, file), 'utf8') !== text).map(([file]) => file)
    const extra = listOut().filter((file) => !files.has(file))
    if (stale.length + extra.length > 0) {
      console.error(`web/ is not what build/browser-esm.mjs makes: ${[...stale, ...extra].join(', ')}; run node build/browser-esm.mjs`)
      process.exit(1)
    }
  } else {
    rmSync(path.join(root, OUT), { recursive: true, force: true })
    for (const [file, text] of files) {
      mkdirSync(path.dirname(path.join(root, file)), { recursive: true })
      writeFileSync(path.join(root, file), text)
    }
    console.log(`wrote ${files.size} files to ${OUT}/`)
  }
}
