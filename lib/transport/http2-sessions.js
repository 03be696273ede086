'use strict'

// Extension (init.http2): the EventSources of a process share HTTP/2 sessions per origin, as a browser
// multiplexes every EventSource to an origin over one connection: one TLS handshake, no limit of six
// connections per host, a stream per source. The sessions are undici Clients with allowH2; this file
// decides which session a request goes to, opens more when the server's limit is reached, and closes
// a session as soon as no request is open on it.
//
// What undici does by itself, and why it is not enough (undici 7.30, lib/dispatcher/client-h2.js and
// client.js; undici 8.12 where it differs):
// - SETTINGS_MAX_CONCURRENT_STREAMS: undici 7 stores the server's value (client-h2.js:249-251,
//   onHttp2RemoteSettings) and never reads it again: a Client writes as many streams as `pipelining`
//   allows (client.js:622). Streams past the server's limit sent before its SETTINGS arrive are
//   refused (RST_STREAM REFUSED_STREAM, a network error); those sent after are queued inside
//   nghttp2 and never start: a silent hang. A Pool opens one session per request while the first
//   connects (its clients are busy while a request is pending, client.js:327-332), and a Client's
//   default pipelining of 1 (client.js:251) lets one stream run and holds every other. undici 8
//   enforces min(server's value, maxConcurrentStreams option, default 100) in busy() (client-h2.js:386,
//   629-634). So sessions are counted here: one request on a new session until its SETTINGS arrive,
//   then up to the server's limit, capped at MAX_STREAMS_PER_SESSION; past that, another session.
// - GOAWAY: undici 7 fails every request of the session (client-h2.js:352-385: the head of the
//   queue, then the others through the socket it destroys); undici 8 lets streams the server
//   accepted run on (client-h2.js:709-). Either way the Client emits 'disconnect', and the session
//   takes no new request from here.
// - RST_STREAM: only its own request ends (the stream's 'close', client-h2.js:786-800); a reset
//   after the response head is reported by undici 7 and 8 as the end of the body, not as an error.
//   Either reestablishes the connection of that source alone.
// - Flow control: pausing a response pauses its Http2Stream only (client-h2.js:752-764): the server
//   stops at the stream's window (undici's initialWindowSize, 256 KiB), while node:http2 gives the
//   connection window back as data arrives, so the other streams go on.
// - PING: undici sends one every pingInterval (60 s) and acts only on an error (client-h2.js:270-293);
//   node:http2 puts no time limit on the answer, so a peer that went silent is never noticed. Pings
//   are sent here instead, with a timeout that destroys the session.
// - Cleartext: `useH2c` makes a Client speak h2 with prior knowledge on http: (undici 7's
//   lib/core/connect.js:121). Over TLS undici offers ALPN ['http/1.1', 'h2'] (connect.js:98); most
//   servers choose by their own preference, which is h2.

const { codes: { ERR_EVENTSOURCE_HTTP2_PING_TIMEOUT } } = require('../errors-connection')

// Streams on one session at most, whatever the server allows (Node's own servers allow 2^32 - 1):
// past this a new session opens, so one connection does not carry every source of a process.
const MAX_STREAMS_PER_SESSION = 256

let undici = null
let kHTTP2Session = null
function loadUndici () {
  if (undici !== null) return
  undici = require('undici')
  // The Client's session is where the server's SETTINGS and PING answers arrive; undici keeps it under
  // this symbol (lib/core/symbols.js, the same in undici 7 and 8) and offers no other way to it. Were
  // it to move, this require fails loudly rather than every session being taken for HTTP/1.1.
  kHTTP2Session = require('undici/lib/core/symbols.js').kHTTP2Session
}

const resolvedPromise = Promise.resolve()
function noop () {}

// One undici Client: one connection, HTTP/2 or (when the server does not offer h2) HTTP/1.1.
class Session {
  client
  // Requests handed to the client and not finished.
  active = 0
  // How many requests may run at once: 0 until the protocol and the server's SETTINGS are known.
  limit = 0
  h2 = null
  connected = false
  retired = false
  pingTimer = null
  pingDeadline = null

  constructor (client) {
    this.client = client
  }
}

// Forwards a request's handler calls, and tells the sessions when the request is over. Speaks undici's
// controller API (onRequestStart ... onResponseError), which undici 7 and 8 both call.
class StreamHandler {
  #handler
  #session
  #origin

