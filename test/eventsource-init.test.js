'use strict'

// The Node extensions of EventSourceInit: validation (Node-style errors) and what each member does.

const t = require('tap')
const { Agent, getGlobalDispatcher, setGlobalDispatcher } = require('undici')
const { EventSource } = require('../')
const { createServer, sse, Recorder, macrotask } = require('./helpers/sse-server')

const URL_ = 'http://127.0.0.1:1/'

// A Dispatcher that counts what goes through it and forwards to a real undici Agent.
function countingDispatcher (t) {
  const agent = new Agent()
  t.teardown(() => agent.destroy())
  const calls = []
  return {
    calls,
    dispatch (opts, handler) {
      calls.push(opts)
      return agent.dispatch(opts, handler)
    }
  }
}

t.test('invalid option types throw ERR_INVALID_ARG_TYPE', async (t) => {
  const cases = [
    [{ node: 1 }, 'init.node', 'Received type number (1)'],
    [{ node: 'x' }, 'init.node', "Received type string ('x')"],
    [{ node: null }, 'init.node', 'Received null'],
    [{ node: { dispatcher: {} } }, 'init.node.dispatcher', 'Received an instance of Object'],
    [{ node: { dispatcher: null } }, 'init.node.dispatcher', 'Received null'],
    [{ dispatcher: { dispatch: 1 } }, 'init.dispatcher', 'Received an instance of Object'],
    [{ dispatcher: function agent () {} }, 'init.dispatcher', 'Received function agent'],
    [{ dispatcher: () => {} }, 'init.dispatcher', 'Received function dispatcher'],
    [{ dispatcher: Object.create(null) }, 'init.dispatcher', 'Received [Object: null prototype] {}'],
    [{ dispatcher: 'agent' }, 'init.dispatcher', "Received type string ('agent')"],
    [{ node: { reconnectionTime: '3s' } }, 'init.node.reconnectionTime', "Received type string ('3s')"],
    [{ reconnectionTime: 10n }, 'init.reconnectionTime', 'Received type bigint (10n)'],
    [{ reconnectionTime: null }, 'init.reconnectionTime', 'Received null'],
    [{ maxEventSize: '1' }, 'init.maxEventSize', "Received type string ('1')"],
    [{ maxEventSize: 'x'.repeat(40) }, 'init.maxEventSize', `Received type string ('${'x'.repeat(24)}...)`]
  ]
  for (const [init, name, received] of cases) {
    let error
    try {
      new EventSource(URL_, init) // eslint-disable-line no-new
    } catch (err) {
      error = err
    }
    t.ok(error instanceof TypeError, `${name}: TypeError`)
    t.equal(error?.code, 'ERR_INVALID_ARG_TYPE', `${name}: code`)
    t.match(error?.message, `The "${name}" property must be`, `${name}: message names the property`)
    t.ok(error?.message.endsWith(received), `${name}: message ends with "${received}": ${error?.message}`)
    t.equal(String(error), `TypeError [ERR_INVALID_ARG_TYPE]: ${error?.message}`, 'Node-style toString()')
    t.equal(error?.name, 'TypeError', 'name stays TypeError')
    t.match(error?.stack, /^TypeError \[ERR_INVALID_ARG_TYPE\]: /, 'the stack starts with Name [CODE]')
  }
})

t.test('out-of-range numbers throw ERR_OUT_OF_RANGE', async (t) => {
  const cases = [
    [{ node: { reconnectionTime: -1 } }, 'init.node.reconnectionTime'],
    [{ node: { reconnectionTime: 1.5 } }, 'init.node.reconnectionTime'],
    [{ reconnectionTime: NaN }, 'init.reconnectionTime'],
    [{ reconnectionTime: Infinity }, 'init.reconnectionTime'],
    [{ reconnectionTime: 2 ** 53 }, 'init.reconnectionTime'],
    [{ maxEventSize: 0 }, 'init.maxEventSize'],
    [{ maxEventSize: -Infinity }, 'init.maxEventSize'],
    [{ maxEventSize: 0.5 }, 'init.maxEventSize']
  ]
  for (const [init, name] of cases) {
    t.throws(() => new EventSource(URL_, init), {
      name: 'RangeError',
      code: 'ERR_OUT_OF_RANGE',
      message: new RegExp(`^The value of "${name.replace(/\./g, '\\.')}" is out of range\\. It must be an integer >= `)
    }, JSON.stringify(init, (k, v) => typeof v === 'number' && !Number.isFinite(v) ? String(v) : v))
  }
})

