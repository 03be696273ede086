'use strict'

// The command-line client against the demo server: `node examples/cli-demo.js [ssecat options]`.
// The server sends seven numbered ticks and drops the connection after every third, so the CLI shows
// its reconnections on stderr and resumes from Last-Event-ID; after the eighth event ("done") the CLI
// exits (--count 8, which options given here override, e.g. --json or --type tick).

const { spawn } = require('node:child_process')
const path = require('node:path')
const { startDemoServer } = require('./demo-server')

async function main () {
  const demo = await startDemoServer()
  const args = [path.join(__dirname, '..', 'bin', 'ssecat.js'), '--count', '8', ...process.argv.slice(2), demo.url]
  console.error(`$ ssecat ${args.slice(1).join(' ')}`)
  const child = spawn(process.execPath, args, { stdio: 'inherit' })
  // Ctrl-C reaches the CLI directly (same process group); wait for it to exit, then stop the server.
  process.on('SIGINT', () => {})
  child.on('exit', async (code, signal) => {
    await demo.close()
    process.exitCode = code ?? (signal === null ? 1 : 128)
  })
}

main()
