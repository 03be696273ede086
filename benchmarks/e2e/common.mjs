// Helpers shared by the benchmark runners (benchmarks/e2e/run.mjs, benchmarks/memory/run.mjs, and the
// parser benchmarks' JSON heads and --processes runs).

import { fork, spawn, execFileSync } from 'node:child_process'
import { readFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import os from 'node:os'
import v8 from 'node:v8'
import vm from 'node:vm'

/**
 * Forks the event-stream server; resolves with { child, port, base, bases }: `bases` has the base URL
 * for each transport (http, https, h2).
 */
export async function startServer () {
  const child = fork(fileURLToPath(new URL('./server.mjs', import.meta.url)), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  const { port, tlsPort, h2Port } = await new Promise((resolve, reject) => {
    child.once('error', reject)
    child.once('exit', (code) => reject(new Error(`the server exited (${code}) before listening`)))
    child.on('message', function onMessage (m) {
      if (m?.type === 'listening') {
        child.off('message', onMessage)
        resolve(m)
      }
    })
  })
  child.removeAllListeners('exit')
  const base = `http://127.0.0.1:${port}`
  return { child, port, base, bases: { http: base, https: `https://127.0.0.1:${tlsPort}`, h2: `https://127.0.0.1:${h2Port}` } }
}

/** Sends a message to the server and resolves with its first reply of type `replyType`. */
export function ask (child, message, replyType) {
  return new Promise((resolve) => {
    child.on('message', function onMessage (m) {
      if (m?.type === replyType) {
        child.off('message', onMessage)
        resolve(m)
      }
    })
    child.send(message)
  })
}

/**
 * Forks `script` with `config` (JSON in argv[2]) and resolves with the one message it sends. The child
 * gets `execArgv` (e.g. --expose-gc) and nothing from this process's own flags.
 */
export function runChild (script, config, { execArgv = [], timeout = 180_000 } = {}) {
  return new Promise((resolve, reject) => {
    const child = fork(script, [JSON.stringify(config)], { execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
    let result
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`${script} timed out after ${timeout} ms`))
    }, timeout)
    child.on('message', (m) => { result = m })
    child.on('error', reject)
    child.on('exit', (code, signal) => {
      clearTimeout(timer)
      if (result !== undefined) resolve(result)
      else reject(new Error(`${script} ${JSON.stringify(config)} exited (${code ?? signal}) without a result`))
    })
  })
}

/** The soft limit on open files of this process (Linux: /proc/self/limits), or null when unknown. */
export function openFileLimit () {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8').split('\n').find((l) => l.startsWith('Max open files'))
    const [soft, hard] = line.slice('Max open files'.length).trim().split(/\s+/)
    return { soft: soft === 'unlimited' ? Infinity : Number(soft), hard: hard === 'unlimited' ? Infinity : Number(hard) }
  } catch {
    return null
  }
}

/** The commit measured, and whether lib/ differs from it (null outside a git checkout). */
export function gitState () {
  const root = fileURLToPath(new URL('../..', import.meta.url))
  try {
    const git = (...args) => execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim()
    return { commit: git('rev-parse', '--short', 'HEAD'), libModified: git('status', '--porcelain', '--', 'lib', 'index.js') !== '' }
  } catch {
    return null
  }
}

/**
 * The head of a parser benchmark's JSON (parser.bench.mjs, parser-strings.bench.mjs): what ran, where,
 * and how loaded the machine was before and after.
 */
export function runHeader ({ cpu, note, loadBefore, loadAfter }) {
  return {
    node: process.version,
    v8: process.versions.v8,
    date: new Date().toISOString(),
    platform: `${os.platform()}-${os.arch()}`,
    cpu,
    cores: os.availableParallelism?.() ?? os.cpus().length,
    git: gitState(),
    note,
    loadavg: { before: loadBefore, after: loadAfter },
    command: [process.argv0, ...process.execArgv, ...process.argv.slice(1)].join(' ')
  }
}

/** The head of a --processes run's JSON: the first child's environment, this run's git state and load. */
export function mergedRunHeader (first, { note, loadBefore }) {
  return {
    node: first.node,
    v8: first.v8,
    date: new Date().toISOString(),
    platform: first.platform,
    cpu: first.cpu,
    cores: first.cores,
    git: gitState(),
    note: note ?? null,
    loadavg: { before: loadBefore, after: os.loadavg() },
    command: [process.argv0, ...process.execArgv, ...process.argv.slice(1)].join(' ')
  }
}

/**
 * A real gc() for a GC before every sample: without --expose-gc mitata allocates 1 GiB instead, and
 * `npm run bench` runs plain `node`; exposed before mitata is loaded and looks for it.
 */
export function exposeGc () {
  if (typeof globalThis.gc === 'function') return
  v8.setFlagsFromString('--expose-gc')
  globalThis.gc = vm.runInNewContext('gc')
}

