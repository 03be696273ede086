// A child process for test/transport/eventsource-mocks.test.cjs: an EventSource with no option at all, in a
// process where a mocking library answers http://api.example.test/events, a host that does not exist.
// A process of its own per library: nock intercepts as soon as it is imported.
//
//   node test/children/mocks.mjs <library> <order>
//
// library: msw2, msw3 (msw's setupServer), nock14, nock15, mockagent7, mockagent8 (undici's MockAgent as
//          the global dispatcher, undici 7 and 8)
// order:   mock-first (the mock is set up before the package is loaded) or package-first
//
// The stream: two events, then the end of the response (a mocked stream is ended before the source is
// closed: msw 3 and nock 15 crash the process on Node's undici when a mocked body that is still being
// streamed is cut off, with or without this package). The source reconnects once, with Last-Event-ID,
// and gets a third event. It prints one JSON line: the events, the requests the mock saw, or the error.

import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const [library, order] = process.argv.slice(2)
const URL_ = 'http://api.example.test/events'
const seen = []

function body (lastEventId) {
  // retry: the source reconnects 10 ms after the end, with no option set.
  return lastEventId === undefined ? 'retry: 10\nid: 1\ndata: one\n\nid: 2\ndata: two\n\n' : 'id: 3\ndata: three\n\n'
}

async function mock () {
  if (library === 'msw2' || library === 'msw3') {
    const { http, HttpResponse } = await import(library)
    const { setupServer } = await import(`${library}/node`)
    const server = setupServer(http.get(URL_, ({ request }) => {
      const lastEventId = request.headers.get('last-event-id') ?? undefined
      seen.push({ lastEventId: lastEventId ?? null })
      return new HttpResponse(body(lastEventId), { headers: { 'content-type': 'text/event-stream' } })
    }))
    server.listen({ onUnhandledRequest: 'error' })
    return () => server.close()
  }
  if (library === 'nock14' || library === 'nock15') {
    const nock = (await import(library)).default
    const headers = { 'content-type': 'text/event-stream' }
    // The second request is answered only if it carries Last-Event-ID: 2 (a reply function's `this.req`
    // is not there in nock 15 when the request comes through fetch).
    const first = nock('http://api.example.test').get('/events').reply(200, () => {
      seen.push({ lastEventId: null })
      return body(undefined)
    }, headers)
    const second = nock('http://api.example.test').matchHeader('last-event-id', '2').get('/events').reply(200, () => {
      seen.push({ lastEventId: '2' })
      return body('2')
    }, headers)
    return () => {
      if (!first.isDone() || !second.isDone()) throw new Error('a nock interceptor was not used')
      nock.restore()
    }
  }
  const undici = require(library === 'mockagent7' ? 'undici' : 'undici8')
  const agent = new undici.MockAgent()
  agent.disableNetConnect()
  agent.get('http://api.example.test').intercept({ path: '/events', method: 'GET' }).reply(200, ({ headers }) => {
    const lastEventId = new Headers(headers).get('last-event-id') ?? undefined
    seen.push({ lastEventId: lastEventId ?? null })
    return body(lastEventId)
  }, { headers: { 'content-type': 'text/event-stream' } }).times(2)
  undici.setGlobalDispatcher(agent)
  return () => agent.close()
}

async function main () {
  let stop
  if (order === 'mock-first') stop = await mock()
  const { EventSource } = await import('../../lib/entries/index.js')
  if (order !== 'mock-first') stop = await mock()
  const es = new EventSource(URL_, undefined)
  const events = []
  await new Promise((resolve, reject) => {
    es.addEventListener('message', (event) => {
      events.push([event.data, event.lastEventId, event.origin])
      if (events.length === 3) {
        es.close()
        resolve()
      }
    })
    es.addEventListener('error', (event) => {
      if (event.code === 'ERR_EVENTSOURCE_STREAM_ENDED') return
      es.close()
      reject(new Error(`${event.code}: ${event.message}`))
    })
  })
  await stop()
  process.stdout.write(`${JSON.stringify({ library, order, events, seen })}\n`)
}

main().catch((err) => {
  process.stdout.write(`${JSON.stringify({ library, order, error: String(err?.message ?? err) })}\n`)
  process.exitCode = 1
})
