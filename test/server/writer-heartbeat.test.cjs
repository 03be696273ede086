'use strict'

// Heartbeats (lib/server/writer.js): a comment at each interval (HTML 9.2.2: proxies drop connections idle for
// long), from one timer for every writer of that interval, stopped with the last of them. Timers are Sinon's fake
// ones, as users' test suites install them; the sockets are real. The real timer is followed with async_hooks,
// since an unref'd timer is not in process.getActiveResourcesInfo().

const t = require('tap')
const asyncHooks = require('node:async_hooks')
const { EventStreamWriter } = require('../../lib/entries/server.js')
const { writerServer, rawGet, fakeClock, runChild, bounded, parseAll } = require('../helpers/index.cjs')

// A heartbeat is an empty comment, the only one here. Counted in the body as a client parses it, not by chunks:
// Node 26 may put a heartbeat and the write after it in one chunk.
const beats = (client) => parseAll([client.body]).filter(([kind, text]) => kind === 'comment' && text === '').length

// Sends each writer an event and waits until its client has it: whatever the writer wrote before it has arrived.
let marks = 0
async function settle (writers, clients) {
  const data = `mark ${++marks}`
  writers.forEach((writer) => writer.send({ data }))
  await Promise.all(clients.map((client) => client.until((r) => r.text.includes(`data: ${data}\n\n`), data)))
}

t.test('a comment at each interval, from one timer shared by the writers of that interval', async (t) => {
  const clock = fakeClock(t)
  const srv = await writerServer(t, (req, res, i) => new EventStreamWriter(res, { heartbeat: i < 3 ? 1000 : 5000 }))
  const before = clock.countTimers()
  const clients = []
  const writers = []
  for (let i = 0; i < 4; i++) {
    clients.push(await rawGet(t, srv.port))
    writers.push(await srv.writer(i))
  }
  t.equal(clock.countTimers() - before, 2, 'two timers for four writers: one per interval')

  clock.tick(999)
  await settle(writers, clients)
  t.same(clients.map(beats), [0, 0, 0, 0], 'none before the interval')
  clock.tick(1)
  await settle(writers, clients)
  t.same(clients.map(beats), [1, 1, 1, 0], 'one at 1000 ms, for each writer of 1000 ms')
  clock.tick(4000)
  await settle(writers, clients)
  t.same(clients.map(beats), [5, 5, 5, 1], 'one per interval since')
  t.same(parseAll([clients[3].body]).filter(([kind]) => kind !== 'event'), [['comment', '']],
    'a heartbeat is an empty comment: a client dispatches nothing for it')

  // One writer of 1000 ms leaves: the others keep their timer.
  writers[0].close()
  clock.tick(1000)
  await settle(writers.slice(1), clients.slice(1))
  t.same(clients.slice(1).map(beats), [6, 6, 1])
  t.equal(clock.countTimers() - before, 2)
  writers[1].close()
  clients[2].socket.destroy()
  await bounded(writers[2].closed, 'the third writer to close')
  t.equal(clock.countTimers() - before, 1, 'the timer of 1000 ms stopped with its last writer')
  writers[3].close()
  t.equal(clock.countTimers() - before, 0, 'no timer once every writer is closed')
  // A new writer of a stopped interval starts a timer of its own again.
  const client = await rawGet(t, srv.port, { path: '/again' })
  const again = await srv.writer(4)
  t.equal(clock.countTimers() - before, 1)
  clock.tick(5000)
  await settle([again], [client])
  t.equal(beats(client), 1)
  again.close()
  t.equal(clock.countTimers() - before, 0)
})

t.test('heartbeat: 0 starts no timer', async (t) => {
  const clock = fakeClock(t)
  const srv = await writerServer(t, (req, res) => new EventStreamWriter(res, { heartbeat: 0 }))
  const before = clock.countTimers()
  const client = await rawGet(t, srv.port)
  const writer = await srv.writer(0)
  t.equal(clock.countTimers(), before)
  clock.tick(60_000)
  await settle([writer], [client])
  t.equal(beats(client), 0)
})

t.test('the real timer: one for many writers, cleared once they are all closed', async (t) => {
  // An interval no other code of this process uses, to know our timer among Node's. Its Timeout is kept as
  // async_hooks reports it, and asked whether it was cleared (Node sets _destroyed when it is; the hook's own
  // destroy callback comes later, in a tick of its choosing).
  const INTERVAL = 123_457
  const timers = []
  const hook = asyncHooks.createHook({
    init (id, type, trigger, resource) {
      if (type === 'Timeout' && resource._repeat === INTERVAL) timers.push(resource)
    }
  }).enable()
  t.teardown(() => hook.disable())
  const srv = await writerServer(t, (req, res) => new EventStreamWriter(res, { heartbeat: INTERVAL }))
  const clients = []
  for (let i = 0; i < 20; i++) clients.push(await rawGet(t, srv.port))
  await srv.writer(19)
  t.equal(timers.length, 1, 'one timer for 20 writers')
  t.equal(timers[0]._destroyed, false)
  for (const client of clients.slice(1)) client.socket.destroy()
  await Promise.all(srv.writers.slice(1).map((writer) => bounded(writer.closed, 'the writers to close')))
  t.equal(timers[0]._destroyed, false, 'kept while a writer is left')
  clients[0].socket.destroy()
  await bounded(srv.writers[0].closed, 'the last writer to close')
  t.equal(timers[0]._destroyed, true, 'cleared once the last writer closed')
  t.equal(timers.length, 1)
})

t.test('heartbeats do not keep a process alive', async (t) => {
  // A writer with no client socket (a WHATWG body nobody reads), never closed: only the timer is left.
  const script = `
    const { EventStreamWriter } = require(${JSON.stringify(require.resolve('../../lib/entries/server.js'))})
    globalThis.writer = new EventStreamWriter(null, { heartbeat: 10 })
    console.log(JSON.stringify({ made: true }))`
  const { report, code } = await runChild(t, ['-e', script], { isolate: true, coverage: false }).exited()
  t.same(report, { made: true })
  t.equal(code, 0, 'the process exited on its own')
})
