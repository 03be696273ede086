'use strict'

// Bundles of the package as a front-end build makes them: the package packed (`npm pack`) and unpacked
// into node_modules of a temporary directory, as a user installs it, then an import statement bundled by
// esbuild or by Rollup (@rollup/plugin-node-resolve and @rollup/plugin-commonjs, as Vite's build did up to
// Vite 7) for a page (the `browser` condition) or for a worker (the `worker` condition alone), as an
// IIFE; and a vm context with the globals a browser or a worker has and nothing of Node's, to run one in.

const { execFileSync } = require('node:child_process')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const vm = require('node:vm')
const { pathToFileURL } = require('node:url')

const root = path.join(__dirname, '..', '..')

/**
 * The package installed as a user gets it, in a temporary directory removed at teardown.
 * @param {import('tap').Test} t
 * @returns {string} the directory (its node_modules holds whatwg-eventsource)
 */
function packedInstall (t) {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'whatwg-eventsource-bundle-')))
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
  const installed = path.join(dir, 'node_modules', 'whatwg-eventsource')
  fs.mkdirSync(installed, { recursive: true })
  const output = execFileSync('npm', ['pack', '--silent', '--pack-destination', dir], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
  const tarball = output.trim().split('\n').pop()
  execFileSync('tar', ['-xzf', path.join(dir, tarball), '-C', installed, '--strip-components=1'])
  return dir
}

// Files no bundle for a browser or a worker may hold, as paths from the package (or from node_modules):
// the Node side of each of package.json's "imports", the Node-only transports, streams and sinks, the Node
// entries, and undici. (test/runtime/run.mjs checks its bundles against it too.)
const NODE_ONLY = /^(?:lib\/entries\/(?:index|server)\.js|lib\/server\/node-sinks\.js|lib\/.*-node\.js|lib\/transport\/(?:dispatcher-transport|dispatchers|content-decoding|codings|http2-[a-z]+)\.js|lib\/parser\/node-stream\.js|node_modules\/undici\/.*)$/

const BUNDLERS = ['esbuild', 'rollup']
const TARGETS = ['browser', 'worker']

async function withEsbuild (entry, dir, target) {
  const esbuild = require('esbuild')
  const result = await esbuild.build({
    entryPoints: [entry],
    absWorkingDir: dir,
    bundle: true,
    format: 'iife',
    globalName: 'bundled',
    write: false,
    metafile: true,
    logLevel: 'silent',
    // A page: esbuild's browser platform (the `browser` condition, and `import`/`require`). A worker: only
    // the `worker` condition, as a bundler for workers without `browser` sets it.
    ...(target === 'browser' ? { platform: 'browser' } : { platform: 'neutral', conditions: ['worker'], mainFields: ['module', 'main'] })
  })
  const [output] = Object.values(result.metafile.outputs)
  const modules = Object.entries(output.inputs).filter(([, input]) => input.bytesInOutput > 0).map(([file]) => path.resolve(dir, file))
  return { code: result.outputFiles[0].text, modules, external: [] }
}

async function withRollup (entry, dir, target) {
  const { rollup } = require('rollup')
  const { nodeResolve } = require('@rollup/plugin-node-resolve')
  const commonjs = require('@rollup/plugin-commonjs')
  const warnings = []
  const bundle = await rollup({
    input: entry,
    plugins: [
      // A page: node-resolve's `browser` option (the `browser` condition and field). A worker: `worker`.
      nodeResolve(target === 'browser' ? { browser: true } : { exportConditions: ['worker'] }),
      commonjs()
    ],
    onwarn: (warning) => warnings.push(warning)
  })
  try {
    const { output: [chunk] } = await bundle.generate({ format: 'iife', name: 'bundled' })
    const modules = Object.entries(chunk.modules).filter(([, info]) => info.renderedLength > 0).map(([id]) => id)
    // What Rollup could not resolve (a Node built-in) it leaves as an import of the bundle: none may be.
    const external = [...chunk.imports, ...warnings.filter((w) => w.code === 'UNRESOLVED_IMPORT').map((w) => w.exporter ?? w.id)]
    return { code: chunk.code, modules, external }
  } finally {
    await bundle.close()
  }
}

/**
 * Bundles `source` (an import statement, resolved from `dir`) as an IIFE that assigns what it exports to
 * `bundled`.
 * @param {'esbuild' | 'rollup'} bundler
 * @param {'browser' | 'worker'} target
 * @param {string} source
 * @param {string} dir a packedInstall()
 * @returns {Promise<{ code: string, modules: string[], external: string[] }>} `modules`: the files with
 *   code in the bundle, as paths from the installed package (`lib/...`) or from node_modules for others;
 *   `external`: what the bundle still imports
 */
