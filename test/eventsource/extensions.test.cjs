'use strict'

// The extensions as the entry points compose them (lib/entries/): the browsers' main entry has the standard
// EventSource, which refuses an init member it does not have (ERR_EVENTSOURCE_EXTENSION_NOT_LOADED, naming
// it and where it is) rather than ignoring it; `whatwg-eventsource/extensions` has every extension. Run on
// the browser build (lib/ bundled for a page, test/helpers/bundle.cjs), both classes in one bundle, as a page
// may have them. On Node (lib/), the main entry's EventSource has every extension. Also: the list of members
// a build without them refuses is every member the extensions read, and the standard's reconnection decision
// is the one the reconnection policy makes with its defaults.

const t = require('tap')
const { serve, sse, bounded } = require('../helpers/index.cjs')
const { importBrowserBuild } = require('../helpers/bundle.cjs')
const { createInitResolver, refuseExtensions, EXTENSION_MEMBERS } = require('../../lib/eventsource/init')
const { resolveExtensions } = require('../../lib/eventsource/init-extensions')
const reconnect = require('../../lib/eventsource/reconnect')
const policy = require('../../lib/eventsource/reconnect-policy')
const {
  codes: { ERR_EVENTSOURCE_BAD_STATUS, ERR_EVENTSOURCE_STREAM_ENDED, ERR_EVENTSOURCE_NETWORK }
} = require('../../lib/errors/connection')

const NOT_LOADED = (member) =>
  `${member} is an extension of whatwg-eventsource, not part of this build: the EventSource of 'whatwg-eventsource/extensions' has it`

// The init resolver of Node's EventSource and of `whatwg-eventsource/extensions` (lib/entries/).
const resolveInit = createInitResolver({ resolveExtensions })

// What `fn` throws (undefined when it returns).
function thrown (fn) {
  try {
    fn()
  } catch (err) {
    return err
  }
}

function next (target, type) {
  return bounded(new Promise((resolve) => target.addEventListener(type, resolve, { once: true })), `a ${type} event`)
}

t.test('a build without the extensions refuses every member they read', async (t) => {
  // What the extensions read of a dictionary, recorded on Node, where they are loaded.
  const read = new Set()
  resolveInit(new Proxy({}, { get (target, key) { if (typeof key === 'string') read.add(key) } }))
  read.delete('withCredentials')
  t.same([...read].sort(), [...EXTENSION_MEMBERS].sort(), 'EXTENSION_MEMBERS is every member but withCredentials')
  for (const name of EXTENSION_MEMBERS) {
    const err = thrown(() => refuseExtensions({ withCredentials: true, [name]: name === 'closeOnEnd' ? false : 0 }))
    t.same([err?.code, err instanceof TypeError, err?.message], ['ERR_EVENTSOURCE_EXTENSION_NOT_LOADED', true, NOT_LOADED(`init.${name}`)], name)
  }
  t.equal(refuseExtensions({ withCredentials: true, headers: undefined, unknown: 1 }), undefined,
    'withCredentials, members left undefined and members of no one\'s are taken, as WebIDL takes them')
})

t.test('a resolver without the extensions refuses them; each resolver shares its own default', async (t) => {
  const standard = createInitResolver()
  const err = thrown(() => standard({ withCredentials: true, reconnect: {} }))
  t.same([err?.code, err?.message], ['ERR_EVENTSOURCE_EXTENSION_NOT_LOADED', NOT_LOADED('init.reconnect')])
  t.equal(standard(), standard(null), 'no dictionary: one resolved default')
  t.equal(standard().reconnect, null, 'the standard\'s default has no reconnection policy')
  t.not(resolveInit().reconnect, null, 'the extensions\' default has one: the defaults are not shared across resolvers')
  t.equal(standard({ withCredentials: 1 }).withCredentials, true)
})

