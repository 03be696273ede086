'use strict'

// Security properties SECURITY.md and docs/extensions.md promise: credential headers never reach
// another origin after a redirect, https: -> http: redirects are refused unless opted in, CR/LF/NUL
// in a user-supplied Last-Event-ID or header never reach the wire, and event names are only names.
// Two origins are two servers: http://127.0.0.1:<a> and http://localhost:<b>, where `localhost` is
// resolved by a lookup on the dispatcher to 127.0.0.1 (no resolver is asked).

const t = require('tap')
const { Agent } = require('undici')
const { EventSource } = require('../../')
const {
  serve, sse, record, open, loopbackLookup, tlsFixture, reconnectionCycle
} = require('../helpers/index.cjs')

const { OPEN, CLOSED } = EventSource

const CREDENTIALS = {
  authorization: 'Bearer secret-token',
  cookie: 'session=secret-cookie',
  'proxy-authorization': 'Basic c2VjcmV0OnByb3h5',
  'x-api-key': 'secret-key'
}
const USER_HEADERS = { ...CREDENTIALS, 'x-trace': 'kept' }
const NAMES = Object.keys(CREDENTIALS)

/** The credential headers a request carried (undefined where absent). */
const credentialsOf = (req) => Object.fromEntries(NAMES.map((name) => [name, req.headers[name]]))
const NONE = Object.fromEntries(NAMES.map((name) => [name, undefined]))

/** An Agent that resolves `localhost` to 127.0.0.1 itself. */
function localAgent (t, connect = {}) {
  const agent = new Agent({ connect: { lookup: loopbackLookup(['localhost']).lookup, ...connect } })
  t.teardown(() => agent.close())
  return agent
}

t.test('credential headers and a cross-origin redirect', async (t) => {
  for (const status of [301, 302, 303, 307, 308]) {
    t.test(`${status} to another origin: Authorization, Cookie, Proxy-Authorization and credentialHeaders are dropped`, async (t) => {
      const b = await serve(t, (req, res) => {
        sse(res)
        res.write('data: at b\n\n')
      }, { host: 'localhost' })
      const a = await serve(t, (req, res) => res.writeHead(status, { location: b.url('/events') }).end())
      const es = open(t, a.url('/start'), {
        dispatcher: localAgent(t),
        headers: USER_HEADERS,
        credentialHeaders: ['X-Api-Key'],
        reconnectionTime: 5
      })
      const rec = record(es)
      await rec.wait('message')
      t.same(credentialsOf(a.requests[0]), CREDENTIALS, 'the origin asked for gets them')
      t.same(credentialsOf(b.requests[0]), NONE, 'the other origin gets none')
      t.equal(b.requests[0].headers['x-trace'], 'kept', 'other headers follow the redirect')
      t.equal(b.requests[0].headers.host, `localhost:${b.port}`)
      t.equal(rec.events[1].origin, b.origin)
    })
  }

  t.test('and not restored when a later redirect comes back to the first origin', async (t) => {
    const a = await serve(t, (req, res) => {
      if (req.url === '/start') {
        res.writeHead(307, { location: b.url('/hop') }).end()
      } else {
        sse(res)
        res.write('data: back at a\n\n')
      }
    })
    const b = await serve(t, (req, res) => res.writeHead(302, { location: a.url('/events') }).end(), { host: 'localhost' })
    const rec = record(open(t, a.url('/start'), { dispatcher: localAgent(t), headers: USER_HEADERS, credentialHeaders: ['x-api-key'] }))
    await rec.wait('message')
    t.same(a.requests.map(credentialsOf), [CREDENTIALS, NONE])
    t.same(b.requests.map(credentialsOf), [NONE])
  })

  t.test('nor sent to the other origin when the connection is reestablished there', async (t) => {
    // The reconnection goes to the final URL (as in Chromium; see docs/api.md): the other origin.
    for (const headers of [USER_HEADERS, () => USER_HEADERS]) {
      t.test(typeof headers === 'function' ? 'headers from a function' : 'headers from an object', async (t) => {
        const b = await serve(t, (req, res, i) => {
          if (i === 0) {
            sse(res, 'id: 1\ndata: first\n\n')
          } else {
            sse(res)
            res.write('id: 2\ndata: second\n\n')
          }
        }, { host: 'localhost' })
        const a = await serve(t, (req, res) => res.writeHead(302, { location: b.url('/events') }).end())
        const rec = record(open(t, a.url('/start'), {
          dispatcher: localAgent(t), headers, credentialHeaders: ['x-api-key'], reconnectionTime: 1
        }))
        await rec.wait('message', 2)
        t.equal(a.requests.length, 1)
        t.equal(b.requests.length, 2, 'the first connection and the reconnection both reached the other origin')
        t.same(credentialsOf(b.requests[0]), NONE, 'none after the redirect')
        t.same(credentialsOf(b.requests[1]), NONE, 'none on the reconnection either')
        t.equal(b.requests[1].headers['last-event-id'], '1')
      })
    }
  })
})

t.test('a same-origin redirect keeps the credential headers', async (t) => {
  for (const status of [302, 307]) {
    t.test(`${status}`, async (t) => {
      const a = await serve(t, (req, res) => {
        if (req.url === '/start') {
          res.writeHead(status, { location: '/events' }).end()
        } else {
          sse(res)
          res.write('data: same origin\n\n')
        }
      })
      const rec = record(open(t, a.url('/start'), { headers: USER_HEADERS, credentialHeaders: ['x-api-key'] }))
      await rec.wait('message')
      t.same(a.requests.map((r) => r.url), ['/start', '/events'])
      t.same(a.requests.map(credentialsOf), [CREDENTIALS, CREDENTIALS])
    })
  }
})

