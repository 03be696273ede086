'use strict'

// Validation of every Node extension of EventSourceInit: a bad value is a Node-style exception from
// the constructor (code, class, a message naming the option), thrown before any request is made.

const t = require('tap')
const { inspect } = require('node:util')
const { EventSource } = require('../../')

// Nothing listens here, and nothing is sent: each valid source is closed before its first request.
const URL_ = 'http://127.0.0.1:1/'

/** What `new EventSource(URL_, init)` throws, or null. */
function thrownBy (init) {
  try {
    new EventSource(URL_, init).close()
  } catch (err) {
    return err
  }
  return null
}

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
/** The message of a Node-style ERR_INVALID_ARG_TYPE for the property `name`, ending with `received`. */
const propertyType = (name, received) => new RegExp(`The "${escape(name)}" property must be [^]*${escape(received)}$`)
/** The start of a Node-style ERR_OUT_OF_RANGE message for an integer `name`. */
const integerRange = (name) => new RegExp(`^The value of "${escape(name)}" is out of range\\. It must be an integer >= `)

/**
 * Each init must make the constructor throw a `type` with `code`, in Node's form: a plain `name`,
 * `Name [CODE]: message` as toString() and as the first line of the stack.
 * @param {import('tap').Test} t
 * @param {Array<[object, string, RegExp?]>} cases [init, option name in the message, more of the message]
 */
function expectAll (t, cases, type, code) {
  for (const [init, name, more] of cases) {
    const err = thrownBy(init)
    const label = `${code} for ${inspect(init, { breakLength: Infinity })}`
    if (err === null) {
      t.fail(`${label}: nothing was thrown`)
      continue
    }
    t.ok(err instanceof type && err.code === code, label, { found: err })
    t.match(err.message, `"${name}"`, `${label}: the message names ${name}`)
    if (more !== undefined) t.match(err.message, more, `${label}: ${more}`)
    t.equal(String(err), `${type.name} [${code}]: ${err.message}`, `${label}: toString()`)
    t.equal(err.name, type.name, `${label}: name stays ${type.name}`)
    t.ok(err.stack.startsWith(`${type.name} [${code}]: `), `${label}: the stack starts with Name [CODE]`)
  }
}

