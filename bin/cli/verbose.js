'use strict'

// -v/--verbose: what the EventSource does, on stderr, fed from the library's diagnostics channels
// (lib/platform/channels-node.js), in the manner of curl -v: each attempt as it starts, with its request headers
// ("> "), the response head with the time it took and its headers ("< "), the time of each
// connection's first event, each reconnection with its reason and delay, each failure, and the close
// with its reason and totals. Every line has the time since the run started.
//
// Credentials are not printed: the values of Authorization, Cookie and Proxy-Authorization sent, and
// of Set-Cookie received, are replaced by "[redacted]"; URLs are shown without user name and
// password (the library never publishes them). Everything a server controls (status text, header
// names and values, the final URL, error messages, the body of a response refused) goes through
// escapeControls().

const dc = require('node:diagnostics_channel')
const { colorEnabled, painter, escapeControls, escapeLines, MESSAGE_INDENT } = require('./output')

const REDACTED_REQUEST = new Set(['authorization', 'cookie', 'proxy-authorization'])
const REDACTED_RESPONSE = new Set(['set-cookie'])
const REDACTED = '[redacted]'

/** Milliseconds for people: one decimal below 10 ms, whole milliseconds above. */
function formatMs (ms) {
  return ms < 10 ? `${ms.toFixed(1)} ms` : `${Math.round(ms)} ms`
}

function plural (n, word) {
  return `${n} ${word}${n === 1 ? '' : 's'}`
}

/**
 * Starts printing. The subscriptions last until stop() (once the run is over): nothing is published,
 * and nothing built, for a run without -v.
 * @param {NodeJS.WritableStream & { isTTY?: boolean }} stream stderr
 * @param {{ env: Record<string, string | undefined>, now?: () => number }} options
 * @returns {{ stop: () => void }}
 */
function startVerbose (stream, { env, now = () => performance.now() }) {
  const paint = painter(colorEnabled(stream, env))
  const started = now()
  const write = (text) => {
    // stderr going away (a closed pipe) must not crash the CLI.
    try {
      stream.write(text)
    } catch {}
  }
  const line = (text) => write(`${paint('dim', `* [${formatMs(now() - started)}] ${escapeLines(text, MESSAGE_INDENT)}`)}\n`)
  const headerLines = (marker, headers, redacted) => {
    for (const [name, value] of Object.entries(headers)) {
      const shown = redacted.has(name.toLowerCase()) ? REDACTED : value
      write(`${paint('dim', `${marker} ${escapeControls(name)}: ${escapeControls(shown)}`)}\n`)
    }
  }

  // Per attempt: its number, when it started, whether a response opened it, whether its first event is
  // still to come; and whether the message channel is subscribed.
  let attempt = 0
  let attemptStarted = 0
  let opened = false
  let awaitingFirstEvent = false
  let listening = false

  const onConnect = (message) => {
    attempt = message.attempt
    attemptStarted = now()
    opened = false
    awaitingFirstEvent = false
    const resume = message.lastEventId === '' ? '' : ` (Last-Event-ID ${message.lastEventId})`
    line(`attempt ${attempt}: ${message.method} ${message.url}${resume}`)
    headerLines('>', message.headers, REDACTED_REQUEST)
  }
  const onOpen = (message) => {
    line(`response after ${formatMs(message.ms)}: ${message.status} ${message.statusText}, from ${message.url}`)
    headerLines('<', message.headers, REDACTED_RESPONSE)
    opened = true
    awaitingFirstEvent = true
    if (!listening) {
      listening = true
      dc.subscribe('whatwg-eventsource:message', onMessage)
    }
  }
  // Subscribed from each response head to its first event only: the events after it cost nothing.
  const onMessage = (message) => {
    listening = false
    dc.unsubscribe('whatwg-eventsource:message', onMessage)
    if (!awaitingFirstEvent) return
    awaitingFirstEvent = false
    line(`first event after ${formatMs(now() - attemptStarted)} (type ${message.type}, ${plural(message.dataLength, 'character')} of data)`)
  }
  const onError = (message) => {
    const { error, code, willReconnect, delay } = message
    const why = code === undefined ? error.message : `${error.message} (${code})`
    // The response that ended an attempt without opening it (a status, a type, a redirect refused), as
    // for one that opened it; after retries exhausted, the last attempt's.
    if (!opened && error.status !== undefined && error.headers !== undefined) {
      line(`response after ${formatMs(now() - attemptStarted)}: ${error.status} ${error.statusText ?? ''}${error.url === undefined ? '' : `, from ${error.url}`}`)
      headerLines('<', error.headers, REDACTED_RESPONSE)
      // What its body said (an API's reason: `{"error":{"message":...}}`), as the library read it (its
      // init.errorBody bounds), escaped line by line: the server wrote it.
      if (error.body) line(`body${error.bodyTruncated ? ' (cut short)' : ''}: ${error.body}`)
    }
    if (willReconnect) line(`attempt ${attempt} over; attempt ${attempt + 1} in ${formatMs(delay)}: ${why}`)
    else line(`attempt ${attempt} failed, no reconnection: ${why}`)
  }
  const onClose = (message) => {
    const how = { close: 'closed', abort: 'aborted', failure: 'failed', end: 'the server ended the stream' }[message.reason]
    line(`${how} (${message.reason}): ${plural(message.events, 'event')}, ${plural(message.bytes, 'byte')}, ` +
      `${plural(message.attempts, 'attempt')}, ${formatMs(message.msOpen)} open`)
  }

  const subscriptions = [
    ['whatwg-eventsource:connect', onConnect],
    ['whatwg-eventsource:open', onOpen],
    ['whatwg-eventsource:error', onError],
    ['whatwg-eventsource:close', onClose]
  ]
  for (const [name, onMessage] of subscriptions) dc.subscribe(name, onMessage)
  return {
    stop () {
      for (const [name, onMessage] of subscriptions) dc.unsubscribe(name, onMessage)
      if (listening) dc.unsubscribe('whatwg-eventsource:message', onMessage)
    }
  }
}

module.exports = { startVerbose, formatMs }