t.test('the standard\'s reconnection decision is the policy\'s with its defaults', async (t) => {
  const defaults = resolveInit({}).reconnect
  t.not(defaults, null, 'on Node the init has a policy')
  const errors = [new ERR_EVENTSOURCE_STREAM_ENDED(), new ERR_EVENTSOURCE_NETWORK('http://a', 'reset'), new ERR_EVENTSOURCE_BAD_STATUS(500, 'x')]
  let compared = 0
  for (const error of errors) {
    const failsConnection = error.code === 'ERR_EVENTSOURCE_BAD_STATUS'
    for (const retry of [0, 1, 2.6, 3000, 2 ** 31, Infinity]) {
      for (const failures of [1, 2, 3, 12, 40]) {
        const counts = { events: 0, retry, failures, attempts: failures, elapsed: 0 }
        const standard = reconnect.nextAttempt({ reconnect: null }, error, failsConnection, counts, 'GET')
        const declarative = policy.decide({ reconnect: { ...defaults, policy: null }, idempotent: null }, error,
          failsConnection, counts, 'GET')
        t.equal(standard, declarative, `${error.code}, retry ${retry}, failures ${failures}: ${standard?.code ?? standard}`)
        compared++
      }
    }
  }
  t.equal(compared, 90)
  t.equal(reconnect.nextAttempt({ reconnect: null }, errors[2], true, { retry: 1, failures: 1 }, 'GET'), errors[2],
    'a response the standard fails on fails')
  t.equal(policy.parseRetryAfter('2', 0), 2000, 'the policy module still has its own parts')
})

t.test('a browser build: the main entry\'s EventSource is the standard\'s; the extensions\' has every extension', async (t) => {
  const server = await serve(t, (req, res) => {
    if (req.url === '/ended') return sse(res, 'retry: 5\ndata: once\n\n')
    sse(res, `data: ${req.headers['x-token'] ?? 'none'}\n\n`, { end: false })
  })
  const { exports: { EventSource, ExtendedEventSource } } = await importBrowserBuild(t, `
    export { EventSource } from './lib/entries/browser.js'
    export { EventSource as ExtendedEventSource } from './lib/entries/extensions.browser.js'
  `)
  t.not(EventSource, ExtendedEventSource, 'two classes')

  const err = thrown(() => new EventSource(server.url('/'), { headers: { 'x-token': 't' } }))
  t.same([err?.code, err?.name, err?.message], ['ERR_EVENTSOURCE_EXTENSION_NOT_LOADED', 'TypeError', NOT_LOADED('init.headers')])
  t.equal(server.requests.length, 0, 'nothing sent')

  const source = new EventSource(server.url('/'), { withCredentials: false })
  const iterating = thrown(() => source[Symbol.asyncIterator]())
  t.same([iterating?.code, iterating?.message], ['ERR_EVENTSOURCE_EXTENSION_NOT_LOADED', NOT_LOADED('for await (Symbol.asyncIterator)')])
  t.equal((await next(source, 'message')).data, 'none')
  source.close()

  // The end of the stream reestablishes after the reconnection time the server set, as the standard says.
  const ended = new EventSource(server.url('/ended'))
  t.equal((await next(ended, 'message')).data, 'once')
  const error = await next(ended, 'error')
  t.same([error.code, error.willReconnect, error.reconnectDelay, ended.readyState], ['ERR_EVENTSOURCE_STREAM_ENDED', true, 5, EventSource.CONNECTING])
  t.equal((await next(ended, 'message')).data, 'once', 'reconnected')
  ended.close()

  const extended = new ExtendedEventSource(server.url('/'), { headers: { 'x-token': 't' } })
  for await (const event of extended) { // eslint-disable-line no-unreachable-loop -- leaving the loop is what is tested
    t.equal(event.data, 't', 'headers, and for await, on the EventSource of whatwg-eventsource/extensions')
    break
  }
  t.equal(extended.readyState, EventSource.CLOSED)
  t.equal(thrown(() => new EventSource(server.url('/'), { headers: {} }))?.code, 'ERR_EVENTSOURCE_EXTENSION_NOT_LOADED',
    'the main entry\'s stays the standard\'s')
})
