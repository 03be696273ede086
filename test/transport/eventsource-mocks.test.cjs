'use strict'

// Users' HTTP mocks see an EventSource made with no option at all, as they see the `eventsource`
// package: msw's setupServer (2 on Node 20 and later, 3 on 22.12 and later), nock (14; 15 on Node 22 and
// later) and undici's MockAgent as the global dispatcher (undici 7; 8 on 22.19 and later). msw and nock
// replace globalThis.fetch while they intercept, and the default transport then goes through it
// (lib/transport/transport-node.js); MockAgent is the dispatcher it goes through anyway. The mocked host
// does not exist: only the mock can answer. Each library runs in a child process of its own
// (test/children/mocks.mjs: nock intercepts as soon as it is imported), with the mock set up before
// the package is loaded and after.

const t = require('tap')
const path = require('node:path')
const { runChild } = require('../helpers/index.cjs')

const CHILD = path.join(__dirname, '..', 'children', 'mocks.mjs')
const [MAJOR, MINOR] = process.versions.node.split('.').map(Number)
const atLeast = (major, minor) => MAJOR > major || (MAJOR === major && MINOR >= minor)

const LIBRARIES = [
  ['msw2', 'msw 2', true],
  ['msw3', 'msw 3', atLeast(22, 12)],
  ['nock14', 'nock 14', true],
  ['nock15', 'nock 15', atLeast(22, 0)],
  ['mockagent7', 'undici 7\'s MockAgent', true],
  ['mockagent8', 'undici 8\'s MockAgent', atLeast(22, 19)]
]

const EXPECTED = [['one', '1', 'http://api.example.test'], ['two', '2', 'http://api.example.test'], ['three', '3', 'http://api.example.test']]

for (const [library, name, runs] of LIBRARIES) {
  for (const order of ['mock-first', 'package-first']) {
    t.test(`${name} (${order === 'mock-first' ? 'set up before the package is loaded' : 'after'}): events and the reconnection`, {
      skip: !runs && `${name} does not run on ${process.version}`
    }, async (t) => {
      const { code, report, stderr } = await runChild(t, [CHILD, library, order], { isolate: true }).exited()
      t.equal(report.error, undefined, 'no error', { stderr })
      t.equal(code, 0)
      t.same(report.events, EXPECTED, 'every event, with its ID and the mocked origin')
      t.same(report.seen, [{ lastEventId: null }, { lastEventId: '2' }], 'the mock answered the reconnection, which sent Last-Event-ID')
    })
  }
}
