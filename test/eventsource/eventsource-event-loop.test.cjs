'use strict'

// Each event is dispatched from its own task, with a microtask checkpoint after it, as in a browser:
// promise continuations a listener starts run before the next event, even when the server sent
// every event in one network chunk. Written the way applications and test suites wait for events:
// `await once(source, type)`.
// https://html.spec.whatwg.org/multipage/server-sent-events.html#dispatchMessage
// https://html.spec.whatwg.org/multipage/webappapis.html#perform-a-microtask-checkpoint
//
// Each test runs on the EventSource of lib/, whose task queue counts listeners (task-queue.js on
// lib/platform/listeners-node.js), and on the browsers' build (lib/entries/browser.js bundled for a page, test/helpers/bundle.cjs), where the same queue cannot count them
// (lib/platform/listeners-web.js) and waits for a checkpoint after every task, here sending its requests with
// Node's fetch.

const t = require('tap')
const { once } = require('node:events')
const { EventSource } = require('../../')
const { serve, sse, bounded, record } = require('../helpers/index.cjs')
const { closeAtTeardown } = require('../helpers/eventsource.cjs')
const { importBrowserBuild } = require('../helpers/bundle.cjs')

const { CONNECTING, CLOSED } = EventSource

function manyEvents (count) {
  let body = ''
  for (let i = 0; i < count; i++) body += `id: ${i}\ndata: ${i}\n\n`
  return body
}

// A chain of 2n promise jobs: awaits on promises, on a thenable, and async functions returning into
// each other.
const deep = async (n) => {
  if (n === 0) return
  await Promise.resolve()
  await { then: (resolve) => resolve() }
  return deep(n - 1)
}

// The source of each build, closed at teardown.
const BUILDS = {
  'lib/': async () => (t, srv) => srv.eventSource('/'),
  'the browser build': async (t) => {
    const { exports } = await importBrowserBuild(t, "export { EventSource } from './lib/entries/browser.js'")
    const { EventSource: BrowserEventSource } = exports
    t.not(BrowserEventSource, EventSource, 'a copy of its own')
    return (t, srv) => closeAtTeardown(t, new BrowserEventSource(srv.url('/')))
  }
}