t.test('wrong types throw TypeError ERR_INVALID_ARG_TYPE naming the option', async (t) => {
  expectAll(t, [
    [{ reconnect: 5 }, 'init.reconnect', /must be of type object\. Received type number \(5\)$/],
    [{ reconnect: null }, 'init.reconnect', /Received null$/],
    [{ reconnect: { delay: '10' } }, 'init.reconnect.delay', /must be of type number\. Received type string \('10'\)$/],
    [{ reconnect: { factor: '2' } }, 'init.reconnect.factor', /must be of type number/],
    [{ reconnect: { factor: 2n } }, 'init.reconnect.factor', /Received type bigint \(2n\)/],
    [{ reconnect: { maxDelay: null } }, 'init.reconnect.maxDelay', /Received null/],
    [{ reconnect: { maxRetries: '3' } }, 'init.reconnect.maxRetries'],
    [{ reconnect: { retryOnStatus: 503 } }, 'init.reconnect.retryOnStatus', /must be an array of status codes/],
    [{ reconnect: { retryOnStatus: new Set([503]) } }, 'init.reconnect.retryOnStatus', /Received an instance of Set/],
    [{ reconnect: { retryOnStatus: ['503'] } }, 'init.reconnect.retryOnStatus[]'],
    [{ headers: 'x-token: abc' }, 'init.headers', /Received type string/],
    [{ headers: 42 }, 'init.headers'],
    [{ headers: null }, 'init.headers', /Received null/],
    [{ method: 1 }, 'init.method', /must be of type string/],
    [{ method: null }, 'init.method'],
    [{ method: 'POST', body: 42 }, 'init.body', /a string, Buffer, Uint8Array, ArrayBuffer, URLSearchParams or function/],
    [{ method: 'POST', body: { text: 'x' } }, 'init.body', /Received an instance of Object/],
    [{ method: 'POST', body: new DataView(new ArrayBuffer(1)) }, 'init.body', /Received an instance of DataView/],
    [{ lastEventId: 7 }, 'init.lastEventId', /must be of type string\. Received type number \(7\)/],
    [{ lastEventId: null }, 'init.lastEventId'],
    [{ idleTimeout: '1000' }, 'init.idleTimeout'],
    [{ connectTimeout: true }, 'init.connectTimeout', /Received type boolean \(true\)/],
    [{ signal: {} }, 'init.signal', /must be an instance of AbortSignal/],
    [{ signal: null }, 'init.signal', /Received null/],
    [{ signal: new AbortController() }, 'init.signal', /Received an instance of AbortController/],
    [{ highWaterMark: '2' }, 'init.highWaterMark'],
    [{ highWaterMarkBytes: 1n }, 'init.highWaterMarkBytes', /must be of type number\. Received type bigint \(1n\)/],
    [{ credentialHeaders: 'x-api-key' }, 'init.credentialHeaders', /must be an array of header names/],
    [{ credentialHeaders: ['x-api-key', 1] }, 'init.credentialHeaders[]', /must be of type string\. Received type number \(1\)/],
    [{ credentialHeaders: [1] }, 'init.credentialHeaders[]', /must be of type string\. Received type number \(1\)/],
    [{ reconnectionTime: '3s' }, 'init.reconnectionTime', propertyType('init.reconnectionTime', "Received type string ('3s')")],
    [{ reconnectionTime: 10n }, 'init.reconnectionTime', propertyType('init.reconnectionTime', 'Received type bigint (10n)')],
    [{ reconnectionTime: null }, 'init.reconnectionTime', propertyType('init.reconnectionTime', 'Received null')],
    [{ maxEventSize: '1' }, 'init.maxEventSize', propertyType('init.maxEventSize', "Received type string ('1')")],
    [{ maxEventSize: 'x'.repeat(40) }, 'init.maxEventSize', propertyType('init.maxEventSize', `Received type string ('${'x'.repeat(24)}...)`)],
    [{ dispatcher: {} }, 'init.dispatcher', /an undici Dispatcher/],
    [{ dispatcher: { dispatch: 1 } }, 'init.dispatcher', propertyType('init.dispatcher', 'Received an instance of Object')],
    [{ dispatcher: function agent () {} }, 'init.dispatcher', propertyType('init.dispatcher', 'Received function agent')],
    [{ dispatcher: () => {} }, 'init.dispatcher', propertyType('init.dispatcher', 'Received function dispatcher')],
    [{ dispatcher: Object.create(null) }, 'init.dispatcher', propertyType('init.dispatcher', 'Received [Object: null prototype] {}')],
    [{ dispatcher: 'agent' }, 'init.dispatcher', propertyType('init.dispatcher', "Received type string ('agent')")],
    [{ node: 1 }, 'init.node', propertyType('init.node', 'Received type number (1)')],
    [{ node: 'x' }, 'init.node', propertyType('init.node', "Received type string ('x')")],
    [{ node: null }, 'init.node', propertyType('init.node', 'Received null')],
    [{ node: { dispatcher: { dispatch: true } } }, 'init.node.dispatcher'],
    [{ node: { dispatcher: {} } }, 'init.node.dispatcher', propertyType('init.node.dispatcher', 'Received an instance of Object')],
    [{ node: { dispatcher: null } }, 'init.node.dispatcher', propertyType('init.node.dispatcher', 'Received null')],
    [{ node: { reconnectionTime: null } }, 'init.node.reconnectionTime'],
    [{ node: { reconnectionTime: '3s' } }, 'init.node.reconnectionTime', propertyType('init.node.reconnectionTime', "Received type string ('3s')")],
    [{ fetch: 'https://example.com' }, 'init.fetch', /must be of type function\. Received type string \('https:\/\/example\.com'\)$/],
    [{ fetch: {} }, 'init.fetch', /Received an instance of Object$/],
    [{ fetch: null }, 'init.fetch', /Received null$/]
  ], TypeError, 'ERR_INVALID_ARG_TYPE')
})