  constructor (handler, session, origin) {
    this.#handler = handler
    this.#session = session
    this.#origin = origin
  }

  onRequestStart (controller, context) { this.#handler.onRequestStart(controller, context) }
  onResponseStart (controller, status, headers, statusText) { this.#handler.onResponseStart(controller, status, headers, statusText) }
  onResponseData (controller, chunk) { this.#handler.onResponseData(controller, chunk) }

  onResponseEnd (controller, trailers) {
    this.#release()
    this.#handler.onResponseEnd(controller, trailers)
  }

  onResponseError (controller, err) {
    this.#release()
    this.#handler.onResponseError(controller, err)
  }

  // undici calls one of onResponseEnd and onResponseError, once.
  #release () {
    this.#origin.release(this.#session)
  }
}

// The sessions to one origin, and the requests waiting for one of them to take them.
class OriginSessions {
  #agent
  #origin
  #options
  #sessions = []
  // Requests waiting for a session: opts, handler, opts, handler... in order, from #head on (a burst of
  // thousands is taken from the front without shifting the array each time).
  #queue = []
  #head = 0
  // The last limit a session to this origin announced: what a new one is expected to take. Before any
  // has, as many as a session may carry: the requests wait for the first session's SETTINGS rather
  // than each opening a session of its own.
  #expected = MAX_STREAMS_PER_SESSION

  constructor (agent, origin, options) {
    this.#agent = agent
    this.#origin = origin
    this.#options = options
  }

  dispatch (opts, handler) {
    this.#queue.push(opts, handler)
    this.#pump()
  }

  get #waiting () {
    return (this.#queue.length - this.#head) / 2
  }

  // Hands the waiting requests to sessions with room, opening sessions for those that no session,
  // open or still connecting, is expected to take.
  #pump () {
    while (this.#waiting !== 0) {
      let session = this.#sessions.find((s) => s.active < s.limit)
      if (session === undefined) {
        // Room that sessions still connecting are expected to have: their first request is running.
        let expected = 0
        for (const s of this.#sessions) if (s.limit === 0) expected += this.#expected - 1
        if (this.#waiting <= expected) return
        session = this.#open()
      }
      const queue = this.#queue
      const opts = queue[this.#head]
      const handler = queue[this.#head + 1]
      queue[this.#head] = queue[this.#head + 1] = undefined
      this.#head += 2
      if (this.#head === queue.length) {
        queue.length = 0
        this.#head = 0
      }
      session.active++
      session.client.dispatch(opts, new StreamHandler(handler, session, this))
    }
  }

  #open () {
    const options = this.#options
    const client = new undici.Client(this.#origin, {
      allowH2: true,
      useH2c: this.#origin.startsWith('http:'),
      // Limits are kept here; undici's would only hold requests back (undici 8 caps at 100 by default).
      pipelining: MAX_STREAMS_PER_SESSION,
      maxConcurrentStreams: MAX_STREAMS_PER_SESSION,
      // Pings are sent here, with a timeout (see the top of the file).
      pingInterval: 0,
      connect: options.connect
    })
    const session = new Session(client)
    client.on('connect', () => this.#connected(session))
    client.on('disconnect', () => this.#retire(session))
    // undici 7 emits this after a GOAWAY too, on a session that did connect.
    client.on('connectionError', (origin, targets, err) => {
      if (session.connected) this.#retire(session)
      else this.#connectionFailed(session, err)
    })
    this.#sessions.push(session)
    return session
  }

  #connected (session) {
    session.connected = true
    const h2 = session.client[kHTTP2Session]
    if (h2 == null) {
      // HTTP/1.1 (the server did not choose h2): one request at a time on a connection.
      this.#setLimit(session, 1)
      return
    }
    session.h2 = h2
    h2.on('remoteSettings', (settings) => {
      // A server may lower its limit later; streams already open stay open.
      // node:http2 fills in the default (2^32 - 1) when the server sends no limit.
      this.#setLimit(session, Math.min(settings.maxConcurrentStreams, MAX_STREAMS_PER_SESSION))
    })
    const { pingInterval, pingTimeout } = this.#options
    if (pingInterval !== 0) {
      session.pingTimer = setInterval(() => this.#ping(session, pingTimeout), pingInterval)
      session.pingTimer.unref()
    }
  }

  #setLimit (session, limit) {
    session.limit = limit
    if (limit !== 0) this.#expected = limit
    this.#pump()
  }

  // A PING that gets no answer in time means the peer or the path is gone: the session is destroyed,
  // which fails every request on it, and each source reconnects.
  #ping (session, timeout) {
    const h2 = session.h2
    if (session.active === 0 || session.pingDeadline !== null || h2.destroyed) return
    const deadline = setTimeout(() => {
      h2.destroy(new ERR_EVENTSOURCE_HTTP2_PING_TIMEOUT(this.#origin, timeout))
    }, timeout)
    deadline.unref()
    session.pingDeadline = deadline
    h2.ping(() => {
      clearTimeout(deadline)
      session.pingDeadline = null
    })
  }

  // The session is going away (GOAWAY, socket closed, ping timeout): no new request goes to it, and its
  // client is closed once the requests still on it are over.
  #retire (session) {
    if (session.retired) return
    this.#remove(session)
    if (session.active === 0) this.#close(session)
    // Requests that waited for this session go to another one.
    this.#pump()
    this.#idle()
  }

  // A session that could not connect: the requests waiting for it would meet the same error, so they
  // get it now rather than one connection attempt after another.
  #connectionFailed (session, err) {
    this.#retire(session)
    const queue = this.#queue
    const head = this.#head
    this.#queue = []
    this.#head = 0
    for (let i = head + 1; i < queue.length; i += 2) queue[i].onResponseError(null, err)
    this.#idle()
  }

  // A request on `session` is over. A session with no request left is closed, unless requests wait
  // for room: an EventSource waiting to reconnect holds no session open.
  release (session) {
    session.active--
    if (session.active === 0) {
      if (!session.retired && this.#waiting === 0) this.#remove(session)
      // After undici has finished with the request that called this.
      if (session.retired) resolvedPromise.then(() => this.#close(session))
    }
    this.#pump()
    this.#idle()
  }

  #remove (session) {
    session.retired = true
    // (Either may be null, which clears nothing.)
    clearInterval(session.pingTimer)
    clearTimeout(session.pingDeadline)
    session.pingTimer = session.pingDeadline = null
    this.#sessions.splice(this.#sessions.indexOf(session), 1)
  }

  #close (session) {
    session.client.close(noop)
  }

  // No session and nothing waiting: the agent forgets this origin.
  #idle () {
    if (this.#sessions.length === 0 && this.#waiting === 0) this.#agent.forget(this.#origin, this)
  }
}

// The dispatcher EventSources with the same init.http2 share: sessions per origin.
class Http2Agent {
  #options
  #origins = new Map()

  constructor (options) {
    this.#options = options
  }

  /**
   * undici's Dispatcher#dispatch, for the requests of lib/connection.js.
   * @param {{ origin: string }} opts
   * @param {object} handler a handler with undici's controller API
   */
  dispatch (opts, handler) {
    const origin = opts.origin
    // http: without prior knowledge is HTTP/1.1, as in browsers: the global dispatcher's.
    if (origin.startsWith('http:') && !this.#options.priorKnowledge) {
      return undici.getGlobalDispatcher().dispatch(opts, handler)
    }
    let sessions = this.#origins.get(origin)
    if (sessions === undefined) {
      sessions = new OriginSessions(this, origin, this.#options)
      this.#origins.set(origin, sessions)
    }
    sessions.dispatch(opts, handler)
    return true
  }

  forget (origin, sessions) {
    if (this.#origins.get(origin) === sessions) this.#origins.delete(origin)
  }
}

// The agent of `http2: true`, and those of option objects, one per object: EventSources given the
// same object share sessions.
let defaultAgent = null
const agents = new WeakMap()

/**
 * The shared HTTP/2 dispatcher for an EventSource's resolved init.http2 (lib/eventsource/init.js).
 * @param {{ key: object | true, connect: object | undefined, priorKnowledge: boolean, pingInterval: number, pingTimeout: number }} options
 */
function http2Dispatcher (options) {
  loadUndici()
  if (options.key === true) return (defaultAgent ??= new Http2Agent(options))
  let agent = agents.get(options.key)
  if (agent === undefined) {
    agent = new Http2Agent(options)
    agents.set(options.key, agent)
  }
  return agent
}

module.exports = { http2Dispatcher }