/** argv without `--processes N` and `--json path`: what each child of a --processes run gets, plus its own --json. */
export function childArgv (argv) {
  const out = []
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--processes' || argv[i] === '--json') i++
    else out.push(argv[i])
  }
  return out
}

/**
 * A --processes run: the benchmark `script` in `processes` fresh processes, one after another, each
 * with `argv` (less --processes and --json) and a --json file of its own; resolves with their results.
 */
export async function runInProcesses (script, processes, argv, name) {
  const dir = mkdtempSync(join(os.tmpdir(), 'bench-processes-'))
  const runs = []
  try {
    for (let p = 0; p < processes; p++) {
      console.log(`==== ${name} process ${p + 1} of ${processes} ====`)
      const file = join(dir, `run-${p}.json`)
      await runScript(script, [...childArgv(argv), '--json', file], name)
      runs.push(JSON.parse(readFileSync(file, 'utf8')))
      console.log('')
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  return runs
}

/** Runs `script` with `args` in a child process of this Node (and its flags); rejects unless it exits 0. */
export function runScript (script, args, name) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...process.execArgv, script, ...args], { stdio: 'inherit' })
    child.on('error', reject)
    child.on('exit', (code, signal) => code === 0 ? resolve() : reject(new Error(`${name} process exited with ${code ?? signal}`)))
  })
}

export function environment () {
  const cpus = os.cpus()
  return {
    git: gitState(),
    node: process.version,
    v8: process.versions.v8,
    platform: `${os.platform()}-${os.arch()}`,
    kernel: os.release(),
    cpu: cpus[0]?.model ?? 'unknown',
    cores: os.availableParallelism?.() ?? cpus.length,
    memory: `${Math.round(os.totalmem() / 1024 / 1024 / 1024)} GiB`,
    loadavg: os.loadavg().map((x) => Number(x.toFixed(2)))
  }
}

export function median (values) {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

export function summarize (values) {
  return { median: median(values), min: Math.min(...values), max: Math.max(...values), samples: values }
}

/** A Markdown table from a header row and rows of cells. Right-aligns every column but the first. */
export function table (header, rows) {
  // At least 3 wide: a rule needs a '-' besides its ':', also under an empty header with no rows.
  const widths = header.map((h, i) => Math.max(3, h.length, ...rows.map((r) => String(r[i]).length)))
  const line = (cells) => `| ${cells.map((c, i) => i === 0 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i])).join(' | ')} |`
  const rule = `| ${widths.map((w, i) => i === 0 ? '-'.repeat(w) : `${'-'.repeat(w - 1)}:`).join(' | ')} |`
  return [line(header), rule, ...rows.map(line)].join('\n')
}

export function fmtInt (x) {
  return Math.round(x).toLocaleString('en-US')
}

export function fmtRatio (x) {
  return `${x.toFixed(2)}x`
}

export function fmtKiB (bytes) {
  return `${(bytes / 1024).toFixed(2)} KiB`
}

/** "met" / "MISSED" for a ratio against its target; `atLeast` says which way the target goes. */
export function verdict (ratio, target, atLeast) {
  return (atLeast ? ratio >= target : ratio <= target) ? 'met' : 'MISSED'
}

/**
 * Writes a run's JSON results, regenerates the chart, and sets a failing exit code when a client
 * failed verification: the last step of both runners.
 */
export async function saveResults (jsonPath, output, { chart = true } = {}) {
  mkdirSync(dirname(jsonPath), { recursive: true })
  writeFileSync(jsonPath, JSON.stringify(output, null, 2) + '\n')
  console.log('')
  console.log(`results: ${relative(process.cwd(), jsonPath)}`)
  if (chart) {
    const { writeChart } = await import('../chart/chart.mjs')
    const svg = writeChart({ node: process.version })
    if (svg) console.log(`chart: ${relative(process.cwd(), svg)}`)
  }
  if (!output.verifiedAll) {
    console.error('some client failed verification: see above')
    process.exitCode = 1
  }
}

/** The value after `name` on the command line (`--runs 3`), or `fallback`. Shared by both runners. */
/**
 * Where a whole-client runner writes its results by default: benchmarks/results/<name>[-tls]-<node>.json,
 * one file per benchmark, transport family and Node version (benchmarks/report.mjs reads them all).
 * @param {string} name e2e | memory
 * @param {boolean} tls
 */
export function defaultResultsPath (name, tls) {
  const file = `${name}-${tls ? 'tls-' : ''}${process.version}.json`
  return fileURLToPath(new URL(`../results/${file}`, import.meta.url))
}

export function option (name, fallback) {
  const i = process.argv.indexOf(name)
  return i === -1 ? fallback : process.argv[i + 1]
}
