'use strict'

// Every error code the library can produce is declared once, in the table of the layer that makes it
// (the tables of lib/errors/, which lib/errors/index.js loads into one `codes`), and is one a program
// can switch on: docs/errors.md lists it and the ErrorCode type names it. The codes are read from
// the table itself, so a new code without documentation fails here; and a code spelled out anywhere
// else in lib/ must be one the table declares, so none can drift from it.

const t = require('tap')
const fs = require('node:fs')
const path = require('node:path')
const { codes } = require('../../lib/errors')

const root = path.join(__dirname, '..', '..')
const lib = path.join(root, 'lib')
// Every .js file under lib/, as a path from there.
const libFiles = () => fs.readdirSync(lib, { recursive: true }).filter((file) => file.endsWith('.js'))

const declared = Object.keys(codes)
// Codes that never reach user code (the reason handed to undici when we abort a request ourselves,
// whose outcome is discarded) are declared as internal.
const internal = declared.filter((code) => codes[code].kind === 'internal')
const public_ = declared.filter((code) => codes[code].kind !== 'internal')

// The "Codes" section of docs/errors.md: from its heading to the next one of the same level.
function documentedCodes () {
  const page = fs.readFileSync(path.join(root, 'docs', 'errors.md'), 'utf8')
  const start = page.indexOf('\n## Codes\n')
  t.not(start, -1, 'docs/errors.md has a Codes section')
  const end = page.indexOf('\n## ', start + 1)
  return page.slice(start, end === -1 ? undefined : end)
}

t.test('the table declares every code, each as a constructor named after it', async (t) => {
  t.ok(public_.length >= 20, `${public_.length} public codes`)
  t.same(internal, ['ERR_EVENTSOURCE_ABORTED'])
  for (const code of declared) {
    t.match(code, /^ERR_[A-Z0-9]+(?:_[A-Z0-9]+)+$/)
    t.equal(codes[code].name, code)
  }
})

t.test('each code is in one table, and lib/errors/index.js holds them all', async (t) => {
  const tables = ['arguments', 'http', 'parser', 'connection', 'node-transports', 'reconnect-policy', 'drop-in', 'extensions', 'server', 'server-redis']
    .map((name) => require(`../../lib/errors/${name}`).codes)
  const all = tables.flatMap((table) => Object.keys(table))
  t.equal(new Set(all).size, all.length, 'no code in two tables')
  t.same(all.sort(), [...declared].sort(), 'lib/errors/index.js has every table\'s codes and no other')
  for (const table of tables) {
    for (const [code, Ctor] of Object.entries(table)) t.equal(codes[code], Ctor, `${code}: the same class`)
  }
})

t.test('every declared code is listed in docs/errors.md', async (t) => {
  const section = documentedCodes()
  for (const code of public_) t.ok(section.includes(`\`${code}\``), `${code} is documented`)
})

t.test('every declared code is in the ErrorCode type', async (t) => {
  const types = fs.readFileSync(path.join(root, 'types', 'index.d.ts'), 'utf8')
  const union = types.slice(types.indexOf('export type ErrorCode'))
  for (const code of public_) t.ok(union.includes(`'${code}'`), `${code} is typed`)
})

t.test('the internal codes stay internal', async (t) => {
  const section = documentedCodes()
  for (const code of internal) t.notOk(section.includes(code), `${code} is not presented as one to handle`)
})

t.test('lib/ names no code that the table does not declare', async (t) => {
  const named = new Set()
  for (const file of libFiles()) {
    if (file === 'errors.js') continue
    const source = fs.readFileSync(path.join(lib, file), 'utf8')
    for (const [code] of source.matchAll(/\bERR_[A-Z0-9]+(?:_[A-Z0-9]+)+\b/g)) named.add(code)
  }
  t.ok(named.size >= 20, `${named.size} codes named outside lib/errors/index.js`)
  for (const code of named) t.ok(Object.hasOwn(codes, code), `${code} is declared`)
})

t.test('no error is made from a code given as a string', async (t) => {
  // Outside the table, no function takes a code as an argument (as connectionError('ERR_X', ...) once
  // did): every site uses a declared constructor.
  for (const file of libFiles()) {
    if (file === 'errors.js') continue
    const source = fs.readFileSync(path.join(lib, file), 'utf8')
    t.notMatch(source, /\(\s*['"`]ERR_[A-Z0-9_]+['"`]\s*,/, `${file} passes no code literal as an argument`)
  }
})
