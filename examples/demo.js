'use strict'

// `npm start`: an EventSource against a local server that drops the connection now and then. Watch
// the reconnection resume from Last-Event-ID, then the process exits on its own after close().
// `npm start -- --cli` (or `npm run start:cli`) does the same with the command-line client.

const { EventSource } = require('..')
const { startDemoServer } = require('./demo-server')

async function main () {
  const demo = await startDemoServer()
  demo.server.on('request', (req) => {
    console.log(`server: request${req.headers['last-event-id'] ? ` with Last-Event-ID: ${req.headers['last-event-id']}` : ''}`)
  })
  console.log(`client: connecting to ${demo.url}`)
  const source = new EventSource(demo.url)
  source.onopen = () => console.log('client: open')
  source.onerror = () => {
    console.log(`client: error, readyState ${['CONNECTING', 'OPEN', 'CLOSED'][source.readyState]}` +
      (source.readyState === EventSource.CONNECTING ? ' (reconnecting)' : ''))
  }
  source.addEventListener('tick', (event) => {
    console.log(`client: ${event.type} id=${event.lastEventId} data=${JSON.stringify(event.data)}`)
  })
  source.addEventListener('done', async () => {
    console.log('client: done, closing')
    source.close()
    await demo.close()
    console.log('server: closed; nothing is left running, so the process exits')
  })
}

if (process.argv.includes('--cli')) {
  process.argv = process.argv.filter((arg) => arg !== '--cli')
  require('./cli-demo')
} else {
  main()
}
