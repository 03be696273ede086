// One connection of init.http2 (./http2-sessions.js): the TCP connection, with TLS and ALPN on https:,
// and the node:http2 session over it, with undici's settings (keep-alive, connect timeout and its error,
// windows, no server push), so that a server sees what it saw from undici's h2 client; but ALPN offers h2
// first, as browsers do.

// (process.getBuiltinModule: lib/platform/bytes-node.js says why.)
const { createRequire } = process.getBuiltinModule('node:module')

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
 * Opens the connection to `url`'s origin; `timer` destroys it if it has not connected within the connect
 * timeout, and the caller clears it once it connects or goes.
 * @param {object | undefined} connectOptions init.http2.connect: TLS options, and undici's `timeout` and
 *   `socketPath` (a Unix socket in place of the URL's host and port, which still name the server)
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

// The HTTP/2 session over a connection that is up (and, over TLS, chose h2).
function startSession (origin, socket) {
  return builtin('node:http2').connect(origin, {
    createConnection: () => socket,
    settings: { enablePush: false, initialWindowSize: INITIAL_WINDOW_SIZE }
  })
}

// A session's settings once it is connected.
function sessionConnected (h2) {
  h2.setLocalWindowSize(CONNECTION_WINDOW_SIZE)
}

export { connectSocket, startSession, sessionConnected, loadUndici }
