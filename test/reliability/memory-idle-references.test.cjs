'use strict'

// What an idle source does not keep (benchmarks/memory measures how much it keeps): Node's map for the
// `on<type>` handlers of its own classes, and, on an undici 7 dispatcher, the two objects per request
// with which undici 7 wraps a handler of its newer API. Each is an object per idle connection.

const t = require('tap')
const { EventSource } = require('../../')
const { serve, sse, record } = require('../helpers/index.cjs')

t.test("an EventSource keeps no map for the handlers of Node's own classes", async (t) => {
  const plain = new EventTarget()
  const kHandlers = Object.getOwnPropertySymbols(plain).find((s) => s.description === 'kHandlers')
  if (kHandlers === undefined) {
    t.skip(`this runtime's EventTarget (Node ${process.version}) has no such map`)
    return
  }
  const es = new EventSource('http://127.0.0.1:1/')
  es.close()
  t.ok(kHandlers in es, 'the property is there, as EventTarget made it')
  t.equal(es[kHandlers], undefined, 'without a map (Node 20 and 22 make one for every EventTarget; 24 and later at first use)')
  es.onmessage = () => {}
  t.type(es.onmessage, 'function', 'our handlers do not need it')
})

/** A dispatcher that records which handler API each request's handler speaks. */
function recordingDispatcher (agent) {
  const apis = []
  return {
    apis,
    dispatch (options, handler) {
      apis.push(typeof handler.onRequestStart === 'function' ? 'controller' : 'older')
      return agent.dispatch(options, handler)
    }
  }
}

const [NODE_MAJOR, NODE_MINOR] = process.versions.node.split('.').map(Number)
const UNDICI8_SKIP = NODE_MAJOR > 22 || (NODE_MAJOR === 22 && NODE_MINOR >= 19)
  ? false
  : `undici 8 needs Node >= 22.19 (this is ${process.version})`

for (const [name, undici] of [['undici 7', 'undici'], ['undici 8', 'undici8']]) {
  t.test(`${name}: which handler API the requests after the first speak`, { skip: name === 'undici 8' && UNDICI8_SKIP }, async (t) => {
    const { Agent } = require(undici)
    const agent = new Agent()
    t.teardown(() => agent.close())
    const dispatcher = recordingDispatcher(agent)
    const srv = await serve(t, (req, res, i) => sse(res, `id: ${i}\ndata: ${i}\n\n`, { end: i < 2 }))
    const rec = record(srv.eventSource('/', { dispatcher, reconnectionTime: 0 }))
    await rec.wait('message', 3)
    t.same(rec.data('message'), ['0', '1', '2'], 'every request worked')
    // undici 7 speaks the older API inside (it wraps a handler of the newer one, per request); undici 8
    // speaks only the newer one.
    t.same(dispatcher.apis, name === 'undici 7' ? ['controller', 'older', 'older'] : ['controller', 'controller', 'controller'])
  })
}
