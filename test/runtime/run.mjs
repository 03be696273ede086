// Runs the runtime suite (test/runtime/suite.mjs) on every runtime asked for, against the loopback servers
// of test/runtime/server.mjs, and prints `N passed, N failed` at the end (exit code 1 on any failure).
//
//   node test/runtime/run.mjs                      this Node, Bun and Deno (through npx -y bun@1 / deno@2),
//                                                  Chromium at $CHROMIUM or /usr/bin/chromium (skipped,
//                                                  and said so, when there is none)
//   node test/runtime/run.mjs --node PATH ... --bun PATH --deno PATH --chromium PATH
//                                                  exactly these (--node may be repeated); .ci/runtimes
//   --only REGEXP                                  only the runs whose label matches
//
// The package is installed as a user gets it: `npm pack`, unpacked into node_modules/whatwg-eventsource
// of a temporary directory (its dependency, undici, linked from this checkout's node_modules), and the
// suite imports `whatwg-eventsource` from there. Each run is a separate process (Node, Bun, Deno) or
// page (Chromium: a page, and a dedicated worker, each loading an esbuild bundle made with the `browser`
// or the `worker` condition, the drop-in entry points and whatwg-eventsource/server included, each imported by
// its test; one that does not bundle for a browser is left out of the bundle, and its test skipped there, said
// so; the server's must bundle, from lib/entries/server.browser.js). Runs:
//   Node (each): the Dispatcher transport; the first Node also with `fetch` in the init (the fetch transport)
//   Bun: the fetch transport (Bun's `undici` has no Dispatcher); Deno: undici's Dispatcher through Deno's
//   Node compatibility, and the fetch transport with `fetch` in the init
//   Chromium: a page (the runtime's fetch) and a worker (`fetch` in the init), each importing
//   whatwg-eventsource/extensions; and a page without them, the standard's tests alone (browser-standard.mjs)