async function bundle (bundler, target, source, dir) {
  const entry = path.join(dir, `entry-${bundler}-${target}-${Math.random().toString(36).slice(2)}.mjs`)
  fs.writeFileSync(entry, source)
  const installed = path.join(dir, 'node_modules', 'whatwg-eventsource')
  const shown = (file) => {
    if (file.startsWith(installed + path.sep)) return path.relative(installed, file).split(path.sep).join('/')
    const modules = file.lastIndexOf(`node_modules${path.sep}`)
    return modules === -1 ? file : file.slice(modules).split(path.sep).join('/')
  }
  const result = await (bundler === 'esbuild' ? withEsbuild : withRollup)(entry, dir, target)
  return { ...result, modules: result.modules.filter((file) => file !== entry).map(shown) }
}

/**
 * The browser build of part of lib/, in this process: `source`, an ES module importing files of lib/ by
 * paths from the repository's root (`export { EventSource } from './lib/entries/web-eventsource.js'`),
 * bundled by esbuild for a page as a front-end build bundles the package (each of package.json's "imports"
 * resolved to its `default` side, the web one; what `source` imports with import() split into chunks
 * loaded when it runs, as a page loads them), written to a temporary directory removed at teardown, and
 * imported. Every call is a build of its own: fresh instances of the modules it holds.
 * @param {import('tap').Test} t
 * @param {string} source
 * @returns {Promise<{ exports: Record<string, any>, modules: string[], resolved: Record<string, string> }>} what
 *   `source` exports; `modules`: the files with code in the build, its chunks included, as paths from the
 *   root (`lib/...`); `resolved`: the file each import of `source` resolved to, the same way
 */
async function importBrowserBuild (t, source) {
  const ENTRY = 'browser-build-entry.mjs'
  const esbuild = require('esbuild')
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'whatwg-eventsource-browser-build-')))
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
  const result = await esbuild.build({
    stdin: { contents: source, resolveDir: root, sourcefile: ENTRY },
    absWorkingDir: root,
    bundle: true,
    splitting: true,
    outdir: dir,
    // ES modules wherever the directory is: no package.json there says what a .js file is.
    outExtension: { '.js': '.mjs' },
    platform: 'browser',
    format: 'esm',
    write: false,
    metafile: true,
    logLevel: 'silent'
  })
  for (const file of result.outputFiles) fs.writeFileSync(file.path, file.contents)
  const outputs = Object.values(result.metafile.outputs)
  const modules = new Set(outputs.flatMap((output) =>
    Object.entries(output.inputs).filter(([, input]) => input.bytesInOutput > 0).map(([file]) => file)))
  // The output of `source` itself; the others are chunks (what it imports with import(), or shares with them).
  const [entry] = Object.entries(result.metafile.outputs).find(([, output]) => output.entryPoint === ENTRY)
  const imports = result.metafile.inputs[ENTRY].imports
  const resolved = Object.fromEntries(imports.map(({ original, path }) => [original, path]))
  return { exports: await import(pathToFileURL(path.resolve(root, entry)).href), modules: [...modules], resolved }
}

// What a page or a dedicated worker has, of what the package and these tests could touch, taken from
// Node, which implements them; nothing of Node's own (process, Buffer, require, setImmediate...).
const WEB_GLOBALS = [
  'fetch', 'Headers', 'Request', 'Response', 'AbortController', 'AbortSignal', 'EventTarget', 'Event', 'MessageEvent',
  'DOMException', 'TextDecoder', 'TextEncoder', 'TextDecoderStream', 'TextEncoderStream', 'ReadableStream',
  'WritableStream', 'TransformStream', 'URL', 'URLSearchParams', 'setTimeout', 'clearTimeout', 'setInterval',
  'clearInterval', 'queueMicrotask', 'structuredClone', 'performance', 'btoa', 'atob', 'console'
]

/**
 * Runs a bundle where only web APIs exist.
 * @param {string} code a bundle()'s
 * @returns {{ exports: Record<string, any>, context: object }} what the bundle exported, and its global
 */
function runBundled (code) {
  const sandbox = Object.fromEntries(WEB_GLOBALS.map((name) => [name, globalThis[name]]))
  const context = vm.createContext(sandbox)
  // The IIFE assigns `var bundled`, a property of the context's global.
  vm.runInContext(code, context, { filename: 'bundle.js' })
  return { exports: context.bundled ?? {}, context }
}

module.exports = { packedInstall, bundle, runBundled, importBrowserBuild, NODE_ONLY, BUNDLERS, TARGETS, WEB_GLOBALS }
