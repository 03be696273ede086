'use strict'

// One process of the startup benchmark (spawned by ./run.mjs): load one client, open one connection to
// the URL, and at the first event write "<performance.now()> <data>" to stdout, then exit.
// performance.now() counts from this process's performance.timeOrigin (Node sets it as the process
// starts), so it is the child's own view of "start -> first event"; the parent times the same span from
// before its spawn() call to this line. CommonJS, so every client is loaded by require() as a CommonJS
// user would load it, and no ESM loader is started.
//
// argv: <client> <url>    client: ours | undici | node | eventsource | floor

const [client, url] = process.argv.slice(2)

function first (data) {
  const now = performance.now()
  process.stdout.write(`${now} ${data}\n`, () => process.exit(0))
}

function fail (message) {
  process.stderr.write(`${client}: ${message}\n`)
  process.exit(1)
}

function load () {
  switch (client) {
    case 'ours': return require('whatwg-eventsource').EventSource
    case 'undici': return require('undici').EventSource
    // Node's global, behind --experimental-eventsource (run.mjs passes the flag where Node has it).
    case 'node': return globalThis.EventSource
    case 'eventsource': return require('eventsource').EventSource
    default: return fail('unknown client')
  }
}

if (client === 'floor') {
  // A bare node:http GET: the cost of Node and its HTTP stack alone, no EventSource.
  require('node:http').get(url, (res) => {
    let text = ''
    res.setEncoding('utf8')
    res.on('data', (chunk) => {
      text += chunk
      const match = /^data: (.*)\n\n/m.exec(text)
      if (match !== null) first(match[1])
    })
    res.on('end', () => fail('the response ended before an event'))
  }).on('error', (err) => fail(err.message))
} else {
  const EventSource = load()
  if (typeof EventSource !== 'function') fail('this Node has no EventSource')
  const source = new EventSource(url)
  source.onmessage = (event) => first(event.data)
  source.onerror = () => fail('error event before the first message')
}