import { spawn, execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync, copyFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { createRequire } from 'node:module'
import { startServers } from './server.mjs'
import { testNames, standardTestNames } from './suite.mjs'

const here = path.dirname(fileURLToPath(import.meta.url))
const root = path.resolve(here, '..', '..')
const require = createRequire(import.meta.url)
// A run that has not finished by then is killed and counted as failed.
const RUN_TIMEOUT_MS = 120_000

// ---- which runtimes ----

const argv = process.argv.slice(2)
function values (name) {
  const found = []
  for (let i = 0; i < argv.length; i++) if (argv[i] === name) found.push(argv[++i])
  return found
}
const explicit = ['--node', '--bun', '--deno', '--chromium'].some((name) => argv.includes(name))
const only = values('--only')[0] === undefined ? null : new RegExp(values('--only')[0])

const skipped = []

// The binary npx installs for a package, asked of the runtime itself; undefined (and a skipped run, said
// so at the end) when npx cannot get it, e.g. offline. Only without explicit paths: CI passes them.
function viaNpx (spec, args) {
  try {
    return execFileSync('npx', ['-y', spec, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim()
  } catch (err) {
    skipped.push(`${spec}: npx -y ${spec} failed (${err.message.split('\n')[0]})`)
    return undefined
  }
}

const nodes = explicit ? values('--node') : [process.execPath]
const bun = explicit ? values('--bun')[0] : viaNpx('bun@1', ['-e', 'console.log(process.execPath)'])
const deno = explicit ? values('--deno')[0] : viaNpx('deno@2', ['eval', 'console.log(Deno.execPath())'])
const defaultChromium = process.env.CHROMIUM ?? '/usr/bin/chromium'
const chromium = explicit ? values('--chromium')[0] : existsSync(defaultChromium) ? defaultChromium : undefined
if (!explicit && chromium === undefined) skipped.push(`chromium: none at ${defaultChromium} (apt-get install chromium, or set CHROMIUM)`)

function versionOf (bin, args) {
  return execFileSync(bin, args, { encoding: 'utf8' }).trim().split('\n')[0]
}

const runs = []
for (const [index, bin] of nodes.entries()) {
  const version = versionOf(bin, ['--version'])
  runs.push({ label: `Node ${version} (dispatcher)`, kind: 'process', bin, args: [], transport: 'dispatcher', passFetch: false })
  if (index === 0) runs.push({ label: `Node ${version} (fetch in init)`, kind: 'process', bin, args: [], transport: 'fetch', passFetch: true })
}
if (bun !== undefined) {
  runs.push({ label: `Bun ${versionOf(bun, ['--version'])} (fetch)`, kind: 'process', bin: bun, args: [], transport: 'fetch', passFetch: false })
}
if (deno !== undefined) {
  const version = versionOf(deno, ['--version']).replace(/^deno /, 'Deno ').replace(/ \(.*$/, '')
  // Deno reads node_modules as npm left it (package.json beside it); no lock file in a temporary directory.
  const args = ['run', '--allow-net', '--allow-read', '--allow-env', '--allow-sys', '--no-lock']
  runs.push({ label: `${version} (dispatcher)`, kind: 'process', bin: deno, args, transport: 'dispatcher', passFetch: false })
  runs.push({ label: `${version} (fetch in init)`, kind: 'process', bin: deno, args, transport: 'fetch', passFetch: true })
}
if (chromium !== undefined) {
  runs.push({ label: 'Chromium page (fetch)', kind: 'page', page: '/', transport: 'fetch', passFetch: false })
  runs.push({ label: 'Chromium worker (fetch in init)', kind: 'page', page: '/worker.html', transport: 'fetch', passFetch: true })
  runs.push({ label: 'Chromium page, standard build (no extensions)', kind: 'page', page: '/standard.html', transport: 'fetch', passFetch: false, names: standardTestNames })
}

// ---- the package, installed as a user gets it ----

const started = performance.now()
const dir = mkdtempSync(path.join(os.tmpdir(), 'whatwg-eventsource-runtimes-'))
const installed = path.join(dir, 'node_modules', 'whatwg-eventsource')
mkdirSync(installed, { recursive: true })
const tarball = execFileSync('npm', ['pack', '--silent', '--pack-destination', dir], { cwd: root, encoding: 'utf8' }).trim().split('\n').pop()
execFileSync('tar', ['-xzf', path.join(dir, tarball), '-C', installed, '--strip-components=1'])
symlinkSync(realpathSync(path.join(root, 'node_modules', 'undici')), path.join(dir, 'node_modules', 'undici'), 'dir')
writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ private: true, type: 'module' }))
for (const file of ['suite.mjs', 'main.mjs', 'browser-main.mjs', 'browser-standard.mjs']) copyFileSync(path.join(here, file), path.join(dir, file))

// ---- the browser bundles ----

const esbuild = require('esbuild')
// Files that must never reach a browser (Node built-ins would fail the build itself: esbuild cannot
// resolve them for these platforms): the package's Node-only modules and undici, as test/package/bundle.test.cjs
// has them.
const { NODE_ONLY } = require('../helpers/bundle.cjs')
const PACKAGE = 'node_modules/whatwg-eventsource/'
// The drop-in entry points and the server's, which the suite imports.
const DROP_INS = ['whatwg-eventsource/eventsource', 'whatwg-eventsource/parser', 'whatwg-eventsource/parser/stream', 'whatwg-eventsource/server']

// Why each drop-in entry that does not bundle with these options does not: the page and the worker get a
// module that says so in its place, and the suite skips its test there (the other entries still run).
async function unbundled (options) {
  const reasons = new Map()
  for (const entry of DROP_INS) {
    try {
      await esbuild.build({ stdin: { contents: `export * from '${entry}'`, resolveDir: dir }, absWorkingDir: dir, bundle: true, write: false, logLevel: 'silent', ...options })
    } catch (err) {
      reasons.set(entry, err.errors?.[0]?.text ?? err.message)
    }
  }
  return reasons
}

// The extensions' modules: in the bundles that import the EventSource of whatwg-eventsource/extensions, and in no other.
const EXTENSION_MODULES = ['lib/eventsource/init-extensions.js', 'lib/eventsource/reconnect-policy.js', 'lib/eventsource/message-iterator.js', 'lib/transport/request-init.js']

async function bundle (options, entry = 'browser-main.mjs') {
  const reasons = await unbundled(options)
  const stand = {
    name: 'unbundled-entries',
    setup (build) {
      build.onResolve({ filter: /^whatwg-eventsource\// }, (args) => reasons.has(args.path) ? { path: args.path, namespace: 'unbundled' } : undefined)
      build.onLoad({ filter: /.*/, namespace: 'unbundled' }, (args) => ({ contents: `export const unavailable = ${JSON.stringify(reasons.get(args.path))}`, loader: 'js' }))
    }
  }
  const result = await esbuild.build({
    entryPoints: [path.join(dir, entry)],
    absWorkingDir: dir,
    bundle: true,
    format: 'esm',
    write: false,
    metafile: true,
    logLevel: 'silent',
    plugins: [stand],
    ...options
  })
  const inputs = Object.keys(result.metafile.inputs)
  // As paths from the package, or from node_modules for another package's files.
  const shown = (input) => input.startsWith(PACKAGE) ? input.slice(PACKAGE.length) : input.slice(Math.max(0, input.indexOf('node_modules/')))
  const leaked = inputs.filter((input) => NODE_ONLY.test(shown(input)))
  if (leaked.length !== 0) throw new Error(`the bundle holds Node-only modules: ${leaked.join(', ')}`)
  if (!inputs.includes(`${PACKAGE}lib/entries/browser.js`)) throw new Error('the bundle does not start from lib/entries/browser.js')
  // whatwg-eventsource/server under `browser` and `worker`: its own entry, with the web sink alone (NODE_ONLY has
  // the Node entry and sinks).
  if (entry === 'browser-main.mjs' && !inputs.includes(`${PACKAGE}lib/entries/server.browser.js`)) {
    throw new Error(`${entry}: the bundle does not take whatwg-eventsource/server from lib/entries/server.browser.js`)
  }
  const extensions = EXTENSION_MODULES.filter((file) => inputs.includes(`${PACKAGE}${file}`))
  const expected = entry === 'browser-main.mjs' ? EXTENSION_MODULES : []
  if (extensions.join() !== expected.join()) throw new Error(`${entry}: the bundle holds ${extensions.join(', ') || 'none'} of the extensions' modules`)
  for (const [entry, reason] of reasons) console.log(`# ${options.platform === 'browser' ? 'page' : 'worker'}: ${entry} does not bundle (${reason}): its test is skipped`)
  return result.outputFiles[0].contents
}

const assets = new Map()
if (chromium !== undefined) {
  // The page: the `browser` condition, as a bundler for browsers sets it. The worker: only `worker`.
  assets.set('/page.js', { type: 'text/javascript', body: await bundle({ platform: 'browser' }) })
  assets.set('/worker.js', { type: 'text/javascript', body: await bundle({ platform: 'neutral', conditions: ['worker'], mainFields: ['module', 'main'] }) })
  assets.set('/', { type: 'text/html', body: '<!doctype html><meta charset="utf-8"><script type="module" src="/page.js"></script>' })
  // The standard build: the package without whatwg-eventsource/extensions.
  assets.set('/standard.js', { type: 'text/javascript', body: await bundle({ platform: 'browser' }, 'browser-standard.mjs') })
  assets.set('/standard.html', { type: 'text/html', body: '<!doctype html><meta charset="utf-8"><script type="module" src="/standard.js"></script>' })
  assets.set('/worker.html', {
    type: 'text/html',
    body: `<!doctype html><meta charset="utf-8"><script>
const worker = new Worker('/worker.js' + location.search, { type: 'module' })
worker.onmessage = ({ data }) => { if (data.line !== undefined) console.log(data.line); else globalThis.suiteResult = data.result }
worker.onerror = (event) => { console.log('not ok - the worker failed: ' + event.message); globalThis.suiteResult = { passed: 0, failed: 1 } }
</script>`
  })
  // What a browser application would ship: the package alone, minified.
  const minified = await esbuild.build({
    stdin: { contents: "export { EventSource } from 'whatwg-eventsource'", resolveDir: dir },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    write: false,
    logLevel: 'silent'
  })
  console.log(`# browser bundle of EventSource: ${minified.outputFiles[0].contents.length} bytes minified`)
}

// ---- the runs ----

const servers = await startServers({ assets })
console.log(`# servers: ${servers.base} (pages, streams), ${servers.cross} (cross-origin streams); setup ${Math.round(performance.now() - started)} ms`)

function childEnv () {
  const env = { ...process.env }
  // A proxy from the environment must not stand between the runtimes and the loopback servers.
  for (const name of Object.keys(env)) if (/^(?:https?|all|no)_proxy$/i.test(name)) delete env[name]
  return env
}

// Counts what a run printed: `ok N - name`, `not ok N - name`, `ok N - name # SKIP why` (lines starting
// with # are comments).
function tally (run, lines) {
  const names = new Set()
  let failed = 0
  let skipped = 0
  for (const line of lines) {
    const match = /^(not )?ok \d+ - (.*?)( # SKIP .*)?$/.exec(line)
    if (match === null) continue
    names.add(match[2])
    if (match[1] !== undefined) failed++
    else if (match[3] !== undefined) skipped++
  }
  const missing = (run.names ?? testNames).filter((name) => !names.has(name))
  return { passed: names.size - failed - skipped, failed: failed + missing.length, skipped, missing }
}

function runProcess (run, config) {
  return new Promise((resolve) => {
    const child = spawn(run.bin, [...run.args, 'main.mjs', JSON.stringify(config)], { cwd: dir, env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] })
    const lines = []
    let pending = ''
    child.stdout.setEncoding('utf8').on('data', (text) => {
      const parts = (pending + text).split('\n')
      pending = parts.pop()
      for (const line of parts) {
        lines.push(line)
        console.log(`[${run.label}] ${line}`)
      }
    })
    let stderr = ''
    child.stderr.setEncoding('utf8').on('data', (text) => { stderr += text })
    const timer = setTimeout(() => {
      lines.push(`not ok - killed after ${RUN_TIMEOUT_MS} ms`)
      child.kill('SIGKILL')
    }, RUN_TIMEOUT_MS)
    child.on('close', (code) => {
      clearTimeout(timer)
      if (pending !== '') lines.push(pending)
      if (code !== 0 && stderr !== '') console.log(stderr.replace(/^/gm, `[${run.label}] stderr: `).trimEnd())
      resolve({ lines, exitCode: code })
    })
  })
}

let browser = null
async function runPage (run, config) {
  if (browser === null) {
    const { chromium: launcher } = require('playwright-core')
    // Debian's chromium, as installed: playwright downloads no browser of its own.
    browser = await launcher.launch({ executablePath: chromium, headless: true })
    console.log(`# chromium ${browser.version()} (${chromium})`)
  }
  const context = await browser.newContext()
  const page = await context.newPage()
  const lines = []
  page.on('console', (message) => {
    // The suite logs; what the browser itself reports (a failed load, a CORS refusal) is a comment.
    const line = message.type() === 'log' ? message.text() : `# console.${message.type()}: ${message.text()}`
    lines.push(line)
    console.log(`[${run.label}] ${line}`)
  })
  page.on('pageerror', (err) => {
    const line = `not ok - uncaught in the page: ${err.message}`
    lines.push(line)
    console.log(`[${run.label}] ${line}`)
  })
  let exitCode = 0
  try {
    await page.goto(`${servers.base}${run.page}?config=${encodeURIComponent(JSON.stringify(config))}`)
    const result = await page.waitForFunction(() => globalThis.suiteResult, null, { timeout: RUN_TIMEOUT_MS, polling: 50 })
    if ((await result.jsonValue()).failed !== 0) exitCode = 1
  } catch (err) {
    lines.push(`not ok - the page did not finish: ${err.message}`)
    exitCode = 1
  } finally {
    await context.close()
  }
  return { lines, exitCode }
}

const results = []
try {
  for (const [index, run] of runs.entries()) {
    if (only !== null && !only.test(run.label)) continue
    const config = { base: servers.base, cross: servers.cross, keyPrefix: `run${index}`, transport: run.transport, passFetch: run.passFetch }
    const start = performance.now()
    const { lines, exitCode } = run.kind === 'page' ? await runPage(run, config) : await runProcess(run, config)
    const counts = tally(run, lines)
    // A run that ended badly without saying which test failed still fails.
    if (exitCode !== 0 && counts.failed === 0) counts.failed = 1
    for (const name of counts.missing) console.log(`[${run.label}] not ok - never reported: ${name}`)
    results.push({ label: run.label, ...counts, ms: performance.now() - start })
  }
} finally {
  await browser?.close()
  await servers.close()
  rmSync(dir, { recursive: true, force: true })
}

console.log('')
for (const { label, passed, failed, skipped, ms } of results) {
  const skips = skipped === 0 ? '' : `, ${skipped} skipped`
  console.log(`# ${failed === 0 ? 'ok    ' : 'FAILED'} ${label}: ${passed} passed, ${failed} failed${skips} (${(ms / 1000).toFixed(1)} s)`)
}
for (const note of skipped) console.log(`# skipped ${note}`)
console.log(`# runtimes: ${results.length} runs in ${((performance.now() - started) / 1000).toFixed(1)} s`)
const passed = results.reduce((sum, r) => sum + r.passed, 0)
const failed = results.reduce((sum, r) => sum + r.failed, 0)
const skippedTests = results.reduce((sum, r) => sum + r.skipped, 0)
console.log(`${passed} passed, ${failed} failed${skippedTests === 0 ? '' : `, ${skippedTests} tests skipped`}${skipped.length === 0 ? '' : `, ${skipped.length} runtimes skipped`}`)
process.exitCode = failed === 0 && results.length !== 0 ? 0 : 1
