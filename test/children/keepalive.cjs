'use strict'

// A child process for test/eventsource/eventsource-keepalive.test.cjs: an EventSource that is the only thing that
// could keep this process alive. The child never calls process.exit(); the parent watches whether it
// stays alive while the EventSource is not CLOSED, and exits on its own once it is.
//
//   node test/children/keepalive.cjs <scenario> <dispatcher> <event stream URL> <plain URL>
//
// scenario:
//   close-on-event          reconnection time 300 ms; close() when a message with data 'close' arrives
//   close-in-onerror        reconnection time 60 s; close() inside the error listener
//   close-while-waiting     reconnection time 60 s; close() in a later task, while the reconnection
//                           timer is pending
//   close-while-connecting  close() when the parent writes a line on stdin (the server never answers)
//   close-on-first          reconnection time 60 s; close() on the first message or error
//   unref-while-waiting     reconnection time 60 s, keepAliveWhileReconnecting false; never closed: the
//                           process exits while the source waits to reconnect
//   compat-while-waiting    the `eventsource` package's entry (whatwg-eventsource/eventsource), the
//                           server's retry: 60 s; never closed, the same (that package's choice)
//   compat-keepalive        the same entry, keepAliveWhileReconnecting true, the server's retry: 300 ms;
//                           close() when a message with data 'close' arrives
// dispatcher:
//   undici7                 the default: undici 7's global Agent
//   node-fetch              Node's own fetch() runs first, so the global dispatcher is the Agent of the
//                           undici that Node bundles (undici 6 on Node 20 and 22: the old handler API)
//   http2                   init.http2, trusting the tests' certificate: the URL is an HTTP/2 server's
//
// It prints one JSON line when it calls close() and one as it exits: what the EventSource reported
// (the second also shows anything reported after close(), which must be nothing), and readyState just
// before and after close().

const [scenario, dispatcher, url, plainUrl] = process.argv.slice(2)

const SCENARIOS = [
  'close-on-event', 'close-in-onerror', 'close-while-waiting', 'close-while-connecting', 'close-on-first',
  'unref-while-waiting', 'compat-while-waiting', 'compat-keepalive'
]
const COMPAT = scenario.startsWith('compat-')
// Long enough that a pending reconnection timer would outlive the parent's wait for the exit.
const RECONNECTION_TIME = scenario === 'close-on-event' ? 300 : 60_000

async function main () {
  if (!SCENARIOS.includes(scenario)) throw new Error(`unknown scenario ${scenario}`)
  if (dispatcher === 'node-fetch') {
    const response = await fetch(plainUrl)
    await response.text()
  } else if (dispatcher !== 'undici7' && dispatcher !== 'http2') {
    throw new Error(`unknown dispatcher ${dispatcher}`)
  }

  const { EventSource } = COMPAT ? require('../../lib/entries/eventsource.js') : require('../..')
  // The `eventsource` package's entry takes no reconnection time: the server's retry: sets it.
  const init = COMPAT ? {} : { node: { reconnectionTime: RECONNECTION_TIME } }
  if (scenario === 'unref-while-waiting') init.keepAliveWhileReconnecting = false
  if (scenario === 'compat-keepalive') init.keepAliveWhileReconnecting = true
  if (dispatcher === 'http2') init.http2 = { connect: { ca: require('../helpers/tls.cjs').tlsFixture().cert } }
  const es = new EventSource(url, init)
  const log = []
  const report = { scenario, dispatcher, log }
  const closeNow = (why) => {
    report.closedOn = why
    report.readyStateBeforeClose = es.readyState
    es.close()
    report.readyStateAfterClose = es.readyState
    process.stdout.write(JSON.stringify(report) + '\n')
  }
  // Written on the way out, so the log also shows anything the EventSource dispatched after close().
  process.once('exit', () => {
    report.readyStateAtExit = es.readyState
    process.stdout.write(JSON.stringify(report) + '\n')
  })

  es.onopen = () => log.push(['open', es.readyState])
  es.onmessage = (event) => {
    log.push(['message', event.data])
    if ((scenario === 'close-on-event' || scenario === 'compat-keepalive') && event.data === 'close') closeNow('message')
    if (scenario === 'close-on-first' && report.closedOn === undefined) closeNow('message')
  }
  es.onerror = () => {
    log.push(['error', es.readyState])
    if (scenario === 'close-in-onerror') closeNow('error')
    if (scenario === 'close-on-first' && report.closedOn === undefined) closeNow('error')
    if (scenario === 'close-while-waiting') setImmediate(() => closeNow('task after error'))
  }

  if (scenario === 'close-while-connecting') {
    process.stdin.setEncoding('utf8')
    process.stdin.once('data', () => {
      // Reading stdin keeps a process alive; stop before closing so only the EventSource is left.
      process.stdin.destroy()
      closeNow('stdin')
    })
  }
}

main().catch((err) => {
  process.stdout.write(JSON.stringify({ error: err.stack }) + '\n')
  process.exitCode = 1
})
