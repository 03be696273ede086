'use strict'

// The CLI's run: parse the command line, connect, print, and end with the documented exit status.
//   0  a normal end: --count reached, --timeout, Ctrl-C (SIGINT) or SIGTERM, stdout closed by a
//      reader such as `head`, or (--once, --raw) the server ending a 200 event stream
//   1  the connection failed: a status other than 200, another Content-Type, retries exhausted, ...
//   2  a usage error: unknown option, bad value, missing URL, bad header syntax
// The process is never ended with process.exit() on the normal paths: everything is closed and the
// event loop drains, so whatever was written to stdout is flushed first.

const { once } = require('node:events')
const { parseCommandLine, helpText, UsageError } = require('./options')
const { colorEnabled, painter, escapeLines, MESSAGE_INDENT, formatEvent, formatJson, createReporter } = require('./output')
const { createDispatcher, proxyEnvironment, http2Options } = require('./dispatcher')
const { startVerbose } = require('./verbose')
const { displayHref } = require('../../lib/transport/url')
const { IDEMPOTENT_METHOD } = require('../../lib/eventsource/reconnect-policy')

// The failures that reconnect a request that may be sent again, and fail one that may not.
const RECONNECTING = new Set([
  'ERR_EVENTSOURCE_NETWORK', 'ERR_EVENTSOURCE_IDLE_TIMEOUT', 'ERR_EVENTSOURCE_CONNECT_TIMEOUT',
  'ERR_EVENTSOURCE_STREAM_ENDED'
])

// After a stop, how long the process may take to wind down before it is made to exit.
const EXIT_GRACE = 2000

