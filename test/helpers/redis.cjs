'use strict'

// A real redis-server for the tests of whatwg-eventsource/server/redis: Debian's `redis-server`, started by
// the test on 127.0.0.1 with a free port and a temporary directory of its own, stopped at teardown. No
// persistence unless a test asks for it (`persist`: an append-only file written at every command, so that a
// restart, graceful or not, finds every entry acknowledged before it). A machine without redis-server skips
// those tests with a message that says how to get it (`redisMissing()`).
//
// A test process that dies before its teardown (tap's timeout kills it) must not leave a redis-server
// behind: each server has a watchdog, a shell that reads a pipe from the test process and kills the server
// when the pipe ends, which the kernel does however the test process dies.

const { spawn, execFileSync } = require('node:child_process')
const { once } = require('node:events')
const fs = require('node:fs')
const net = require('node:net')
const os = require('node:os')
const path = require('node:path')
const { bounded } = require('./wait.cjs')

const REDIS_SERVER = process.env.REDIS_SERVER ?? 'redis-server'
const SKIP_MESSAGE = 'redis-server is not installed (apt-get install redis-server, or REDIS_SERVER=<path>): ' +
  'the Redis tests are skipped'

let found
/** Why the Redis tests cannot run here (redis-server missing), or null when they can. */
function redisMissing () {
  if (found === undefined) {
    try {
      execFileSync(REDIS_SERVER, ['--version'], { stdio: 'ignore' })
      found = true
    } catch {
      found = false
    }
  }
  return found ? null : SKIP_MESSAGE
}

/** A port nothing listens on now (the server that had it is closed before it is returned). */
async function freePort () {
  const server = net.createServer().listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address()
  server.close()
  await once(server, 'close')
  return port
}

/**
 * Starts a redis-server; it is killed at the teardown of `t`, and its directory removed.
 * @param {import('tap').Test} t
 * @param {{ persist?: boolean }} [options] persist: an append-only file, fsync'd at every write
 * @returns {Promise<{ port: number, url: string, dir: string, alive: () => boolean,
 *   stop: (signal?: NodeJS.Signals) => Promise<void>, start: () => Promise<void>,
 *   restart: (signal?: NodeJS.Signals) => Promise<void> }>}
 */
async function redisServer (t, { persist = false } = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'whatwg-eventsource-redis-'))
  const args = (port) => [
    '--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--daemonize', 'no',
    '--logfile', '', '--loglevel', 'notice',
    ...(persist ? ['--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no'])
  ]
  let child = null
  let port = 0
  let log = ''

  // Starts the server on `port`; resolves once it accepts connections, false when the port was taken.
  async function launch (wanted) {
    const proc = spawn(REDIS_SERVER, args(wanted), { stdio: ['ignore', 'pipe', 'pipe'] })
    const exited = once(proc, 'exit')
    let out = ''
    const ready = new Promise((resolve) => {
      const onData = (chunk) => {
        out += chunk
        log += chunk
        if (out.includes('Ready to accept connections')) resolve(true)
        else if (/Address already in use|Could not create server TCP listening socket/.test(out)) resolve(false)
      }
      proc.stdout.on('data', onData)
      proc.stderr.on('data', onData)
    })
    const outcome = await bounded(Promise.race([ready, exited.then(() => false)]),
      () => `redis-server to start on port ${wanted}:\n${out}`)
    if (!outcome) {
      if (proc.exitCode === null && proc.signalCode === null) {
        proc.kill('SIGKILL')
        await exited
      }
      return false
    }
    child = proc
    watch(proc)
    return true
  }

  // The watchdog of a started server; gone with the server.
  function watch (proc) {
    const watchdog = spawn('sh', ['-c', 'read -r _; kill -9 "$1" 2>/dev/null', 'watchdog', String(proc.pid)], {
      stdio: ['pipe', 'ignore', 'ignore']
    })
    watchdog.unref()
    watchdog.stdin.unref()
    watchdog.stdin.on('error', () => {})
    proc.once('exit', () => watchdog.kill('SIGKILL'))
  }

  async function start () {
    if (port !== 0) {
      // A restart takes the same port, which clients reconnect to.
      if (!await launch(port)) throw new Error(`redis-server could not listen again on port ${port}:\n${log}`)
      return
    }
    for (let attempt = 0; attempt < 5; attempt++) {
      const wanted = await freePort()
      if (await launch(wanted)) {
        port = wanted
        return
      }
    }
    throw new Error(`redis-server found no free port:\n${log}`)
  }

  /** Stops the server: SIGTERM is a graceful shutdown, SIGKILL a crash. */
  async function stop (signal = 'SIGTERM') {
    const proc = child
    if (proc === null) return
    child = null
    const exited = once(proc, 'exit')
    proc.kill(signal)
    await bounded(exited, `redis-server to exit on ${signal}`)
  }

  await start()
  t.teardown(async () => {
    await stop('SIGKILL')
    fs.rmSync(dir, { recursive: true, force: true })
  })
  return {
    get port () { return port },
    get url () { return `redis://127.0.0.1:${port}` },
    dir,
    alive: () => child !== null,
    start,
    stop,
    /** Stops the server (gracefully by default) and starts it again on the same port. */
    async restart (signal = 'SIGTERM') {
      await stop(signal)
      await start()
    }
  }
}

module.exports = { redisServer, redisMissing, freePort }
