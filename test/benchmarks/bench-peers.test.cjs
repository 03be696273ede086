'use strict'

// The peers of the whole-client benchmarks (benchmarks/e2e/clients.mjs): which of them a Node runs
// (their package.json engines; the runtime's own EventSource behind its flag), and that each one this
// Node runs loads as the benchmark loads it and receives an event. No benchmark is timed.

const t = require('tap')
const path = require('node:path')
const { runChild, serve, sse } = require('../helpers/index.cjs')

const root = path.join(__dirname, '..', '..')

t.test('engines ranges: the forms the peers use, and nothing else admitted silently', async (t) => {
  const { enginesAdmit } = await import('../../benchmarks/engines.mjs')
  t.ok(enginesAdmit('>=22.12', 'v22.12.0'))
  t.notOk(enginesAdmit('>=22.12', 'v22.11.9'))
  t.notOk(enginesAdmit('>=22.19.0', 'v20.20.2'))
  t.ok(enginesAdmit('>=22.19.0', 'v26.10.0'))
  t.ok(enginesAdmit('^20.18.1 || >=22', 'v20.19.0'))
  t.notOk(enginesAdmit('^20.18.1 || >=22', 'v21.7.0'))
  t.ok(enginesAdmit('^20.18.1 || >=22', 'v24.0.0'))
  t.ok(enginesAdmit(undefined, 'v20.0.0'), 'no range: any Node')
  t.throws(() => enginesAdmit('~20.1', 'v20.1.0'), /engines range not understood/)
})

t.test('the default peers of the throughput benchmark on this Node', async (t) => {
  const { E2E_CLIENTS, CLIENTS, supportedClients } = await import('../../benchmarks/e2e/clients.mjs')
  const { enginesAdmit } = await import('../../benchmarks/engines.mjs')
  t.same(E2E_CLIENTS, ['ours', 'ours+diagnostics', 'ours+batch', 'undici', 'undici8', 'node', 'eventsource', 'eventsource5', 'floor'])
  t.same(CLIENTS, ['ours', 'undici', 'eventsource', 'floor'], 'over TLS: the memory target\'s peer, undici 7, and as before')
  const { ids, skipped } = supportedClients(E2E_CLIENTS)
  for (const [id, pkg] of [['undici8', 'undici8'], ['eventsource5', 'eventsource5']]) {
    const admitted = enginesAdmit(require(`${pkg}/package.json`).engines.node)
    t.equal(ids.includes(id), admitted, `${id} measured exactly where its engines admit ${process.version}`)
    if (!admitted) t.match(skipped.find((s) => s.id === id).why, /needs Node >=\d+/)
  }
  t.ok(ids.includes('node'), 'Node 20 to 26 have their own EventSource, behind --experimental-eventsource')
  t.same(supportedClients(['undici8'], true), { ids: ['undici8'], skipped: [] }, '--clients runs a peer anyway')
})

// Each peer this Node runs, in a child process started as the runner starts it (with the flags of
// clientExecArgv), loaded by loadClient, receives one event from a local server.
t.test('every whole-client peer this Node runs loads and receives an event', async (t) => {
  const { E2E_CLIENTS, supportedClients, clientExecArgv } = await import('../../benchmarks/e2e/clients.mjs')
  const server = await serve(t, (req, res) => sse(res, `id: 7\ndata: ${new URL(req.url, 'http://x').searchParams.get('client')}\n\n`))
  // ours+agent: the idle-memory benchmark's (MEMORY_CLIENTS).
  const clients = [...supportedClients(E2E_CLIENTS).ids.filter((id) => id !== 'floor' && id !== 'ours+diagnostics'), 'ours+agent']
  t.ok(clients.length >= 5)
  const code = `
    const { loadClient } = await import(${JSON.stringify(path.join(root, 'benchmarks', 'e2e', 'clients.mjs'))})
    const [id, url] = process.argv.slice(-2)
    const { EventSource, init } = await loadClient(id)
    const es = new EventSource(url, init)
    es.onmessage = (e) => { console.log(JSON.stringify([e.type, e.lastEventId, e.data])); es.close() }
    es.onerror = () => { console.log('error'); es.close() }
  `
  await Promise.all(clients.map(async (id) => {
    const url = server.url(`/?client=${encodeURIComponent(id)}`)
    const { code: exit, stdout } = await runChild(t, [...clientExecArgv(id), '--no-warnings', '--input-type=module', '-e', code, id, url], { isolate: true }).exited()
    t.equal(exit, 0, id)
    t.equal(stdout.trim(), JSON.stringify(['message', '7', id]), `${id} received the event`)
  }))
})

t.test('the idle-memory benchmark measures ours on the undici package\'s Agent beside the default', async (t) => {
  const { MEMORY_CLIENTS, loadClient, clientLabel } = await import('../../benchmarks/e2e/clients.mjs')
  t.same(MEMORY_CLIENTS, ['ours', 'ours+agent', 'undici', 'eventsource', 'floor'])
  const { EventSource, init } = await loadClient('ours+agent')
  t.equal(EventSource, require('../..').EventSource)
  // The package's Agent, not the global dispatcher (on Node 22 and later, the undici inside Node).
  const { Agent } = require('undici')
  t.ok(init.dispatcher instanceof Agent, 'an Agent of the undici package')
  t.not(init.dispatcher, globalThis[Symbol.for('undici.globalDispatcher.1')])
  t.match(clientLabel('ours+agent'), new RegExp(`on undici@${require('undici/package.json').version}'s Agent$`))
  await t.rejects(loadClient('ours+agent', { transport: 'h2' }), /over cleartext HTTP\/1\.1 only/)
  await init.dispatcher.close()
})
