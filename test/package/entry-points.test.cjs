'use strict'

// Every entry point of package.json's `exports`, as a CommonJS consumer and an ES module one load it,
// on the Node running the tests (CI runs this file on Node 20, 22, 24 and 26): require() works through
// Node's require(esm) without a word on stderr (no ExperimentalWarning), gives the names the types
// declare, and the same objects as import (one copy of each class, however the package is loaded).

const t = require('tap')
const path = require('node:path')
const { runChild } = require('../helpers/index.cjs')

const root = path.join(__dirname, '..', '..')

const ENTRIES = {
  'whatwg-eventsource': ['EventSource', 'EventSourceErrorEvent', 'EventSourceParser', 'EventSourceParserStream', 'EventSourceStream', 'default'],
  'whatwg-eventsource/polyfill': [],
  'whatwg-eventsource/extensions': ['EventSource'],
  'whatwg-eventsource/eventsource': ['ErrorEvent', 'EventSource'],
  'whatwg-eventsource/parser': ['ParseError', 'createParser'],
  'whatwg-eventsource/parser/stream': ['EventSourceParserStream', 'ParseError'],
  'whatwg-eventsource/server': ['Channel', 'EventStreamWriter', 'encodeEvent', 'encodeEvents', 'formatEvent'],
  // Loads node-redis, the `redis` package: an optional peer dependency, a devDependency here.
  'whatwg-eventsource/server/redis': ['RedisChannel']
}

// Run from the repository's root, where package.json names the package: `require('whatwg-eventsource')`
// is the package's own exports map, as a dependency sees it.
const SCRIPT = `
const names = (m) => Object.keys(m).filter((name) => name !== '__esModule').sort()
const entries = ${JSON.stringify(Object.keys(ENTRIES))}
;(async () => {
  const report = {}
  for (const entry of entries) {
    const required = require(entry)
    const imported = await import(entry)
    report[entry] = {
      required: names(required),
      same: names(imported).every((name) => name === 'default' || imported[name] === required[name])
    }
  }
  console.log(JSON.stringify(report))
})()
`

t.test(`require() and import of every entry point on Node ${process.version}: the same objects, no warning`, async (t) => {
  const { code, stderr, report } = await runChild(t, ['-e', SCRIPT], { cwd: root, isolate: true, coverage: false }).exited()
  t.equal(code, 0, 'the child exited with 0')
  t.equal(stderr, '', 'nothing on stderr (no ExperimentalWarning from require(esm))')
  for (const [entry, names] of Object.entries(ENTRIES)) {
    t.same(report[entry]?.required, names, `${entry}: require() gives ${names.join(', ') || 'nothing'}`)
    t.ok(report[entry]?.same, `${entry}: import gives the same objects`)
  }
})