/** Ends the run once, with an exit status, and releases what was registered with onStop(). */
class Session {
  done = false
  #cleanups = []
  #resolve
  /** Resolves with the exit status once stop() has been called. */
  stopped = new Promise((resolve) => { this.#resolve = resolve })

  onStop (cleanup) {
    this.#cleanups.push(cleanup)
  }

  stop (code) {
    if (this.done) return
    this.done = true
    process.exitCode = code
    for (const cleanup of this.#cleanups) {
      try {
        cleanup()
      } catch {}
    }
    // A safety net only: an unref'd timer does not keep the process alive, it fires only if
    // something else does.
    setTimeout(() => process.exit(), EXIT_GRACE).unref()
    this.#resolve(code)
  }
}

/**
 * Writes to stdout; resolves at once, or when stdout has drained (or the run stopped), so that a slow
 * reader slows the stream down instead of filling memory.
 */
function writer (stdout, session) {
  return (chunk) => {
    if (stdout.write(chunk) || session.done) return null
    return Promise.race([once(stdout, 'drain'), session.stopped])
  }
}

function describeError (event) {
  return event.code === undefined ? event.message : `${event.message} (${event.code})`
}

// Why a failure that a GET would have reconnected ended the run: the request may not be sent again (the
// library's rule, RFC 9110 9.2.2), and what says it may. Nothing to say with --once, which asked for one.
function notSentAgain (config, event) {
  if (config.once || config.idempotent || IDEMPOTENT_METHOD.test(config.method)) return ''
  const retried = RECONNECTING.has(event.code) ||
    (event.code === 'ERR_EVENTSOURCE_BAD_STATUS' && config.reconnect.retryOnStatus?.includes(event.status) === true)
  return retried ? `; a ${config.method} is not sent again without --idempotent` : ''
}

function eventSourceInit (config, network) {
  const init = {
    method: config.method,
    headers: config.headers,
    reconnect: config.reconnect
  }
  if (config.credentialHeaders.length > 0) init.credentialHeaders = config.credentialHeaders
  if (config.allowInsecureRedirect) init.allowInsecureRedirect = true
  if (config.body !== null) init.body = config.body
  if (config.lastEventId !== undefined) init.lastEventId = config.lastEventId
  if (config.idleTimeout !== undefined) init.idleTimeout = config.idleTimeout
  if (config.connectTimeout !== undefined) init.connectTimeout = config.connectTimeout
  if (config.maxEventSize !== undefined) init.maxEventSize = config.maxEventSize
  if (network !== null) init.dispatcher = network.dispatcher
  if (config.http2) init.http2 = http2Options(config)
  // --once: the end of the stream is the end of the run (an LLM-style response).
  if (config.once) init.closeOnEnd = true
  // --idempotent: a POST (or any method) may be sent again, and reconnects as a GET does.
  if (config.idempotent) init.idempotent = true
  return init
}

function connectingLine (config, network) {
  // Never the password of a URL with credentials: the terminal and logs are not the request.
  let line = `connecting to ${displayHref(new URL(config.url))}`
  if (config.method !== 'GET') line += ` (${config.method})`
  if (network?.via) line += ` via ${network.via}`
  return line
}

async function streamEvents (config, network, { stdout, stderr, env }, reporter, session) {
  const { EventSource } = require('../..')
  let source
  try {
    source = new EventSource(config.url, eventSourceInit(config, network))
  } catch (err) {
    // The library refused a value the command line let through (a header it manages, a method fetch
    // forbids, ...): a usage error too.
    throw new UsageError(err.message)
  }
  session.onStop(() => source.close())
  // -v: from the diagnostics channels. The first attempt starts after the constructor has returned;
  // stopped after source.close(), so that the close and its totals are printed.
  if (config.verbose) {
    const verbose = startVerbose(stderr, { env })
    session.onStop(() => verbose.stop())
  }
  reporter.status(connectingLine(config, network))
  source.addEventListener('open', () => reporter.status('open', 'green'))
  source.addEventListener('end', () => {
    reporter.status('the server ended the stream')
    session.stop(0)
  })
  source.addEventListener('error', (event) => {
    // With --once anything that ends the stream but its end (closeOnEnd) is a failure.
    if (event.willReconnect && !config.once) {
      // -v has said so, with the attempt numbers.
      if (!config.verbose) reporter.status(`reconnecting in ${event.reconnectDelay} ms: ${describeError(event)}`, 'yellow')
      return
    }
    reporter.failure(`failed: ${describeError(event)}${notSentAgain(config, event)}`)
    session.stop(1)
  })

  const paint = painter(colorEnabled(stdout, env))
  const format = config.json ? formatJson : (event) => formatEvent(event, paint)
  const write = writer(stdout, session)
  let printed = 0
  try {
    for await (const event of source) {
      if (config.types !== null && !config.types.has(event.type)) continue
      const drained = write(format(event))
      if (++printed === config.count) {
        reporter.status(`received ${printed} event${printed === 1 ? '' : 's'}, closing`)
        session.stop(0)
        break
      }
      if (drained !== null) await drained
    }
  } catch {
    // The iteration throws when the connection fails; the error listener has reported it already.
  }
}

function essence (contentType) {
  return `${contentType ?? ''}`.split(';')[0].trim().toLowerCase()
}

// --raw: one plain request with the same method, headers and body, its body bytes copied to stdout.
async function streamRaw (config, network, { stdout }, reporter, session) {
  const { request } = require('undici')
  const headers = { accept: 'text/event-stream', 'cache-control': 'no-cache' }
  for (const [name, value] of config.headers) {
    const lower = name.toLowerCase()
    headers[lower] = headers[lower] === undefined || lower === 'accept' || lower === 'cache-control'
      ? value
      : `${headers[lower]}, ${value}`
  }
  if (config.lastEventId !== undefined) headers['last-event-id'] = config.lastEventId
  const controller = new AbortController()
  session.onStop(() => controller.abort())
  reporter.status(connectingLine(config, network))
  let response
  try {
    response = await request(config.url, {
      method: config.method,
      headers,
      body: config.body ?? undefined,
      dispatcher: network?.dispatcher,
      signal: controller.signal,
      headersTimeout: config.connectTimeout || undefined,
      bodyTimeout: config.idleTimeout ?? 0
    })
  } catch (err) {
    if (err.code === 'UND_ERR_INVALID_ARG') throw new UsageError(err.message)
    if (!session.done) {
      reporter.failure(`failed: ${err.message}${err.code ? ` (${err.code})` : ''}`)
      session.stop(1)
    }
    return
  }
  reporter.status(`HTTP ${response.statusCode}`, response.statusCode === 200 ? 'green' : 'yellow')
  for (const [name, value] of Object.entries(response.headers)) {
    for (const one of Array.isArray(value) ? value : [value]) reporter.status(`${name}: ${one}`)
  }
  const write = writer(stdout, session)
  try {
    for await (const chunk of response.body) {
      const drained = write(chunk)
      if (drained !== null) await drained
      if (session.done) break
    }
  } catch (err) {
    if (!session.done) {
      reporter.failure(`failed: the response body broke off: ${err.message}`)
      session.stop(1)
    }
    return
  }
  if (session.done) return
  const type = essence(response.headers['content-type'])
  if (response.statusCode !== 200) {
    reporter.failure(`failed: the server answered ${response.statusCode}: an event stream needs status 200`)
    session.stop(1)
  } else if (type !== 'text/event-stream') {
    reporter.failure(`failed: the server answered with Content-Type "${response.headers['content-type'] ?? ''}": an event stream needs text/event-stream`)
    session.stop(1)
  } else {
    reporter.status('the server ended the stream')
    session.stop(0)
  }
}

/**
 * @param {string[]} args
 * @param {object} [io]
 */
async function main (args, io = {}) {
  const {
    stdout = process.stdout,
    stderr = process.stderr,
    env = process.env,
    prog = 'ssecat'
  } = io
  const usage = (message) => {
    // The message quotes the command line, and for a value the library or undici refused, their message.
    stderr.write(`${prog}: ${escapeLines(message, MESSAGE_INDENT)}\nRun '${prog} --help' for the options.\n`)
    process.exitCode = 2
  }

  let config
  try {
    config = parseCommandLine(args)
  } catch (err) {
    if (!(err instanceof UsageError)) throw err
    usage(err.message)
    return
  }
  if (config.help) {
    stdout.write(helpText(prog))
    return
  }
  if (config.version) {
    stdout.write(`${require('../../package.json').version}\n`)
    return
  }

  const reporter = createReporter(stderr, { quiet: config.quiet, prog, env })
  const session = new Session()
  if (config.insecure) {
    reporter.warning('--insecure: TLS certificates are NOT verified. Anyone on the network path can read and alter this stream.')
  }
  if (config.http2 && proxyEnvironment(env).length > 0) {
    reporter.warning(`--http2 connects directly: ${proxyEnvironment(env).join(', ')} not used`)
  }
  const network = config.http2 ? null : createDispatcher(config, env)
  if (network !== null) session.onStop(() => { network.dispatcher.destroy().catch(() => {}) })

  // A reader that goes away (`ssecat URL | head -3`) ends the run normally.
  stdout.on('error', (err) => {
    if (err.code !== 'EPIPE') reporter.failure(`failed: cannot write to stdout: ${err.message}`)
    session.stop(err.code === 'EPIPE' ? 0 : 1)
  })
  const onSignal = (signal) => {
    // A second Ctrl-C while winding down ends the process at once.
    if (session.done) process.exit()
    reporter.status(`${signal}, closing`)
    session.stop(0)
  }
  process.on('SIGINT', onSignal)
  process.on('SIGTERM', onSignal)
  if (config.timeout !== undefined) {
    const timer = setTimeout(() => {
      reporter.status(`${config.timeout} ms timeout, closing`)
      session.stop(0)
    }, config.timeout)
    session.onStop(() => clearTimeout(timer))
  }

  try {
    await (config.raw ? streamRaw : streamEvents)(config, network, { stdout, stderr, env }, reporter, session)
  } catch (err) {
    if (!(err instanceof UsageError)) {
      reporter.failure(`failed: unexpected error: ${err?.stack ?? err}`)
      session.stop(1)
      return
    }
    usage(err.message)
    session.stop(2)
  }
}

module.exports = { main }