t.test('values out of range throw RangeError ERR_OUT_OF_RANGE naming the option', async (t) => {
  expectAll(t, [
    [{ reconnect: { delay: -1 } }, 'init.reconnect.delay', /It must be an integer >= 0\. Received -1$/],
    [{ reconnect: { delay: 1.5 } }, 'init.reconnect.delay'],
    [{ reconnect: { delay: Infinity } }, 'init.reconnect.delay', /an integer >= 0\. Received Infinity/],
    [{ reconnect: { factor: 0.5 } }, 'init.reconnect.factor', /It must be >= 1 and <= 1000\. Received 0\.5$/],
    [{ reconnect: { factor: 1001 } }, 'init.reconnect.factor'],
    [{ reconnect: { factor: NaN } }, 'init.reconnect.factor', /Received NaN/],
    [{ reconnect: { factor: Infinity } }, 'init.reconnect.factor'],
    [{ reconnect: { maxDelay: -5 } }, 'init.reconnect.maxDelay', /an integer >= 0 or Infinity/],
    [{ reconnect: { maxDelay: 2.5 } }, 'init.reconnect.maxDelay'],
    [{ reconnect: { maxRetries: -1 } }, 'init.reconnect.maxRetries', /or Infinity/],
    [{ reconnect: { maxRetries: NaN } }, 'init.reconnect.maxRetries'],
    [{ reconnect: { retryOnStatus: [99] } }, 'init.reconnect.retryOnStatus[]', /an integer >= 100/],
    [{ reconnect: { retryOnStatus: [503.5] } }, 'init.reconnect.retryOnStatus[]'],
    [{ reconnect: { retryOnStatus: [503, 200] } }, 'init.reconnect.retryOnStatus[]', /a status from 100 to 599 other than 200\. Received 200/],
    [{ reconnect: { retryOnStatus: [600] } }, 'init.reconnect.retryOnStatus[]', /Received 600/],
    [{ idleTimeout: -1 }, 'init.idleTimeout'],
    [{ idleTimeout: Infinity }, 'init.idleTimeout'],
    [{ idleTimeout: 2 ** 53 }, 'init.idleTimeout'],
    [{ connectTimeout: 0.5 }, 'init.connectTimeout'],
    [{ highWaterMark: 0 }, 'init.highWaterMark', /an integer >= 1/],
    [{ highWaterMark: Infinity }, 'init.highWaterMark'],
    [{ reconnectionTime: -1 }, 'init.reconnectionTime', integerRange('init.reconnectionTime')],
    [{ reconnectionTime: NaN }, 'init.reconnectionTime', integerRange('init.reconnectionTime')],
    [{ reconnectionTime: Infinity }, 'init.reconnectionTime', integerRange('init.reconnectionTime')],
    [{ reconnectionTime: 2 ** 53 }, 'init.reconnectionTime', integerRange('init.reconnectionTime')],
    [{ node: { reconnectionTime: -1 } }, 'init.node.reconnectionTime', integerRange('init.node.reconnectionTime')],
    [{ node: { reconnectionTime: 1.5 } }, 'init.node.reconnectionTime', integerRange('init.node.reconnectionTime')],
    [{ maxEventSize: 0 }, 'init.maxEventSize', integerRange('init.maxEventSize')],
    [{ maxEventSize: -Infinity }, 'init.maxEventSize', integerRange('init.maxEventSize')],
    [{ maxEventSize: 0.5 }, 'init.maxEventSize', integerRange('init.maxEventSize')],
    [{ highWaterMarkBytes: 0 }, 'init.highWaterMarkBytes', /an integer >= 1\. Received 0$/],
    [{ highWaterMarkBytes: 1.5 }, 'init.highWaterMarkBytes', integerRange('init.highWaterMarkBytes')],
    [{ highWaterMarkBytes: Infinity }, 'init.highWaterMarkBytes', integerRange('init.highWaterMarkBytes')]
  ], RangeError, 'ERR_OUT_OF_RANGE')
})

