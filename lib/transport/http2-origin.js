// The HTTP/2 sessions of init.http2 to one origin (./http2-sessions.js), and the requests waiting for one of
// them: which session takes a request, PINGs, GOAWAY, failures, the fallback to HTTP/1.1 (docs/http2.md#sessions).

import { codes } from '../errors/node-transports.js'
import { connectSocket, startSession, sessionConnected } from './http2-connection.js'
import { StreamRequest, startStream, NO_CONTEXT } from './http2-request.js'
const { ERR_EVENTSOURCE_HTTP2_PING_TIMEOUT } = codes

// Streams on one session at most, whatever the server allows (Node's own servers allow 2^32 - 1):
// past this a new session opens, so one connection does not carry every source of a process.
const MAX_STREAMS_PER_SESSION = 256

const resolvedPromise = Promise.resolve()

// Whether a request may go to `session` now: the server allows another stream on it, and its node:http2
// session is neither closing nor gone (one whose connection was lost is destroyed before its 'close'
// retires it, while its streams report the loss, each leaving room; a request on it would throw).
function hasRoom (session) {
  return session.active < session.limit && !session.h2.destroyed && !session.h2.closed
}

// One connection: a node:http2 session once the TLS handshake (or, in cleartext, the TCP connection) chose h2.
class Session {
  // Its OriginSessions.
  origin
  socket = null
  h2 = null
  // Requests given to this session and not finished; those still waiting for it to be up.
  active = 0
  pending = []
  // How many requests may run at once: 0 until the server's SETTINGS are known.
  limit = 0
  // The server's SETTINGS came: it speaks HTTP/2 (node:http2's 'connect' says only that the socket is up).
  connected = false
  retired = false
  connectTimer = null
  pingTimer = null
  pingDeadline = null

  constructor (origin) {
    this.origin = origin
  }
}

class OriginSessions {
  #agent
  #origin
  #options
  #url
  #sessions = []
  // Requests waiting for a session, in order, from #head on (a burst is taken without shifting the array).
  #queue = []
  #head = 0
  // The last limit a session to this origin announced: what a new one is expected to take. Before any has, as
  // many as a session may carry: the requests wait for the first SETTINGS rather than each opening a session.
  #expected = MAX_STREAMS_PER_SESSION
  // The server chose HTTP/1.1 in a TLS handshake: requests go to the agent's HTTP/1.1 dispatcher.
  #http1 = false

  constructor (agent, origin, options) {
    this.#agent = agent
    this.#origin = origin
    this.#options = options
    this.#url = new URL(origin)
  }

  dispatch (opts, handler) {
    if (this.#http1) return this.#agent.http1().dispatch(opts, handler)
    const request = new StreamRequest(handler, opts)
    handler.onRequestStart(request, NO_CONTEXT)
    if (request.done) return true
    request.waitingIn = this
    this.#queue.push(request)
    this.#pump()
    return true
  }

  get #waiting () {
    return this.#queue.length - this.#head
  }

