'use strict'

// A child process for the leak tests (test/reliability/reliability-leaks.test.cjs, test/soak/leaks.cjs), run with
// --expose-gc against a server in the parent. The EventSources here are the only things that could
// keep this process alive: it never calls process.exit(), so the parent can tell whether it exits on
// its own once they are closed. It prints one JSON line: its report.
//
//   node --expose-gc test/children/leak.cjs cycles <origin> <cycles> <sampleEvery>
//     One EventSource with reconnectionTime 0 on <origin>/cycle, whose every response ends one way or
//     another (the server decides): `cycles` connect/disconnect cycles, counted by `open`. Every
//     `sampleEvery` cycles, heapUsed after two full GCs is sampled. Then close(), and the resources
//     still active are listed until no socket or timer of ours is left.
//
//   node --expose-gc test/children/leak.cjs finalization <origin>
//     EventSources in every state (never connected, open, waiting to reconnect, connecting, failed,
//     closed through a signal that lives on, left through `for await`, failed on a too-large event)
//     are closed and dropped; a FinalizationRegistry reports which ones were garbage-collected.

const { EventSource } = require('../..')

const [mode, origin, ...rest] = process.argv.slice(2)
// Resource types that would mean something of ours is still alive.
const OURS = new Set(['TCPSocketWrap', 'Timeout', 'TCPWRAP', 'TCPConnectWrap', 'GetAddrInfoReqWrap'])

function heapAfterGc () {
  global.gc()
  global.gc()
  return process.memoryUsage().heapUsed
}

const turn = () => new Promise((resolve) => setImmediate(resolve))

/** Waits, at most `turns` event-loop turns, for our sockets and timers to be gone. Returns what is left. */
async function settle (turns = 200) {
  let left = []
  for (let i = 0; i < turns; i++) {
    await turn()
    left = process.getActiveResourcesInfo().filter((type) => OURS.has(type))
    if (left.length === 0) return { left, turns: i + 1 }
  }
  return { left, turns }
}

async function cycles () {
  const total = Number(rest[0])
  const sampleEvery = Number(rest[1])
  const report = { mode, cycles: 0, errors: 0, messages: 0, samples: [], errorCodes: {} }
  const es = new EventSource(`${origin}/cycle`, { reconnectionTime: 0 })
  es.onopen = () => {
    report.cycles++
    if (report.cycles % sampleEvery === 0) report.samples.push({ cycle: report.cycles, heapUsed: heapAfterGc() })
  }
  es.onmessage = () => { report.messages++ }
  // A cycle ends with its error. (Closing at the last open would drop that cycle's message: the
  // continuation of an `open` listener runs before the next event, as in a browser.)
  const done = new Promise((resolve) => {
    es.onerror = (event) => {
      report.errors++
      report.errorCodes[event.code] = (report.errorCodes[event.code] ?? 0) + 1
      if (report.errors === total) resolve()
    }
  })
  await done
  es.close()
  report.readyState = es.readyState
  const { left, turns } = await settle()
  report.activeAfterClose = left
  report.turnsToSettle = turns
  report.allActiveAfterClose = process.getActiveResourcesInfo()
  report.heapAfterClose = heapAfterGc()
  process.stdout.write(JSON.stringify(report) + '\n')
}

/** Resolves on the first event of one of `types` on `es`. */
function next (es, types) {
  return new Promise((resolve) => {
    const on = (event) => {
      for (const type of types) es.removeEventListener(type, on)
      resolve(event)
    }
    for (const type of types) es.addEventListener(type, on)
  })
}

// Each scenario makes an EventSource, brings it to a state, closes it (or lets it fail), and returns
// nothing: only the registry knows it afterwards.
const keptSignal = new AbortController()
const SCENARIOS = {
  async 'closed before connecting' (register) {
    const es = register(new EventSource(`${origin}/stream`))
    es.close()
  },
  async 'closed while connecting' (register) {
    const es = register(new EventSource(`${origin}/hang`))
    await turn()
    es.close()
  },
  async 'closed while open, with listeners and handlers' (register) {
    const es = register(new EventSource(`${origin}/stream`))
    const seen = []
    es.onmessage = (event) => seen.push(event.data)
    es.onerror = () => seen.push('error')
    es.addEventListener('custom', (event) => seen.push(event))
    while (seen.length < 3) await next(es, ['message', 'error'])
    es.close()
  },
  async 'closed while waiting to reconnect' (register) {
    const es = register(new EventSource(`${origin}/end`, { reconnectionTime: 60_000 }))
    await next(es, ['error'])
    if (es.readyState !== EventSource.CONNECTING) throw new Error('expected to be reconnecting')
    es.close()
  },
  async 'failed (404), never closed' (register) {
    const es = register(new EventSource(`${origin}/404`))
    await next(es, ['error'])
    if (es.readyState !== EventSource.CLOSED) throw new Error('expected to have failed')
  },
  async 'failed on a too-large event, never closed' (register) {
    const es = register(new EventSource(`${origin}/big`, { maxEventSize: 1024 }))
    await next(es, ['error'])
    if (es.readyState !== EventSource.CLOSED) throw new Error('expected to have failed')
  },
  async 'closed while its AbortSignal lives on' (register) {
    const es = register(new EventSource(`${origin}/stream`, { signal: keptSignal.signal }))
    await next(es, ['message'])
    es.close()
  },
  async 'closed by its AbortSignal' (register) {
    const controller = new AbortController()
    const es = register(new EventSource(`${origin}/stream`, { signal: controller.signal }))
    await next(es, ['message'])
    controller.abort()
  },
  async 'left through for await' (register) {
    let n = 0
    for await (const event of register(new EventSource(`${origin}/stream`))) {
      if (event.data !== undefined && ++n === 2) break
    }
  }
}

async function finalization () {
  const collected = new Set()
  const registry = new FinalizationRegistry((name) => collected.add(name))
  const states = {}
  for (const [name, scenario] of Object.entries(SCENARIOS)) {
    await scenario((es) => {
      registry.register(es, name)
      return es
    })
    states[name] = 'done'
  }
  // Bounded: collection is awaited for at most 100 rounds of GC and event-loop turns.
  let rounds = 0
  while (collected.size < Object.keys(SCENARIOS).length && rounds < 100) {
    rounds++
    global.gc()
    await turn()
    await new Promise((resolve) => setTimeout(resolve, 0))
  }
  const { left, turns } = await settle()
  const report = {
    mode,
    scenarios: Object.keys(SCENARIOS),
    collected: Object.keys(SCENARIOS).filter((name) => collected.has(name)),
    rounds,
    activeAfterClose: left,
    turnsToSettle: turns
  }
  keptSignal.signal.aborted // eslint-disable-line no-unused-expressions
  process.stdout.write(JSON.stringify(report) + '\n')
}

const main = mode === 'cycles' ? cycles : mode === 'finalization' ? finalization : null
if (main === null || typeof global.gc !== 'function') {
  process.stdout.write(JSON.stringify({ error: `usage: node --expose-gc ${__filename} cycles|finalization <origin> ...` }) + '\n')
  process.exitCode = 2
} else {
  main().catch((err) => {
    process.stdout.write(JSON.stringify({ error: err.stack }) + '\n')
    process.exitCode = 1
  })
}
