'use strict'

// The suite's runner: each test file with plain `node`, a few at a time, passing when the file exits 0
// after printing its plan (tap documents this as its simplest mode). `npm test` runs it under c8, and CI
// without coverage on the other Node versions. tap's own runner would also load its hooks into every file
// (ts-node, the mock loader, processinfo): about 1 s of CPU per file on Node 24 and 2 s on Node 20, which
// doubled what the suite cost. One file alone: `npx tap --disable-coverage test/<folder>/<file>.test.cjs`.
//
//   node test/run.cjs [--jobs n] [--order <file>] [--durations <file>] [--exclude <regexp>] [files...]
//
// Files default to every test/**/*.test.cjs (the folders mirror lib/'s layers).
// --jobs: how many files at once; by default the number of cores, plus one, as the files also wait on
//   sockets, timers and child processes.
// --order: the durations written by an earlier run; files start longest first by them, so that a long
//   file does not start last.
// --durations: where this run writes each file's wall time. It and --order default to
//   .tap/durations.txt, so that a run is ordered by the one before it.
// --exclude: leaves out the files whose path (test/...) the regular expression matches.
// At the end it prints the failed files' output and the slowest files' wall times, and exits 1 if any
// failed.

const { spawn } = require('node:child_process')
const { mkdirSync, readdirSync, readFileSync, writeFileSync } = require('node:fs')
const { availableParallelism } = require('node:os')
const path = require('node:path')

const ROOT = path.join(__dirname, '..')
// A file that has not ended by then hangs: tap's own timeout ends every test long before.
const HARD_LIMIT = 10 * 60_000
// tap's timeout for a whole file, as the tap runner takes it from package.json ("tap": { "timeout" }):
// a file run with plain node reads it from TAP_TIMEOUT, else keeps tap's 30 s.
const TAP_TIMEOUT = String(require('../package.json').tap?.timeout ?? 30)

const DURATIONS = path.join(ROOT, '.tap', 'durations.txt')

function parseArgs (argv) {
  const options = { jobs: availableParallelism() + 1, order: DURATIONS, durations: DURATIONS, exclude: null, files: [] }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]
    if (arg === '--jobs') options.jobs = Number(argv[++i])
    else if (arg === '--order') options.order = argv[++i]
    else if (arg === '--durations') options.durations = argv[++i]
    else if (arg === '--exclude') options.exclude = new RegExp(argv[++i])
    else if (arg.startsWith('--')) throw new Error(`unknown option ${arg}`)
    else options.files.push(arg)
  }
  if (!Number.isInteger(options.jobs) || options.jobs < 1) throw new Error('--jobs takes a whole number of at least 1')
  if (options.files.length === 0) {
    options.files = readdirSync(path.join(ROOT, 'test'), { recursive: true })
      .filter((f) => f.endsWith('.test.cjs'))
      .map((f) => `test/${f.split(path.sep).join('/')}`)
      .sort()
  }
  if (options.exclude !== null) options.files = options.files.filter((file) => !options.exclude.test(file))
  return options
}

/** Each file's wall time in an earlier run's durations (lines of `<seconds> s  [FAILED ]<file>`). */
function earlierTimes (file) {
  const times = new Map()
  let text = ''
  try {
    text = readFileSync(file, 'utf8')
  } catch {
    return times
  }
  for (const line of text.split('\n')) {
    const match = /^\s*([\d.]+) s {2}(?:FAILED )?(\S+)$/.exec(line)
    if (match) times.set(match[2], Number(match[1]))
  }
  return times
}

function runFile (file) {
  return new Promise((resolve) => {
    const started = performance.now()
    const child = spawn(process.execPath, [file], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { TAP_TIMEOUT, ...process.env }
    })
    const output = []
    child.stdout.on('data', (chunk) => output.push(chunk))
    child.stderr.on('data', (chunk) => output.push(chunk))
    const limit = setTimeout(() => child.kill('SIGKILL'), HARD_LIMIT)
    child.on('close', (code, signal) => {
      clearTimeout(limit)
      const text = Buffer.concat(output).toString('utf8')
      // Exit 0 and a plan at the top level: tap exits 1 on a failure, and a file that stopped early
      // without failing has no plan.
      const ok = code === 0 && /^1\.\.\d+/m.test(text)
      resolve({ file, ok, code, signal, ms: performance.now() - started, text })
    })
  })
}

async function main () {
  const options = parseArgs(process.argv.slice(2))
  const times = earlierTimes(options.order)
  const queue = [...options.files].sort((a, b) => (times.get(b) ?? 0) - (times.get(a) ?? 0))
  const results = []
  const started = performance.now()
  const worker = async () => {
    for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
      const result = await runFile(file)
      results.push(result)
      if (!result.ok) process.stdout.write(`not ok - ${file} (exit ${result.signal ?? result.code})\n`)
    }
  }
  await Promise.all(Array.from({ length: Math.min(options.jobs, queue.length) }, worker))
  const wall = (performance.now() - started) / 1000

  const failed = results.filter((r) => !r.ok)
  for (const { file, text } of failed) process.stdout.write(`\n--- ${file} ---\n${text}\n`)
  const byTime = [...results].sort((a, b) => b.ms - a.ms)
  const lines = byTime.map((r) => `${(r.ms / 1000).toFixed(2).padStart(7)} s  ${r.ok ? '' : 'FAILED '}${r.file}`)
  mkdirSync(path.dirname(options.durations), { recursive: true })
  writeFileSync(options.durations, `${lines.join('\n')}\n`)
  const sum = results.reduce((total, r) => total + r.ms, 0) / 1000
  process.stdout.write(`# slowest files (wall time each, ${options.jobs} at a time):\n${lines.slice(0, 12).join('\n')}\n`)
  process.stdout.write(`# ${results.length} files, ${failed.length} failed, in ${wall.toFixed(1)} s (${sum.toFixed(1)} s of file time)\n`)
  process.exitCode = failed.length === 0 ? 0 : 1
}

main().catch((err) => {
  process.stderr.write(`${err.stack}\n`)
  process.exitCode = 2
})
