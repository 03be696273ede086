'use strict'

// A fresh process for test/transport/eventsource-dispatcher.test.cjs: the cases whose global dispatcher must be
// installed by someone other than the undici 7 that whatwg-eventsource depends on, before
// whatwg-eventsource is loaded, without leaking into the test runner.
//
//   node test/children/dispatcher.cjs <mode> <event stream URL> <plain URL> <expected log as JSON>
//
// mode:
//   node-fetch      Node's own fetch() runs first, so the global dispatcher is the Agent of the undici
//                   that Node bundles (undici 6 on Node 20 and 22, a separate copy of undici 7 on 24)
//   undici8-global  undici 8's setGlobalDispatcher(new Agent())
//   env-proxy       undici 7's setGlobalDispatcher(new EnvHttpProxyAgent()), HTTP_PROXY from the parent
//   node-fetch-redirecting
//                   an Agent of the undici that Node bundles, made with maxRedirections (undici 6 then
//                   follows redirects itself; undici 7, on Node 24, ignores the option), as init.dispatcher,
//                   with an x-token header named in credentialHeaders
//   node-fetch-redirecting-always
//                   the same Agent behind a wrapper that drops the request's maxRedirections, so that
//                   undici 6 follows redirects whatever EventSource asks
//
// The EventSource is created without a dispatcher option and closed once it has reported what the
// parent expects, or something else. The child prints one JSON line and then must exit on its own:
// it never calls process.exit().

const { recordExpected } = require('../helpers/recorder.cjs')

const [mode, url, plainUrl, expectedJson] = process.argv.slice(2)
const LEGACY_GLOBAL_DISPATCHER = Symbol.for('undici.globalDispatcher.1')

async function main () {
  const report = { mode, bundledUndici: process.versions.undici }
  // The dispatcher whose new connections are counted ('connect' events), when there is one to watch.
  let watched = null
  let init = { node: { reconnectionTime: 20 } }

  if (mode === 'node-fetch') {
    report.globalBeforeFetch = globalThis[LEGACY_GLOBAL_DISPATCHER] !== undefined
    const response = await fetch(plainUrl)
    report.fetched = await response.text()
    const bundled = globalThis[LEGACY_GLOBAL_DISPATCHER]
    // Loading undici 7 now must leave Node's dispatcher in place; it is loaded here only to compare.
    const undici = require('undici')
    report.undiciVersion = require('undici/package.json').version
    report.isUndici7Agent = bundled instanceof undici.Agent
    report.constructorName = bundled?.constructor?.name
    report.undici7SeesBundled = undici.getGlobalDispatcher() === bundled
    // Node 26's bundled undici 8 keeps its Agent under the .2 symbol and, under .1, a wrapper that
    // adapts it to the older handler API and has no 'connect' events: count on the Agent itself.
    watched = globalThis[Symbol.for('undici.globalDispatcher.2')] ?? bundled
  } else if (mode === 'undici8-global') {
    const undici8 = require('undici8')
    const agent = new undici8.Agent()
    undici8.setGlobalDispatcher(agent)
    report.undici8Version = require('undici8/package.json').version
    // undici 8 keeps its own Agent under the .2 symbol and a handler-API adapter under .1, which is
    // what undici 7's getGlobalDispatcher() (and so whatwg-eventsource) reads.
    report.legacyIsAdapter = globalThis[LEGACY_GLOBAL_DISPATCHER] !== agent &&
      typeof globalThis[LEGACY_GLOBAL_DISPATCHER]?.dispatch === 'function'
    watched = agent
  } else if (mode === 'env-proxy') {
    const { EnvHttpProxyAgent, setGlobalDispatcher } = require('undici')
    setGlobalDispatcher(new EnvHttpProxyAgent())
    report.httpProxy = process.env.HTTP_PROXY
  } else if (mode === 'node-fetch-redirecting' || mode === 'node-fetch-redirecting-always') {
    report.fetched = await (await fetch(plainUrl)).text()
    const NodeAgent = (globalThis[Symbol.for('undici.globalDispatcher.2')] ?? globalThis[LEGACY_GLOBAL_DISPATCHER]).constructor
    const agent = new NodeAgent({ maxRedirections: 5 })
    init = {
      dispatcher: mode === 'node-fetch-redirecting'
        ? agent
        : { dispatch: (opts, handler) => agent.dispatch({ ...opts, maxRedirections: undefined }, handler), close: () => agent.close() },
      headers: { 'x-token': 't' },
      credentialHeaders: ['x-token'],
      node: { reconnectionTime: 20 }
    }
  } else {
    throw new Error(`unknown mode ${mode}`)
  }

  const globalBefore = globalThis[LEGACY_GLOBAL_DISPATCHER]
  let connects = 0
  watched?.on('connect', () => { connects++ })

  const { EventSource } = require('../..')
  const es = new EventSource(url, init)
  report.errorCodes = []
  es.addEventListener('error', (event) => report.errorCodes.push(event.code))
  report.log = await recordExpected(es, JSON.parse(expectedJson))
  await init.dispatcher?.close()
  report.readyState = es.readyState
  report.connects = connects
  report.globalUnchanged = globalThis[LEGACY_GLOBAL_DISPATCHER] === globalBefore
  process.stdout.write(JSON.stringify(report) + '\n')
}

main().catch((err) => {
  process.stdout.write(JSON.stringify({ error: err.stack }) + '\n')
  process.exitCode = 1
})