for (const [build, load] of Object.entries(BUILDS)) {
  t.test(build, async (t) => {
    const open = await load(t)

    t.test('a loop of await once(source, "message") receives all of 1,000 events sent in one write', async (t) => {
      // sse() writes the head and the whole body at once, then ends the response: one chunk on loopback.
      const srv = await serve(t, (req, res) => sse(res, manyEvents(1000)))
      const es = open(t, srv)
      await bounded((async () => {
        await once(es, 'open')
        const seen = []
        for (let i = 0; i < 1000; i++) {
          const [event] = await once(es, 'message')
          seen.push(event.data)
        }
        t.same(seen, Array.from({ length: 1000 }, (_, i) => `${i}`), 'every event, in order')
        // The end of the response came in the same chunk: its error waits for this continuation too.
        const [error] = await once(es, 'error')
        t.equal(error.code, 'ERR_EVENTSOURCE_STREAM_ENDED')
        t.equal(es.readyState, CONNECTING)
        es.close()
      })(), () => 'every message and the error')
    })

    t.test('await once(source, "open") then once(source, "error") sees an empty response that ended at once', async (t) => {
      const srv = await serve(t, (req, res) => sse(res, ''))
      const es = open(t, srv)
      await bounded((async () => {
        await once(es, 'open')
        const [error] = await once(es, 'error')
        t.equal(error.code, 'ERR_EVENTSOURCE_STREAM_ENDED')
        es.close()
      })(), () => 'open, then error')
    })

    t.test('an await once() loop misses nothing, however long the chain before it comes round again', async (t) => {
      const srv = await serve(t, (req, res) => sse(res, manyEvents(5), { end: false }))
      const es = open(t, srv)
      const order = []
      await bounded((async () => {
        for (let i = 0; i < 5; i++) {
          // A timeout race and a long chain of awaits between two rounds: what test helpers do.
          const [event] = await Promise.race([once(es, 'message'), new Promise(() => {})])
          order.push(`message ${event.data}`)
          await deep(100)
          order.push(`chain ${event.data}`)
        }
      })(), () => 'five messages')
      t.same(order, [
        'message 0', 'chain 0', 'message 1', 'chain 1', 'message 2', 'chain 2', 'message 3', 'chain 3', 'message 4', 'chain 4'
      ])
      es.close()
    })

    t.test('a listener that removes itself and comes back after a chain of awaits misses nothing', async (t) => {
      // What a hand-written once() does: removeEventListener, not { once: true }. The source must see the
      // type go unlistened and wait, each time, and see the listener that comes back.
      const srv = await serve(t, (req, res) => sse(res, manyEvents(20), { end: false }))
      const es = open(t, srv)
      const next = () => new Promise((resolve) => {
        const listener = (event) => {
          es.removeEventListener('message', listener)
          resolve(event.data)
        }
        es.addEventListener('message', listener)
      })
      const seen = []
      await bounded((async () => {
        for (let i = 0; i < 20; i++) {
          seen.push(await next())
          await deep(i % 3)
        }
      })(), () => 'twenty messages')
      t.same(seen, Array.from({ length: 20 }, (_, i) => `${i}`), 'every event, in order')
      es.close()
    })

    t.test('a listener that stays: continuations it starts directly run before the next message', async (t) => {
      const srv = await serve(t, (req, res) => sse(res, manyEvents(3), { end: false }))
      const es = open(t, srv)
      const order = []
      es.onmessage = async (event) => {
        order.push(`message ${event.data}`)
        Promise.resolve().then(() => order.push(`then ${event.data}`))
        await null
        order.push(`await ${event.data}`)
      }
      const rec = record(es, ['message'])
      await rec.wait('message', 3)
      await deep(2)
      t.same(order, ['message 0', 'then 0', 'await 0', 'message 1', 'then 1', 'await 1', 'message 2', 'then 2', 'await 2'])
      es.close()
    })

    t.test('close() from a continuation drops the events still queued from the same chunk', async (t) => {
      const srv = await serve(t, (req, res) => sse(res, manyEvents(10)))
      const es = open(t, srv)
      const seen = []
      es.addEventListener('message', (e) => seen.push(e.data))
      es.addEventListener('error', () => seen.push('error'))
      await bounded(once(es, 'message'), () => 'the first message')
      // The continuation of the first message's once(): the other nine are already parsed, and queued.
      es.close()
      t.equal(es.readyState, CLOSED)
      // Two full checkpoints later, nothing more has been dispatched.
      await new Promise((resolve) => setImmediate(resolve))
      await new Promise((resolve) => setImmediate(resolve))
      t.same(seen, ['0'])
    })

    t.test('readyState is OPEN while the events of a chunk that also ended the response are dispatched', async (t) => {
      const srv = await serve(t, (req, res) => sse(res, manyEvents(3)))
      const es = open(t, srv)
      const states = []
      es.onmessage = () => states.push(es.readyState)
      await bounded(once(es, 'error'), () => 'the error')
      t.same(states, [EventSource.OPEN, EventSource.OPEN, EventSource.OPEN], 'the end is handled after the events')
      es.close()
    })

    t.test('a listener added by a continuation of open gets a message sent with the response head', async (t) => {
      const srv = await serve(t, (req, res) => sse(res, 'event: greeting\ndata: hi\n\n', { end: false }))
      const es = open(t, srv)
      const [greeting] = await bounded((async () => {
        await once(es, 'open')
        // Nobody listened for "greeting" when the chunk was parsed.
        return once(es, 'greeting')
      })(), () => 'the greeting')
      t.equal(greeting.data, 'hi')
      es.close()
    })
  })
}