t.test('valid options are accepted', async (t) => {
  const dispatcher = { dispatch () { throw new Error('not used') } }
  const inits = [
    { node: {} },
    { node: () => {} },
    { node: undefined, dispatcher: undefined, reconnectionTime: undefined, maxEventSize: undefined },
    { node: { dispatcher, reconnectionTime: 0 } },
    { dispatcher, reconnectionTime: 2 ** 53 - 1 },
    { maxEventSize: 1 },
    { maxEventSize: Infinity },
    { unknownMember: 'ignored' }
  ]
  for (const init of inits) {
    const es = new EventSource(URL_, init)
    es.close()
    t.equal(es.readyState, EventSource.CLOSED, 'constructed')
  }
})

t.test('node.dispatcher carries the requests', async (t) => {
  const srv = await createServer(t, (req, res) => sse(res, 'data: via node.dispatcher\n\n', { end: false }))
  const dispatcher = countingDispatcher(t)
  const rec = new Recorder(srv.eventSource('/d', { node: { dispatcher } }))
  t.equal((await rec.wait('message')).data, 'via node.dispatcher')
  t.equal(dispatcher.calls.length, 1)
  t.equal(dispatcher.calls[0].origin, srv.origin)
  t.equal(dispatcher.calls[0].path, '/d')
  t.equal(dispatcher.calls[0].method, 'GET')
})

t.test('the top-level dispatcher member takes precedence over node.dispatcher', async (t) => {
  const srv = await createServer(t, (req, res) => sse(res, 'data: x\n\n', { end: false }))
  const top = countingDispatcher(t)
  const nested = countingDispatcher(t)
  const rec = new Recorder(srv.eventSource('/', { dispatcher: top, node: { dispatcher: nested } }))
  await rec.wait('message')
  t.equal(top.calls.length, 1)
  t.equal(nested.calls.length, 0)
})

t.test('without a dispatcher, the global one is looked up for every attempt', async (t) => {
  const previous = getGlobalDispatcher()
  t.teardown(() => setGlobalDispatcher(previous))
  const first = countingDispatcher(t)
  const second = countingDispatcher(t)
  setGlobalDispatcher(first)
  const srv = await createServer(t, (req, res, i) => sse(res, `data: attempt ${i}\n\n`, { end: i === 0 }))
  const es = srv.eventSource('/')
  const rec = new Recorder(es)
  // Swap the global dispatcher while the EventSource waits to reconnect.
  es.addEventListener('error', () => setGlobalDispatcher(second), { once: true })
  await rec.wait('message', 2)
  t.same(rec.data(), ['attempt 0', 'attempt 1'])
  t.equal(first.calls.length, 1, 'the first attempt went through the first global dispatcher')
  t.equal(second.calls.length, 1, 'the reconnection went through the new global dispatcher')
})

t.test('no dispatcher is used when close() follows new synchronously', async (t) => {
  const dispatcher = countingDispatcher(t)
  const es = new EventSource(URL_, { dispatcher })
  es.close()
  await macrotask()
  t.equal(dispatcher.calls.length, 0)
})

t.test('the request starts after the constructor, in a microtask', async (t) => {
  const dispatcher = countingDispatcher(t)
  const es = new EventSource('http://127.0.0.1:1/', { dispatcher, reconnectionTime: 60000 })
  t.teardown(() => es.close())
  t.equal(dispatcher.calls.length, 0, 'not during the constructor')
  await null
  t.equal(dispatcher.calls.length, 1, 'started once the constructor has returned')
})

t.test('maxEventSize: an event over the limit fails the connection', async (t) => {
  const srv = await createServer(t, (req, res) =>
    sse(res, `data: small\n\ndata: ${'x'.repeat(100)}\n\ndata: after\n\n`, { end: false }))
  const es = srv.eventSource('/', { maxEventSize: 32, reconnectionTime: 10 })
  const rec = new Recorder(es)
  await rec.wait('error')
  t.same(rec.types, ['open', 'message', 'error'], 'the small event is delivered, nothing after the big one')
  t.equal(rec.events[2].readyState, EventSource.CLOSED, 'failed, not reestablished')
  t.equal(es.readyState, EventSource.CLOSED)
  t.equal(srv.requests.length, 1)
})

t.test('maxEventSize: a limit also bounds an event spread over many lines and chunks', async (t) => {
  const srv = await createServer(t, (req, res) => {
    sse(res, undefined)
    for (let i = 0; i < 20; i++) res.write('data: 0123456789\n')
  })
  const es = srv.eventSource('/', { maxEventSize: 100 })
  const rec = new Recorder(es)
  await rec.wait('error')
  t.same(rec.types, ['open', 'error'])
  t.equal(es.readyState, EventSource.CLOSED)
})

t.test('maxEventSize: Infinity lifts the limit', async (t) => {
  const big = 'y'.repeat(256 * 1024)
  const srv = await createServer(t, (req, res) => sse(res, `data: ${big}\n\n`, { end: false }))
  const rec = new Recorder(srv.eventSource('/', { maxEventSize: Infinity }))
  t.equal((await rec.wait('message')).data, big)
})
