'use strict'

// Every error code the library can produce is one a program can switch on, and the README lists it:
// the codes are collected from lib/ itself, so a new code without documentation fails here.

const t = require('tap')
const fs = require('node:fs')
const path = require('node:path')

const root = path.join(__dirname, '..')
const lib = path.join(root, 'lib')

// Codes that never reach user code: the reason handed to undici when we abort a request ourselves,
// whose outcome is discarded (lib/connection.js).
const INTERNAL = new Set(['ERR_EVENTSOURCE_ABORTED'])

function codesInLib () {
  const codes = new Set()
  for (const file of fs.readdirSync(lib)) {
    const source = fs.readFileSync(path.join(lib, file), 'utf8')
    for (const [code] of source.matchAll(/\bERR_[A-Z0-9]+(?:_[A-Z0-9]+)+\b/g)) codes.add(code)
  }
  return codes
}

// The README's "Errors" section: from its heading to the next one of the same level.
function readmeErrorsSection () {
  const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8')
  const start = readme.indexOf('\n## Errors\n')
  t.not(start, -1, 'the README has an Errors section')
  const end = readme.indexOf('\n## ', start + 1)
  return readme.slice(start, end === -1 ? undefined : end)
}

t.test('every error code in lib/ is listed in the README', async (t) => {
  const codes = codesInLib()
  t.ok(codes.size >= 20, `found ${codes.size} codes`)
  const section = readmeErrorsSection()
  for (const code of codes) {
    if (INTERNAL.has(code)) continue
    t.ok(section.includes(`\`${code}\``), `${code} is documented`)
  }
})

t.test('every error code in lib/ is in the ErrorCode type', async (t) => {
  const types = fs.readFileSync(path.join(root, 'types', 'index.d.ts'), 'utf8')
  const union = types.slice(types.indexOf('export type ErrorCode'))
  for (const code of codesInLib()) {
    if (INTERNAL.has(code)) continue
    t.ok(union.includes(`'${code}'`), `${code} is typed`)
  }
})

t.test('the internal codes stay internal', async (t) => {
  const section = readmeErrorsSection()
  for (const code of INTERNAL) t.notOk(section.includes(code), `${code} is not presented as one to handle`)
})