t.test('an https: to http: redirect', async (t) => {
  const tls = tlsFixture()
  const plain = await serve(t, (req, res) => {
    sse(res)
    res.write('data: in clear text\n\n')
  })
  const secure = await serve(t, (req, res) => res.writeHead(302, { location: plain.url('/events') }).end(), { tls })

  t.test('is refused: ERR_EVENTSOURCE_INSECURE_REDIRECT, CLOSED, no request in clear text', async (t) => {
    const es = open(t, secure.url('/start'), {
      dispatcher: localAgent(t, { ca: tls.cert }), headers: USER_HEADERS, reconnectionTime: 5
    })
    const rec = record(es)
    await rec.wait('error')
    await reconnectionCycle(t, 30)
    t.same(rec.types, ['error'])
    t.equal(rec.events[0].code, 'ERR_EVENTSOURCE_INSECURE_REDIRECT')
    t.equal(rec.events[0].readyState, CLOSED)
    t.equal(es.readyState, CLOSED)
    t.equal(secure.requests.length, 1, 'no retry')
    t.equal(plain.requests.length, 0, 'nothing was sent over http:')
  })

  t.test('is followed with allowInsecureRedirect: true (without the credentials)', async (t) => {
    const es = open(t, secure.url('/start'), {
      dispatcher: localAgent(t, { ca: tls.cert }), headers: USER_HEADERS, allowInsecureRedirect: true
    })
    const rec = record(es)
    await rec.wait('message')
    t.same(rec.types, ['open', 'message'])
    t.equal(rec.events[1].origin, plain.origin)
    t.equal(plain.requests.length, 1)
    t.same(credentialsOf(plain.requests[0]), { ...NONE, 'x-api-key': 'secret-key' },
      'another origin: the standard credential headers are dropped (x-api-key is not one unless listed)')
    t.equal(es.readyState, OPEN)
  })
})

t.test('CR, LF and NUL in a user-supplied Last-Event-ID or header never reach the wire', async (t) => {
  const srv = await serve(t, (req, res) => {
    sse(res)
    res.write('data: sentinel\n\n')
  })
  const bad = ['x\r\nx-injected: 1', 'x\ny', 'x\ry', 'x\0y']
  for (const value of bad) {
    t.throws(() => new EventSource(srv.url('/'), { lastEventId: value }),
      { name: 'TypeError', code: 'ERR_INVALID_CHAR' }, `lastEventId ${JSON.stringify(value)}`)
    t.throws(() => new EventSource(srv.url('/'), { headers: { 'x-custom': value } }),
      { name: 'TypeError', code: 'ERR_INVALID_CHAR' }, `header value ${JSON.stringify(value)} (record)`)
    t.throws(() => new EventSource(srv.url('/'), { headers: [['authorization', value]] }),
      { name: 'TypeError', code: 'ERR_INVALID_CHAR' }, `header value ${JSON.stringify(value)} (pairs)`)
  }
  t.throws(() => new EventSource(srv.url('/'), { headers: { 'x-a\r\nx-injected': '1' } }),
    { name: 'TypeError', code: 'ERR_INVALID_HTTP_TOKEN' }, 'a header name with CRLF')

  // Returned by a headers function, the value is only seen at the attempt: the connection fails
  // before any request.
  const fromFunction = open(t, srv.url('/'), { headers: () => ({ 'x-custom': 'a\r\nx-injected: 1' }), reconnectionTime: 5 })
  const rec = record(fromFunction)
  await rec.wait('error')
  t.equal(rec.events[0].readyState, CLOSED, 'fails for good')
  t.equal(rec.events[0].event.cause?.code, 'ERR_INVALID_CHAR')

  // A valid EventSource on the same server, afterwards: the only request the server ever sees.
  const sentinel = record(open(t, srv.url('/sentinel'), { lastEventId: 'ok' }))
  await sentinel.wait('message')
  await reconnectionCycle(t, 20)
  t.same(srv.requests.map((r) => r.url), ['/sentinel'], 'no request from any of the rejected ones')
  t.equal(srv.requests[0].headers['x-injected'], undefined)
  t.equal(srv.requests[0].headers['last-event-id'], 'ok')
})

t.test('event names such as __proto__ are just names', async (t) => {
  const names = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__', 'prototype', 'then']
  const body = names.map((name) => `event: ${name}\ndata: {"__proto__":{"polluted":"${name}"}}\n\n`).join('') +
    'data: plain\n\n'
  const srv = await serve(t, (req, res) => {
    sse(res)
    res.write(body)
  })
  const es = open(t, srv.url('/'))
  const rec = record(es, ['open', 'message', 'error', ...names])
  const onmessage = []
  es.onmessage = (event) => onmessage.push(event.data)
  const iterated = []
  const iterating = (async () => {
    for await (const event of es) {
      iterated.push(event.type)
      if (event.data === 'plain') break
    }
  })()
  await rec.wait('message')
  await iterating
  t.same(rec.types, ['open', ...names, 'message'], 'each reached its own listeners, in order')
  for (const name of names) {
    t.same(rec.data(name), [`{"__proto__":{"polluted":"${name}"}}`], `${name} listener got its event`)
  }
  t.same(onmessage, ['plain'], 'onmessage saw only the message event')
  t.same(iterated, [...names, 'message'], 'for await yields them by type')
  t.equal(({}).polluted, undefined, 'no prototype pollution')
  t.notOk(Object.hasOwn(Object.prototype, 'polluted'))
  t.equal(Object.getPrototypeOf(es), EventSource.prototype)
  t.equal(es.constructor, EventSource)
  t.equal(typeof es.toString, 'function')
  t.equal(String(es), '[object EventSource]')
  t.equal(es.readyState, CLOSED, 'closed by leaving the loop')
})
