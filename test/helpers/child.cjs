'use strict'

// Child processes: the CLI, the scripts in test/children/ and `node -e` snippets, run with the same
// Node as the tests. Output is collected as it arrives; every wait on a child is bounded and resolves
// on its output or its exit. A child still running at teardown is killed.

const { spawn } = require('node:child_process')
const { once } = require('node:events')
const { StringDecoder } = require('node:string_decoder')
const { bounded, TIMEOUT } = require('./wait.cjs')

// Variables of the outside world that would send a child's requests elsewhere.
const PROXY = /^(https?|all|no)_proxy$/i
// The test runner's: its hooks (tap's --import in NODE_OPTIONS) and its bookkeeping.
const RUNNER = /^(NODE_OPTIONS$|TAP|_TAPJS)/

/**
 * The environment of a child: the tests' own, without proxy settings, and
 * - isolate: without the test runner's hooks (tap's --import in NODE_OPTIONS, its bookkeeping
 *   variables), which would load into the child and slow its start several times over;
 * - coverage false: without NODE_V8_COVERAGE, so the child writes no coverage profile (what the
 *   library's own tests measure) and its heap holds nothing of the collection;
 * then `env` on top (a value of undefined removes the variable).
 */
function childEnv ({ env = {}, isolate = false, coverage = true } = {}) {
  const result = { ...process.env }
  for (const name of Object.keys(result)) {
    if (PROXY.test(name) || name === 'NODE_USE_ENV_PROXY') delete result[name]
    if (isolate && RUNNER.test(name)) delete result[name]
  }
  if (!coverage) delete result.NODE_V8_COVERAGE
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) delete result[name]
    else result[name] = value
  }
  return result
}

/**
 * The command that runs `node ...args` without the test runner's hooks. Removing them from the
 * environment given to spawn() is not enough under tap's runner: @tapjs/processinfo wraps spawning
 * in the test process and puts its --import back into every child's NODE_OPTIONS (which costs about
 * 0.1 s of CPU per child on Node 24, 0.2 s on Node 20, and loads into the heap the memory children
 * measure). So the child is started through env(1), which removes them and then runs Node in its
 * place (same pid). Windows has no env(1): there the child keeps the hooks.
 * @param {string[]} args
 * @returns {[string, string[]]}
 */
function isolated (args) {
  if (process.platform === 'win32') return [process.execPath, args]
  const unset = ['NODE_OPTIONS', ...Object.keys(process.env).filter((name) => RUNNER.test(name))]
  return ['env', [...new Set(unset)].flatMap((name) => ['-u', name]).concat(process.execPath, args)]
}

/**
 * Runs `node ...args`.
 * @param {import('tap').Test} t the child is killed at its teardown if still running
 * @param {string[]} args the script (or -e and code) and its arguments, Node flags first
 * @param {{ env?: Record<string, string | undefined>, isolate?: boolean, coverage?: boolean,
 *   input?: string, stdin?: 'ignore' | 'pipe', cwd?: string }} [options] `input`: written to stdin,
 *   which is then ended; `stdin: 'pipe'` leaves it open for the test to write to (child.stdin)
 */
function runChild (t, args, { input, stdin = input === undefined ? 'ignore' : 'pipe', cwd, ...envOptions } = {}) {
  const [command, commandArgs] = envOptions.isolate ? isolated(args) : [process.execPath, args]
  const child = spawn(command, commandArgs, { cwd, env: childEnv(envOptions), stdio: [stdin, 'pipe', 'pipe'] })
  const out = { stdout: '', stderr: '', stdoutBytes: [], stderrBytes: [] }
  const waiters = []
  const check = () => {
    for (let i = waiters.length - 1; i >= 0; i--) {
      const { stream, pattern, resolve } = waiters[i]
      const match = typeof pattern === 'string' ? out[stream].includes(pattern) : pattern.exec(out[stream])
      if (match) {
        waiters.splice(i, 1)
        resolve(match)
      }
    }
  }
  for (const stream of ['stdout', 'stderr']) {
    const decoder = new StringDecoder('utf8')
    child[stream].on('data', (chunk) => {
      out[`${stream}Bytes`].push(chunk)
      out[stream] += decoder.write(chunk)
      check()
    })
  }
  if (stdin === 'pipe') {
    // A child that has exited cannot read stdin; ignore the EPIPE that writing to it may cause.
    child.stdin.on('error', () => {})
    if (input !== undefined) child.stdin.end(input)
  }
  // 'close': exited, and its output read to the end.
  const closed = once(child, 'close')
  const alive = () => child.exitCode === null && child.signalCode === null
  t.teardown(() => { if (alive()) child.kill('SIGKILL') })
  const describe = () => `\n--- stdout ---\n${out.stdout}\n--- stderr ---\n${out.stderr}`

  return {
    child,
    get stdout () { return out.stdout },
    get stderr () { return out.stderr },
    /** stdout exactly as received, as one Buffer. */
    get stdoutBuffer () { return Buffer.concat(out.stdoutBytes) },
    /** stderr exactly as received, as one Buffer. */
    get stderrBuffer () { return Buffer.concat(out.stderrBytes) },
    alive,
    /** Resolves with the match once `stream` ('stdout' or 'stderr') contains `pattern`. */
    waitFor (stream, pattern, ms = TIMEOUT) {
      const found = new Promise((resolve) => {
        waiters.push({ stream, pattern, resolve })
        check()
      })
      return bounded(found, () => `${stream} to match ${pattern}${describe()}`, ms)
    },
    /** Resolves like `promise`, or rejects at once if the child exits first. */
    whileAlive (promise) {
      return Promise.race([promise, closed.then(() => {
        throw new Error(`the child exited (code ${child.exitCode}) while it should have been running${describe()}`)
      })])
    },
    /**
     * Resolves once the child has exited and its output is read: { code, signal, stdout, stderr,
     * reports, report }, where `reports` are the lines of stdout parsed as JSON (a line that is not
     * becomes { error }) and `report` is the last of them.
     */
    async exited (ms = TIMEOUT, what = 'the child to exit') {
      await bounded(closed, () => `${what}${describe()}`, ms)
      const reports = out.stdout.split('\n').filter((line) => line.trim() !== '').map((line) => {
        try {
          return JSON.parse(line)
        } catch {
          return { error: `not JSON: ${line}` }
        }
      })
      const report = reports.at(-1) ?? { error: `no report${describe()}` }
      return { code: child.exitCode, signal: child.signalCode, stdout: out.stdout, stderr: out.stderr, reports, report }
    }
  }
}

/**
 * Runs a child script that measures its own heap (--expose-gc), without the test runner's hooks and
 * without coverage, which would both weigh on what it measures; resolves like exited().
 * @param {import('tap').Test} t
 * @param {string} script
 * @param {unknown[]} args
 * @param {number} ms
 * @param {{ env?: Record<string, string | undefined>, flags?: string[] }} [options] `env` on top of the
 *   child's environment; `flags`, more Node (V8) flags, e.g. the size of the young generation
 */
function runHeapChild (t, script, args, ms, { env, flags = [] } = {}) {
  return runChild(t, ['--expose-gc', ...flags, script, ...args.map(String)], { isolate: true, coverage: false, env }).exited(ms)
}

module.exports = { runChild, runHeapChild, childEnv }