t.test('invalid values throw TypeError ERR_INVALID_ARG_VALUE naming the option', async (t) => {
  expectAll(t, [
    [{ reconnect: { jitter: 'partial' } }, 'init.reconnect.jitter', /must be 'none' or 'full'\. Received 'partial'$/],
    [{ reconnect: { jitter: true } }, 'init.reconnect.jitter', /Received true/],
    [{ headers: [['x-a']] }, 'init.headers', /must hold \[name, value\] pairs\. Received \[ 'x-a' \]/],
    [{ headers: [['x-a', '1', '2']] }, 'init.headers'],
    [{ headers: [null] }, 'init.headers', /Received null/],
    [{ headers: ['ab'] }, 'init.headers', /Received 'ab'/],
    [{ method: 'CONNECT' }, 'init.method', /is a method fetch forbids\. Received 'CONNECT'/],
    [{ method: 'trace' }, 'init.method'],
    [{ method: 'Track' }, 'init.method'],
    [{ body: 'x' }, 'init.body', /cannot be sent with GET; set init\.method \(e\.g\. 'POST'\)\. Received 'x'$/],
    [{ method: 'get', body: new Uint8Array(1) }, 'init.body', /cannot be sent with GET/],
    [{ method: 'HEAD', body: 'x' }, 'init.body', /cannot be sent with HEAD/],
    [{ body: () => 'x' }, 'init.body', /Received '\[Function\]'/],
    // A fetch is for the fetch transport and a dispatcher for the other: given both, which was meant?
    [{ fetch, dispatcher: { dispatch () {} } }, 'init.fetch',
      /cannot be given with a dispatcher \(give the dispatcher to that fetch instead\)\. Received \[Function: fetch\]$/],
    [{ fetch: () => {}, node: { dispatcher: { dispatch () {} } } }, 'init.fetch', /cannot be given with a dispatcher/]
  ], TypeError, 'ERR_INVALID_ARG_VALUE')
})

t.test('Last-Event-ID cannot be set through headers: EventSource sends it', async (t) => {
  expectAll(t, [
    [{ headers: { 'Last-Event-ID': '5' } }, 'init.headers', /must not set Last-Event-ID: EventSource sends it itself; use the lastEventId option/],
    [{ headers: { 'last-event-id': '' } }, 'init.headers'],
    [{ headers: [['LAST-EVENT-ID', '5']] }, 'init.headers'],
    [{ headers: new Headers({ 'last-event-id': '5' }) }, 'init.headers'],
    [{ headers: new Map([['Last-Event-Id', '5']]) }, 'init.headers']
  ], TypeError, 'ERR_INVALID_ARG_VALUE')
})

t.test('headers the HTTP client manages are refused', async (t) => {
  const cases = ['Connection', 'content-length', 'Expect', 'HTTP2-Settings', 'keep-alive', 'proxy-connection', 'TE',
    'trailer', 'Transfer-Encoding', 'upgrade'].map((name) => [{ headers: { [name]: 'x' } }, 'init.headers', new RegExp(`must not set ${name}: the HTTP client manages it`)])
  expectAll(t, cases, TypeError, 'ERR_INVALID_ARG_VALUE')
})

t.test('header names that are not tokens throw ERR_INVALID_HTTP_TOKEN', async (t) => {
  const names = ['x-a\r\nx-b', 'x-a\n', 'x-a\r', 'x\0a', 'x a', '', 'x:a', 'ünï', '(x)']
  for (const name of names) {
    for (const headers of [{ [name]: 'v' }, [[name, 'v']]]) {
      const err = thrownBy({ headers })
      t.ok(err instanceof TypeError && err.code === 'ERR_INVALID_HTTP_TOKEN', `${JSON.stringify(name)} in ${Array.isArray(headers) ? 'pairs' : 'a record'}`, { found: err })
      t.equal(err?.message, `Header name in init.headers must be a valid HTTP token ["${name}"]`)
    }
  }
})

