// The processes the startup benchmark spawns, one per sample: how each is started, what ends its
// timing, and its label. Every one runs `process.execPath` (the Node running the benchmark).
//
//   ours         require('whatwg-eventsource').EventSource (this repository, by its package name)
//   undici       require('undici').EventSource (the undici package this repository depends on)
//   node         Node's global EventSource (undici bundled in Node), where this Node has it
//   eventsource  require('eventsource').EventSource (the eventsource package)
//   floor        a bare node:http GET, timed to the first event in the body: Node's own start-up and
//                HTTP cost, the least any client can take
//   ssecat       our CLI, `ssecat --count 1 <url>`, timed to the process's exit

import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'

const require = createRequire(import.meta.url)
const here = (file) => fileURLToPath(new URL(file, import.meta.url))

export const CLIENTS = ['ours', 'undici', 'node', 'eventsource', 'floor', 'ssecat']
/** The peers ours is compared with: the fastest of them (by median) sets the target. */
export const PEERS = ['undici', 'node', 'eventsource']

/**
 * How this Node gets a global EventSource: [] when it has one already, the flag when it needs one,
 * null when it has none.
 */
export function nodeEventSourceFlags () {
  if (typeof globalThis.EventSource === 'function') return []
  if (process.allowedNodeEnvironmentFlags.has('--experimental-eventsource')) return ['--experimental-eventsource']
  return null
}

/** The clients of `wanted` this Node can run (`node` needs a global EventSource). */
export function available (wanted) {
  return wanted.filter((id) => id !== 'node' || nodeEventSourceFlags() !== null)
}

export function clientLabel (id) {
  switch (id) {
    case 'ours': return `whatwg-eventsource@${require('../../package.json').version}`
    case 'undici': return `undici@${require('undici/package.json').version} EventSource`
    case 'node': {
      const flags = nodeEventSourceFlags()
      return `Node ${process.version} global EventSource (undici ${process.versions.undici}${flags?.length ? `, ${flags.join(' ')}` : ''})`
    }
    case 'eventsource': return `eventsource@${require('eventsource/package.json').version}`
    case 'floor': return 'floor: node:http GET'
    case 'ssecat': return `ssecat --count 1 (whatwg-eventsource@${require('../../package.json').version})`
    default: throw new Error(`unknown client ${id}`)
  }
}

/**
 * The command line of one sample, what ends its timing ('event': the child writes a line on stdout at
 * its first event; 'exit': the process exits, and fd 3 carries its own time at exit), and what it must
 * print when the server sends one message event whose data is `data`.
 */
export function command (id, url, data) {
  if (id === 'ssecat') {
    return {
      args: ['-r', here('./exit-stamp.cjs'), here('../../bin/ssecat.js'), '--count', '1', url],
      until: 'exit',
      stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
      expected: `[message] ${data}`
    }
  }
  const flags = id === 'node' ? nodeEventSourceFlags() : []
  return { args: [...flags, here('./first-event.cjs'), id, url], until: 'event', stdio: ['ignore', 'pipe', 'pipe'], expected: data }
}
