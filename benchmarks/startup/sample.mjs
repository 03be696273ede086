// One sample of the startup benchmark: spawn one fresh process and time it, from the parent's
// process.hrtime just before spawn() to the child's first event (a line on its stdout) or to its exit,
// and read the child's own performance.now() at that point (milliseconds since its
// performance.timeOrigin). Resolves with { parentMs, childMs, error }; error is null when the
// child did what was expected (exit code 0, and the event it printed is the one the server sent: its
// data is `data`).

import { spawn } from 'node:child_process'
import { command } from './clients.mjs'

const TIMEOUT = 30_000

// Children start from scratch: no NODE_OPTIONS (no preloads or flags from the caller's environment) and
// no on-disk compile cache.
const env = { ...process.env }
delete env.NODE_OPTIONS
delete env.NODE_COMPILE_CACHE

export function sample (client, url, data) {
  const { args, until, stdio, expected } = command(client, url, data)
  return new Promise((resolve) => {
    let stdout = ''
    let stderr = ''
    let stamp = ''
    let end = null
    let settled = false
    const start = process.hrtime.bigint()
    const child = spawn(process.execPath, args, { stdio, env })
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      finish(`timed out after ${TIMEOUT} ms`)
    }, TIMEOUT)
    child.stdout.setEncoding('utf8')
    child.stdout.on('data', (chunk) => {
      if (until === 'event' && end === null && chunk.includes('\n')) end = process.hrtime.bigint()
      stdout += chunk
    })
    child.stderr.setEncoding('utf8')
    child.stderr.on('data', (chunk) => { stderr += chunk })
    child.stdio[3]?.setEncoding('utf8')
    child.stdio[3]?.on('data', (chunk) => { stamp += chunk })
    child.on('error', (err) => finish(err.message))
    child.on('exit', (code, signal) => {
      if (until === 'exit') end = process.hrtime.bigint()
      // 'close' comes after every pipe has been read to its end (the stamp on fd 3 included).
      child.once('close', () => finish(code === 0 ? null : `exited with ${code ?? signal}: ${stderr.trim().split('\n').at(-1)}`))
    })

    function finish (error) {
      if (settled) return
      settled = true
      clearTimeout(timer)
      const parentMs = end === null ? null : Number(end - start) / 1e6
      let childMs = null
      let printed = null
      if (until === 'event') {
        const line = stdout.split('\n')[0]
        const space = line.indexOf(' ')
        childMs = Number(line.slice(0, space))
        printed = line.slice(space + 1)
      } else {
        childMs = Number(stamp.trim())
        printed = stdout.trim()
      }
      if (error === null && parentMs === null) error = 'no end time'
      if (error === null && !(childMs > 0)) error = `no time from the child (${JSON.stringify(until === 'exit' ? stamp : stdout)})`
      if (error === null && printed !== expected) error = `printed ${JSON.stringify(printed)}, expected ${JSON.stringify(expected)}`
      resolve({ parentMs, childMs, error })
    }
  })
}