t.test('credentialHeaders names that are not tokens throw ERR_INVALID_HTTP_TOKEN', async (t) => {
  // Surrounding HTTP whitespace is removed first (see eventsource-redirect-headers): these have
  // something wrong inside, or nothing at all.
  for (const name of ['x token', 'x-a\r\nx-b', 'x\0a', '', ' ', '\t\r\n', 'x:a', '(x)', 'ünï', 'x-a\v']) {
    const err = thrownBy({ credentialHeaders: ['x-ok', name] })
    t.ok(err instanceof TypeError && err.code === 'ERR_INVALID_HTTP_TOKEN', JSON.stringify(name), { found: err })
    t.equal(err?.message, `Header name in init.credentialHeaders must be a valid HTTP token ["${name}"]`)
  }
  for (const name of [' X-Token ', '\tx-token\r\n', 'X-TOKEN']) {
    t.equal(thrownBy({ credentialHeaders: [name] }), null, `${JSON.stringify(name)} is a token once trimmed`)
  }
})

t.test('a header name that is a Symbol throws ERR_INVALID_HTTP_TOKEN', async (t) => {
  const err = thrownBy({ headers: [[Symbol('x'), 'v']] })
  t.ok(err instanceof TypeError, 'a TypeError')
  t.equal(err?.code, 'ERR_INVALID_HTTP_TOKEN', 'with the code of any other name that is not a token')
})

t.test('header values with CR, LF, NUL or characters above U+00FF throw ERR_INVALID_CHAR', async (t) => {
  const values = ['a\r\nX-Injected: 1', 'a\nb', 'a\rb', 'a\0b', '\0', 'caf\u0113', '\u{1f600}']
  for (const value of values) {
    const err = thrownBy({ headers: { 'X-Token': value } })
    t.ok(err instanceof TypeError && err.code === 'ERR_INVALID_CHAR', JSON.stringify(value), { found: err })
    t.match(err?.message, /^Invalid character in header "X-Token" of init\.headers .*: control characters other than tab cannot be sent$/)
  }
})

t.test('header values with other control characters are refused up front too', async (t) => {
  for (const value of ['a\x01b', 'a\x1bb', 'a\x7fb']) {
    const err = thrownBy({ headers: { 'x-a': value } })
    t.equal(err?.code, 'ERR_INVALID_CHAR', JSON.stringify(value))
  }
})

t.test('methods that are not tokens throw ERR_INVALID_HTTP_TOKEN', async (t) => {
  for (const method of ['', 'PO ST', 'POST\r\n', 'GET\0', 'G(ET)']) {
    const err = thrownBy({ method })
    t.ok(err instanceof TypeError && err.code === 'ERR_INVALID_HTTP_TOKEN', JSON.stringify(method), { found: err })
    t.equal(err?.message, `The method in init.method must be a valid HTTP token ["${method}"]`)
  }
})

t.test('lastEventId with CR, LF or NUL throws ERR_INVALID_CHAR', async (t) => {
  for (const lastEventId of ['a\nb', 'a\rb', 'a\r\n', '\0', 'x\0y']) {
    const err = thrownBy({ lastEventId })
    t.ok(err instanceof TypeError && err.code === 'ERR_INVALID_CHAR', JSON.stringify(lastEventId), { found: err })
    t.match(err?.message, /^Invalid character in init\.lastEventId /)
  }
  t.equal(thrownBy({ lastEventId: 'caf\u00e9 \u{1f600}' }), null, 'any other character is fine: it is sent as UTF-8')
})

