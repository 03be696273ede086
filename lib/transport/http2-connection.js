// One connection of init.http2 (lib/transport/http2-sessions.js): the TCP connection, with TLS and ALPN
// on https:, and the node:http2 session over it, with undici's settings, so that a server sees what it
// saw from undici's h2 client: TCP keep-alive after 60 s, a connect timeout of 10 s (or connect.timeout,
// with undici's ConnectTimeoutError), the windows (256 KiB per stream, 512 KiB per connection), no server
// push. One change: ALPN offers h2 first, as browsers do (undici 7 offered http/1.1 first, so a server
// that follows the client's order chose HTTP/1.1).

import { createRequire } from 'node:module'

// node:http2 and node:tls are taken when the first session connects: a process that never opens one
// never loads them, and loading them is a large part of a fresh process's start (benchmarks/startup).
const builtin = (name) => process.getBuiltinModule(name)

const CONNECT_TIMEOUT = 10_000
const KEEP_ALIVE_INITIAL_DELAY = 60_000
const INITIAL_WINDOW_SIZE = 256 * 1024
const CONNECTION_WINDOW_SIZE = 512 * 1024

// undici, for its ConnectTimeoutError (and the HTTP/1.1 fallback): loaded only when needed.
let undici = null
function loadUndici () {
  undici ??= createRequire(import.meta.url)('undici')
  return undici
}

/**
 * Opens the connection to `url`'s origin. `onTimeout` is called, once, when it has not connected
 * within the connect timeout, with the error it is then destroyed with; the caller clears `timer` once
 * it connects or goes.
 * @param {object | undefined} connectOptions init.http2.connect: TLS options, and undici's `timeout` and
 *   `socketPath` (a Unix socket in place of the URL's host and port, which still name the server: TLS server
 *   name, :authority)
 * @returns {{ socket: import('node:net').Socket, secure: boolean, timer: NodeJS.Timeout | null }}
 */
function connectSocket (url, connectOptions) {
  const secure = url.protocol === 'https:'
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname
  const port = Number(url.port) || (secure ? 443 : 80)
  const { timeout = CONNECT_TIMEOUT, socketPath, ...connect } = connectOptions ?? {}
  const where = socketPath === undefined ? { host, port } : { path: socketPath }
  const socket = secure
    ? builtin('node:tls').connect({
      ...connect,
      ...where,
      // An IP address is not a server name (RFC 6066).
      servername: connect.servername ?? (builtin('node:net').isIP(host) === 0 ? host : undefined),
      ALPNProtocols: ['h2', 'http/1.1']
    })
    : builtin('node:net').connect({ ...connect, ...where })
  socket.setKeepAlive(true, KEEP_ALIVE_INITIAL_DELAY)
  const timer = timeout === 0
    ? null
    : setTimeout(() => socket.destroy(new (loadUndici().errors.ConnectTimeoutError)(
      `Connect Timeout Error (attempted address: ${socketPath ?? `${host}:${port}`}, timeout: ${timeout}ms)`)), timeout)
  return { socket, secure, timer }
}

/**
 * The HTTP/2 session over a connection that is up (and, over TLS, chose h2).
 * @param {import('node:net').Socket} socket
 */
function startSession (origin, socket) {
  return builtin('node:http2').connect(origin, {
    createConnection: () => socket,
    settings: { enablePush: false, initialWindowSize: INITIAL_WINDOW_SIZE }
  })
}

/**
 * A session's settings once it is connected.
 * @param {import('node:http2').ClientHttp2Session} h2
 */
function sessionConnected (h2) {
  h2.setLocalWindowSize(CONNECTION_WINDOW_SIZE)
}

export { connectSocket, startSession, sessionConnected, loadUndici }