  // Whether a request that is not over waits for a session (those aborted while they waited go first).
  #anyWaiting () {
    while (this.#waiting !== 0 && this.#queue[this.#head].done) this.#take()
    for (let i = this.#head; i < this.#queue.length; i++) if (!this.#queue[i].done) return true
    return false
  }

  #take () {
    const queue = this.#queue
    const request = queue[this.#head]
    queue[this.#head++] = undefined
    if (this.#head === queue.length) {
      queue.length = 0
      this.#head = 0
    }
    return request
  }

  // Hands the waiting requests to sessions with room, opening sessions for those no session is expected to take.
  #pump () {
    while (this.#waiting !== 0) {
      if (this.#queue[this.#head].done) {
        this.#take()
        continue
      }
      let session = this.#sessions.find(hasRoom)
      if (session === undefined) {
        // Room that sessions still connecting are expected to have: their first request is running.
        let expected = 0
        for (const s of this.#sessions) if (s.limit === 0) expected += this.#expected - 1
        if (this.#waiting <= expected) return
        session = this.#open()
      }
      const request = this.#take()
      session.active++
      request.session = session
      request.waitingIn = null
      if (session.h2 === null) session.pending.push(request)
      else startStream(session.h2, request, this.#url)
    }
  }

  #open () {
    const session = new Session(this)
    this.#sessions.push(session)
    const { socket, secure, timer } = connectSocket(this.#url, this.#options.connect)
    session.socket = socket
    session.connectTimer = timer
    const onConnectError = (err) => this.#connectionFailed(session, err)
    socket.once('error', onConnectError)
    socket.once(secure ? 'secureConnect' : 'connect', () => {
      clearTimeout(session.connectTimer)
      session.connectTimer = null
      socket.off('error', onConnectError)
      if (session.retired) {
        socket.destroy()
        return
      }
      // The server chose HTTP/1.1 (or nothing): so be it, for this origin.
      if (secure && socket.alpnProtocol !== 'h2') this.#fallBack(session)
      else this.#startSession(session)
    })
    return session
  }

  #startSession (session) {
    const socket = session.socket
    const h2 = session.h2 = startSession(this.#origin, socket)
    // After the server's SETTINGS, a session's errors reach its streams too, which report them; before, the
    // connection failed (no HTTP/2, or it broke), for the requests waiting for it too. ('error' precedes 'close'.)
    h2.on('error', (err) => {
      if (session.connected) this.#retire(session)
      else this.#connectionFailed(session, err)
    })
    h2.on('goaway', () => this.#retire(session))
    h2.on('close', () => {
      if (session.connected) this.#retire(session)
      else this.#connectionFailed(session, new Error('HTTP/2: the connection closed before the server\'s SETTINGS'))
    })
    h2.once('connect', () => this.#connected(session))
    h2.on('remoteSettings', (settings) => {
      session.connected = true
      // A server may lower its limit later; streams already open stay open. node:http2 fills in the
      // default (2^32 - 1) when the server sends no limit.
      this.#setLimit(session, Math.min(settings.maxConcurrentStreams, MAX_STREAMS_PER_SESSION))
    })
    // The requests that waited for the session: node:http2 sends them once it is connected.
    const pending = session.pending
    session.pending = []
    for (const request of pending) if (!request.done) startStream(session.h2, request, this.#url)
  }

  #connected (session) {
    sessionConnected(session.h2)
    const { pingInterval, pingTimeout } = this.#options
    if (pingInterval !== 0 && !session.retired) {
      session.pingTimer = setInterval(() => this.#ping(session, pingTimeout), pingInterval)
      session.pingTimer.unref()
    }
  }

  #setLimit (session, limit) {
    session.limit = limit
    if (limit !== 0) {
      this.#expected = limit
      this.#pump()
      return
    }
    // A server that allows no stream at all (SETTINGS_MAX_CONCURRENT_STREAMS 0; it refuses the one sent before
    // its SETTINGS came): the requests waiting for room would wait for ever, or open session after session.
    // They fail, as network errors: each source tries again after its reconnection time.
    const error = new Error('HTTP/2: the server allows no streams (SETTINGS_MAX_CONCURRENT_STREAMS 0)')
    this.#retire(session, false)
    for (const request of this.#takeWaiting()) request.fail(error)
    this.#idle()
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

  // The session is going away (GOAWAY, socket closed, ping timeout): no new request goes to it, and it
  // is closed once the requests still on it are over.
  #retire (session, pump = true) {
    if (session.retired) return
    this.#remove(session)
    if (session.active === 0) this.#close(session)
    // Requests that waited for this session go to another one.
    if (pump) this.#pump()
    this.#idle()
  }

  // A session that could not connect: the requests waiting for it would meet the same error, so they get
  // it now rather than one connection attempt after another. (Once retired, a session's error is its own.)
  #connectionFailed (session, err) {
    if (session.retired) return
    this.#retire(session, false)
    session.socket?.destroy()
    const failed = session.pending
    session.pending = []
    // Taken before any request fails: each that fails leaves room, which would hand those still waiting
    // to a new connection.
    const waiting = this.#takeWaiting()
    for (const request of failed) request.fail(err)
    for (const request of waiting) request.fail(err)
    this.#idle()
  }

  #takeWaiting () {
    const waiting = this.#queue.slice(this.#head)
    this.#queue = []
    this.#head = 0
    return waiting
  }

  // The server chose HTTP/1.1: this session's requests, those waiting and those to come go to an undici Agent
  // with the same connect options (a connection per source, as without http2), the first to the connection made.
  #fallBack (session) {
    this.#http1 = true
    const moved = session.pending
    session.pending = []
    session.active -= moved.length
    const socket = session.socket
    session.socket = null
    this.#retire(session, false)
    const requests = [...moved, ...this.#takeWaiting()].filter((request) => !request.done)
    // A connection nobody will take (every request went meanwhile) would keep the process alive.
    if (requests.length === 0) socket.destroy()
    else this.#agent.keepSpare(this.#origin, socket)
    const dispatcher = this.#agent.http1()
    for (const request of requests) {
      const { opts, handler } = request
      request.forget()
      dispatcher.dispatch(opts, handler)
    }
    this.#idle()
  }

  // A request on `session` is over. A session with no request left is closed, unless requests wait
  // for room: an EventSource waiting to reconnect holds no session open.
  release (session) {
    session.active--
    if (session.active === 0) {
      if (!session.retired && !this.#anyWaiting()) this.#remove(session)
      // After node:http2 has finished with the stream that called this.
      if (session.retired) resolvedPromise.then(() => this.#close(session))
    }
    this.#pump()
    this.#idle()
  }

  // A request that waited for a session is over (its source closed). A session that only the requests
  // waiting kept open (one being made, with none on it) goes, if none is left.
  waitingGone () {
    if (this.#anyWaiting()) return
    for (const session of this.#sessions.filter((s) => s.active === 0)) {
      this.#remove(session)
      this.#close(session)
    }
    this.#idle()
  }

  #remove (session) {
    session.retired = true
    clearInterval(session.pingTimer)
    clearTimeout(session.pingDeadline)
    session.pingTimer = session.pingDeadline = null
    // A connection still being made: its timer goes with it (it would keep the process alive).
    clearTimeout(session.connectTimer)
    session.connectTimer = null
    this.#sessions.splice(this.#sessions.indexOf(session), 1)
  }

  #close (session) {
    if (session.h2 !== null) session.h2.close()
    else session.socket?.destroy()
  }

  // No session and nothing waiting: the agent forgets this origin (unless it speaks HTTP/1.1 only,
  // which is remembered).
  #idle () {
    if (this.#sessions.length === 0 && this.#waiting === 0 && !this.#http1) this.#agent.forget(this.#origin, this)
  }
}

export { OriginSessions }