t.test('an invalid option throws before anything is sent', async (t) => {
  // The constructor throws before it could schedule a request: no dispatcher is ever asked.
  let dispatched = 0
  const dispatcher = { dispatch () { dispatched++ } }
  const err = thrownBy({ dispatcher, reconnect: { factor: 0 }, headers: { 'last-event-id': '1' } })
  t.equal(err?.code, 'ERR_OUT_OF_RANGE')
  await new Promise((resolve) => setImmediate(resolve))
  t.equal(dispatched, 0)
})

t.test('valid values are accepted', async (t) => {
  const valid = [
    {},
    { reconnect: {} },
    { reconnect: { delay: 0, factor: 1, maxDelay: 0, jitter: 'none', maxRetries: 0, retryOnStatus: [] } },
    { reconnect: { delay: 2 ** 31, factor: 1000, maxDelay: Infinity, jitter: 'full', maxRetries: Infinity, retryOnStatus: [100, 199, 201, 404, 599] } },
    { reconnect: { factor: 1.5 } },
    { reconnect: () => {} },
    { headers: {} },
    { headers: [] },
    { headers: new Headers() },
    { headers: new Map([['x-a', 'b']]) },
    { headers: { 'x-num': 42, 'x-edge': ' \t v \r\n', 'x-latin1': 'caf\u00e9', 'x-tab': 'a\tb' } },
    { headers: () => { throw new Error('only called per attempt') } },
    { headers: async () => ({}) },
    { method: 'post', body: 'x' },
    { method: 'PUT', body: Buffer.from('x') },
    { method: 'DELETE', body: new Uint8Array(0) },
    { method: 'OPTIONS', body: new ArrayBuffer(2) },
    { method: 'POST', body: new URLSearchParams('a=1') },
    { method: 'POST', body: () => 42 },
    { method: 'POST', body: null },
    { body: null },
    { body: undefined },
    { method: 'M-SEARCH' },
    { lastEventId: '' },
    { idleTimeout: 0, connectTimeout: 0 },
    { idleTimeout: 2 ** 31, connectTimeout: 1 },
    { signal: new AbortController().signal },
    { signal: AbortSignal.abort() },
    { highWaterMark: 1 },
    { highWaterMarkBytes: 1 },
    { highWaterMarkBytes: 2 ** 40 },
    { credentialHeaders: [] },
    { credentialHeaders: ['X-Api-Key'] },
    { allowInsecureRedirect: 'yes' },
    { keepAliveWhileReconnecting: false },
    { keepAliveWhileReconnecting: 0 },
    { method: 'POST', idempotent: true },
    { idempotent: 'yes' },
    { idempotent: null },
    { maxEventSize: Infinity },
    { maxEventSize: 1 },
    { node: {} },
    { node: () => {} },
    { node: { reconnectionTime: 0, dispatcher: { dispatch () {} } } },
    { dispatcher: { dispatch () {} } },
    { dispatcher: { dispatch () { throw new Error('not used') } }, reconnectionTime: 2 ** 53 - 1 },
    { fetch },
    { fetch: () => { throw new Error('not used') }, dispatcher: undefined },
    { fetch: undefined },
    { node: undefined, dispatcher: undefined, reconnectionTime: undefined, maxEventSize: undefined },
    { withCredentials: 'yes' },
    { unknownMember: 'ignored' },
    null,
    undefined
  ]
  for (const init of valid) {
    const label = inspect(init, { breakLength: Infinity })
    let es
    try {
      es = new EventSource(URL_, init)
    } catch (err) {
      t.fail(`${label}: threw ${err}`)
      continue
    }
    es.close()
    t.equal(es.readyState, EventSource.CLOSED, `${label}: constructed`)
  }
})

t.test('the init dictionary itself must be an object', async (t) => {
  for (const init of [1, 'x', true, Symbol('s')]) {
    t.throws(() => new EventSource(URL_, init), { name: 'TypeError', message: "Failed to construct 'EventSource': The provided value is not of type 'EventSourceInit'." })
  }
})
