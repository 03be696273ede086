'use strict'

// The resumption examples, as a user runs them, then with 200 cuts each: an MCP-style POST resumed by
// GETs with Last-Event-ID (examples/mcp-resume.js) and a log read with its offset in the URL's query
// (examples/offset-resume.js). Nothing may be lost or repeated, and the tool is called once.

const t = require('tap')
const path = require('node:path')
const { runChild } = require('../helpers/index.cjs')
const mcp = require('../../examples/mcp-resume')
const offsets = require('../../examples/offset-resume')

const CUTS = 200
const range = (n) => Array.from({ length: n }, (_, i) => i + 1)

t.test('mcp-resume: 200 cuts, one POST, every progress notification once, then the result', async (t) => {
  for (const seed of [1, 2]) {
    const steps = 400
    const { progress, response, requests, cutsLeft } = await mcp.run({ steps, cuts: CUTS, seed, retry: 0 })
    t.equal(cutsLeft, 0, `seed ${seed}: every cut was made`)
    t.same(progress, range(steps), `seed ${seed}: every notification once, in order`)
    t.equal(response.id, 7)
    t.same(response.result.content[0].text, `counted to ${steps}`)
    t.equal(requests.post, 1, 'the tool was called once')
    t.ok(requests.get >= CUTS, `${requests.get} GETs resumed the stream`)
    t.equal(requests.resumedWithoutId, 0, 'every GET carried Last-Event-ID')
  }
})

t.test('offset-resume: 200 cuts, every entry once, in order; the offset travels in the URL', async (t) => {
  for (const seed of [1, 2]) {
    const { entries, expected, offsets: requested, cutsLeft } = await offsets.run({ count: 400, cuts: CUTS, seed, retry: 0 })
    t.equal(cutsLeft, 0, `seed ${seed}: every cut was made`)
    t.same(entries, expected, `seed ${seed}: every entry once, in order`)
    t.equal(requested[0], 0)
    t.ok(requested.every((offset, i) => i === 0 || offset >= requested[i - 1]), 'each request goes on from where the last one stopped')
  }
})

t.test('as a user runs them: `node examples/<name>.js`', async (t) => {
  for (const [name, expected] of [['mcp-resume', /result: counted to 20\n1 POST, \d+ GETs that resumed the stream\n$/], ['offset-resume', /00000020: "entry 20"\nrequested from offsets 0, /]]) {
    const { code, stdout } = await runChild(t, [path.join(__dirname, '..', '..', 'examples', `${name}.js`)]).exited()
    t.equal(code, 0, name)
    t.match(stdout, expected, name)
  }
})
