'use strict'

// EventSource settings carried by an undici dispatcher, read as undici's own EventSource reads them:
// `new Agent({ eventSource: { maxEventSize } })` (a Client, Pool or Agent option in undici 7 and 8,
// exposed as the dispatcher's `eventSourceOptions`) limits the events of an EventSource on that
// dispatcher, or on the global dispatcher, unless the init dictionary sets maxEventSize itself.

const t = require('tap')
const { constants: { MAX_STRING_LENGTH } } = require('node:buffer')
const undici = require('undici')
const { EventSource } = require('../../')
const { dispatcherMaxEventSize } = require('../../lib/transport/dispatchers')
const { serve, sse, record, closeAtTeardown } = require('../helpers/index.cjs')

const { CLOSED } = EventSource

const [NODE_MAJOR, NODE_MINOR] = process.versions.node.split('.').map(Number)
const UNDICI8_SKIP = NODE_MAJOR > 22 || (NODE_MAJOR === 22 && NODE_MINOR >= 19)
  ? false
  : `undici 8 needs Node >= 22.19 (this is ${process.version})`

// One event of 200 bytes of data, then a small one.
const STREAM = `data: ${'x'.repeat(200)}\n\ndata: small\n\n`

function agent (t, Agent, maxEventSize) {
  const dispatcher = new Agent({ eventSource: { maxEventSize } })
  t.teardown(() => dispatcher.close())
  return dispatcher
}

/** What an EventSource made by `make(url)` does with STREAM: 'too large', or the data it received. */
async function outcome (t, make) {
  const srv = await serve(t, (req, res) => sse(res, STREAM, { end: false }))
  const es = closeAtTeardown(t, make(srv.url('/')))
  const rec = record(es)
  const first = await rec.first(['message', 'error'])
  if (first.type === 'error') {
    t.equal(first.readyState, CLOSED)
    return first.event.code === 'ERR_EVENTSOURCE_EVENT_TOO_LARGE' ? 'too large' : first.event.code
  }
  await rec.wait('message', 2)
  return rec.data().map((data) => data.length)
}

t.test('the dispatcher\'s maxEventSize applies when the init sets none', async (t) => {
  const small = agent(t, undici.Agent, 100)
  t.equal(await outcome(t, (url) => new EventSource(url, { dispatcher: small })), 'too large', 'init.dispatcher')
  t.equal(await outcome(t, (url) => new EventSource(url, { node: { dispatcher: small } })), 'too large',
    'init.node.dispatcher, the shape of Node\'s built-in EventSource')
  t.same(await outcome(t, (url) => new EventSource(url, { dispatcher: small, maxEventSize: 1000 })), [200, 5],
    'init.maxEventSize wins')
  const large = agent(t, undici.Agent, 1000)
  t.same(await outcome(t, (url) => new EventSource(url, { dispatcher: large })), [200, 5], 'a larger limit')
})

t.test('the global dispatcher\'s, read at construction', async (t) => {
  const original = undici.getGlobalDispatcher()
  t.teardown(() => undici.setGlobalDispatcher(original))
  undici.setGlobalDispatcher(agent(t, undici.Agent, 100))
  t.equal(await outcome(t, (url) => new EventSource(url)), 'too large')
  t.same(await outcome(t, (url) => new EventSource(url, { dispatcher: original })), [200, 5],
    'a dispatcher given in the init is the one asked')
})

t.test('an undici 8 Agent', { skip: UNDICI8_SKIP }, async (t) => {
  const undici8 = require('undici8')
  t.equal(await outcome(t, (url) => new EventSource(url, { dispatcher: agent(t, undici8.Agent, 100) })), 'too large')
})

t.test('what a dispatcher\'s value means', async (t) => {
  const of = (maxEventSize) => dispatcherMaxEventSize({ eventSourceOptions: { maxEventSize } })
  t.equal(of(5), 5)
  t.equal(of(0), Infinity, 'undici: 0 disables the limits')
  t.equal(of(Infinity), Infinity)
  t.equal(of(2.5), 2, 'a fraction is taken down to whole bytes')
  t.equal(of(0.5), 1, 'but at least one')
  t.equal(of(MAX_STRING_LENGTH), undefined, 'undici\'s default when none was given: ours stays')
  for (const value of [-1, NaN, '100', null, undefined]) t.equal(of(value), undefined, `${String(value)} leaves ours`)
  t.equal(dispatcherMaxEventSize({ dispatch () {} }), undefined, 'a dispatcher without eventSourceOptions')
  t.equal(dispatcherMaxEventSize(new undici.Agent()), undefined, 'an Agent given no eventSource option')
  t.equal(dispatcherMaxEventSize(agent(t, undici.Agent, 0)), Infinity)
  t.equal(dispatcherMaxEventSize(new undici.Pool('http://127.0.0.1:1', { eventSource: { maxEventSize: 7 } })), 7, 'a Pool')
  t.equal(dispatcherMaxEventSize(agent(t, undici.Agent, 9).compose((dispatch) => dispatch)), 9, 'compose() keeps it')
})

// 0 is undici's "no limit", and so it is here: an event past our own default (64 MiB of data: 65 lines of a
// MiB each) fails the connection on a dispatcher that sets nothing, and is delivered on one that sets 0, on
// undici 7's and 8's Agents and as the global dispatcher.
t.test('a dispatcher\'s maxEventSize of 0 lifts the limit, end to end', async (t) => {
  const lines = 65
  const line = Buffer.from(`data:${'x'.repeat(1024 * 1024 - 6)}\n`)
  const srv = await serve(t, (req, res) => {
    sse(res, undefined, { end: false })
    for (let i = 0; i < lines; i++) res.write(line)
    res.write('\n')
  })
  const length = lines * (line.length - 5) - 1
  const first = async (init) => {
    const es = closeAtTeardown(t, new EventSource(srv.url('/'), init))
    const { type, event } = await record(es).first(['message', 'error'])
    es.close()
    return type === 'error' ? event.code : event.data.length
  }
  t.equal(await first({ dispatcher: agent(t, undici.Agent, undefined) }), 'ERR_EVENTSOURCE_EVENT_TOO_LARGE', 'no eventSource option: our default')
  t.equal(await first({ dispatcher: agent(t, undici.Agent, 0) }), length, 'undici 7, 0: no limit')
  if (!UNDICI8_SKIP) t.equal(await first({ dispatcher: agent(t, require('undici8').Agent, 0) }), length, 'undici 8, 0: no limit')
  const original = undici.getGlobalDispatcher()
  t.teardown(() => undici.setGlobalDispatcher(original))
  undici.setGlobalDispatcher(agent(t, undici.Agent, 0))
  t.equal(await first({}), length, 'the global dispatcher, 0: no limit')
})
