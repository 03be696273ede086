// Extension (init.http2): the EventSources of a process share HTTP/2 sessions per origin, as a browser
// multiplexes every EventSource to an origin over one connection. The sessions are node:http2's, driven
// in four files: this one, the dispatcher that sources given the same init.http2 share (one per origin,
// and an undici Agent for the origins that chose HTTP/1.1); ./http2-origin.js, the sessions to one origin;
// ./http2-connection.js, one connection; ./http2-request.js, one request on its stream, turned into the
// calls of undici's handler API, so that lib/transport/dispatcher-transport.js sends a request here as on
// any dispatcher. Why not undici's HTTP/2 client, and what is kept of it so that a server sees the same:
// docs/http2.md#why-sessions-are-managed-here.

import { globalDispatcher } from './dispatchers.js'
import { OriginSessions } from './http2-origin.js'
import { loadUndici } from './http2-connection.js'
import { takesNewerHandlerApi } from './dispatcher-transport.js'

function noop () {}

// The dispatcher EventSources with the same init.http2 share: sessions per origin.
class Http2Agent {
  #options
  #origins = new Map()
  #http1 = null
  // Per origin, a connection whose server chose HTTP/1.1, for the HTTP/1.1 dispatcher's next connection.
  #spares = new Map()

  constructor (options) {
    this.#options = options
    // It calls undici's newer handler API itself on its HTTP/2 origins, and hands the others' requests to
    // undici dispatchers, which take that API too, however they speak inside.
    takesNewerHandlerApi(this)
  }

  // undici's Dispatcher#dispatch, for the requests of lib/transport/dispatcher-transport.js (opts: origin,
  // path, method, headers, body; a handler of undici's controller API).
  dispatch (opts, handler) {
    const origin = opts.origin
    // http: without prior knowledge is HTTP/1.1, as in browsers: the global dispatcher's.
    if (origin.startsWith('http:') && !this.#options.priorKnowledge) {
      return globalDispatcher().dispatch(opts, handler)
    }
    let sessions = this.#origins.get(origin)
    if (sessions === undefined) {
      sessions = new OriginSessions(this, origin, this.#options)
      this.#origins.set(origin, sessions)
    }
    return sessions.dispatch(opts, handler)
  }

  /** The dispatcher of the origins whose servers chose HTTP/1.1. */
  http1 () {
    if (this.#http1 === null) {
      const { Agent, buildConnector } = loadUndici()
      const connector = buildConnector({ ...this.#options.connect })
      this.#http1 = new Agent({
        connect: (options, callback) => {
          const origin = `${options.protocol}//${options.host}`
          const socket = this.#spares.get(origin)
          this.#spares.delete(origin)
          // (Called back later, as a connection is: undici does not expect it within this call.)
          if (socket !== undefined && !socket.destroyed) process.nextTick(callback, null, socket)
          else connector(options, callback)
        }
      })
    }
    return this.#http1
  }

  keepSpare (origin, socket) {
    // Until the dispatcher takes it (its errors are then the dispatcher's).
    socket.on('error', noop)
    this.#spares.get(origin)?.destroy()
    this.#spares.set(origin, socket)
  }

  forget (origin, sessions) {
    if (this.#origins.get(origin) === sessions) this.#origins.delete(origin)
  }
}

// The agent of `http2: true`, and those of option objects, one per object: EventSources given the
// same object share sessions.
let defaultAgent = null
const agents = new WeakMap()

// The shared HTTP/2 dispatcher for an EventSource's init.http2, as lib/eventsource/init-extensions.js
// resolves it (resolveHttp2).
function http2Dispatcher (options) {
  if (options.key === true) return (defaultAgent ??= new Http2Agent(options))
  let agent = agents.get(options.key)
  if (agent === undefined) {
    agent = new Http2Agent(options)
    agents.set(options.key, agent)
  }
  return agent
}

export { http2Dispatcher }
