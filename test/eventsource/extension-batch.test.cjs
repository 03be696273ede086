'use strict'

// init.onBatch: the messages of one network chunk in one call, after their message events. What a UI store needs
// to update once per chunk instead of once per event (a React store fed per event trips "Maximum update depth
// exceeded" when one chunk brings fifty). It must not change what a standard listener sees.

const t = require('tap')
const { EventSource } = require('../../')
const {
  SSE_HEADERS, serve, onceBounded, deferred, reconnectionCycle, runChild, readableStreamOf
} = require('../helpers/index.cjs')

// A store as React's useSyncExternalStore reads one: a snapshot, and subscribers told of each change.
function createStore () {
  let snapshot = []
  const subscribers = new Set()
  return {
    updates: 0,
    getSnapshot: () => snapshot,
    subscribe (fn) { subscribers.add(fn); return () => subscribers.delete(fn) },
    append (items) {
      snapshot = [...snapshot, ...items]
      this.updates++
      for (const fn of subscribers) fn()
    }
  }
}

t.test('a store fed by onBatch updates once per chunk, with every message in order', async (t) => {
  const store = createStore()
  let renders = 0
  store.subscribe(() => renders++)
  const chunks = [
    'data: t1\n\ndata: t2\n\ndata: t3\n\n',
    'data: t4\n\nevent: usage\ndata: u\n\ndata: t5',
    '\n\n',
    ': a comment only\n\n',
    'data: t6\n\n'
  ]
  const source = EventSource.fromReadableStream(readableStreamOf(chunks), {
    closeOnEnd: true,
    onBatch (messages) { store.append(messages.map((m) => `${m.type}:${m.data}`)) }
  })
  await onceBounded(source, 'end')
  t.same(store.getSnapshot(), ['message:t1', 'message:t2', 'message:t3', 'message:t4', 'usage:u', 'message:t5',
    'message:t6'])
  t.equal(store.updates, 4, 'one update for each chunk that completed a message (the comment did not)')
  t.equal(renders, 4)
})

t.test('each batch holds what a MessageEvent would: type, data, lastEventId, origin; `this` is the source', async (t) => {
  const batches = []
  let receiver = null
  const source = EventSource.fromReadableStream(readableStreamOf(['id: 1\ndata: a\n\nevent: x\ndata: b\n\n']), {
    closeOnEnd: true,
    onBatch (messages) { receiver = this; batches.push(messages) }
  })
  await onceBounded(source, 'end')
  t.same(batches, [[
    { type: 'message', data: 'a', lastEventId: '1', origin: 'null' },
    { type: 'x', data: 'b', lastEventId: '1', origin: 'null' }
  ]])
  t.equal(receiver, source)
})

t.test('listeners see every event as before, each before the batch that holds it', async (t) => {
  const order = []
  const source = EventSource.fromReadableStream(readableStreamOf(['data: a\n\ndata: b\n\n', 'data: c\n\n']), {
    closeOnEnd: true,
    onBatch (messages) { order.push(`batch ${messages.map((m) => m.data).join('')}`) }
  })
  source.onmessage = (event) => order.push(`message ${event.data}`)
  await onceBounded(source, 'end')
  t.same(order, ['message a', 'message b', 'batch ab', 'message c', 'batch c'])
})

t.test('a promise continuation of a listener runs before the batch, as between two events', async (t) => {
  const order = []
  const source = EventSource.fromReadableStream(readableStreamOf(['data: a\n\n']), {
    closeOnEnd: true,
    onBatch () { order.push('batch') }
  })
  source.onmessage = () => {
    order.push('message')
    Promise.resolve().then(() => order.push('continuation'))
  }
  await onceBounded(source, 'end')
  t.same(order, ['message', 'continuation', 'batch'])
})

t.test('over the network: every message exactly once, in order, in as many calls as chunks carried them', async (t) => {
  const written = deferred()
  const server = await serve(t, async (req, res) => {
    res.writeHead(200, SSE_HEADERS)
    for (let i = 0; i < 50; i++) res.write(`id: ${i}\ndata: ${'x'.repeat(i)}\n\n`)
    res.end()
    written.resolve()
  })
  const batches = []
  const source = new EventSource(server.url(), { closeOnEnd: true, onBatch: (messages) => batches.push(messages) })
  t.teardown(() => source.close())
  await onceBounded(source, 'end')
  await written.promise
  const all = batches.flat()
  t.same(all.map((m) => m.lastEventId), Array.from({ length: 50 }, (_, i) => String(i)))
  t.same(all.map((m) => m.data.length), Array.from({ length: 50 }, (_, i) => i))
  t.ok(batches.length >= 1 && batches.length <= 50, `${batches.length} batches`)
  t.ok(batches.every((batch) => batch.length > 0), 'no empty batch')
})

t.test('close() from a listener: the batch of that chunk is not called', async (t) => {
  let batches = 0
  const source = EventSource.fromReadableStream(readableStreamOf(['data: a\n\ndata: b\n\n']), { onBatch: () => batches++ })
  source.onmessage = () => source.close()
  const [event] = await onceBounded(source, 'message')
  t.equal(event.data, 'a')
  // A reconnection cycle of another source: later than anything this one had queued.
  await reconnectionCycle(t, 0)
  t.equal(batches, 0)
})

// In a child, whose uncaught exceptions are its own.
const THROWING_BATCH = `
const { EventSource } = require(${JSON.stringify(require.resolve('../../'))})
const reported = []
process.on('uncaughtException', (error) => reported.push(error.message))
const encoder = new TextEncoder()
const stream = new ReadableStream({
  start (controller) {
    controller.enqueue(encoder.encode('data: a\\n\\n'))
    controller.enqueue(encoder.encode('data: b\\n\\n'))
    controller.close()
  }
})
let calls = 0
const source = EventSource.fromReadableStream(stream, {
  closeOnEnd: true,
  onBatch () { if (calls++ === 0) throw new Error('from onBatch') }
})
// (The report of an exception comes in a tick of its own, after the tasks already queued.)
source.addEventListener('end', () => process.on('exit', () => console.log(JSON.stringify({ calls, reported }))))
`

t.test('an exception thrown by onBatch is reported as a listener\'s is, and the stream goes on', async (t) => {
  const child = runChild(t, ['-e', THROWING_BATCH], { isolate: true })
  const { code, stderr, report } = await child.exited()
  t.equal(code, 0, stderr)
  t.same(report, { calls: 2, reported: ['from onBatch'] })
})

t.test('onBatch must be a function', async (t) => {
  t.throws(() => new EventSource('http://127.0.0.1:1/', { onBatch: 'yes' }), { code: 'ERR_INVALID_ARG_TYPE' })
})
