'use strict'

// web/ is the ES-module copy of lib/ that browser builds import (build/browser-esm.mjs says why): it must be
// what the script makes from today's lib/, so that a change to lib/ cannot ship to browsers without its
// copy, and each module must export what its file of lib/ exports.

const t = require('tap')
const fs = require('node:fs')
const path = require('node:path')

const root = path.join(__dirname, '..', '..')

function listFiles (dir) {
  return fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => entry.isDirectory()
    ? listFiles(path.posix.join(dir, entry.name))
    : [path.posix.join(dir, entry.name)])
}

t.test('web/ is what build/browser-esm.mjs makes from lib/', async (t) => {
  const { generate } = await import('../../build/browser-esm.mjs')
  const files = generate()
  t.same(listFiles('web').sort(), [...files.keys()].sort(), 'the same files')
  for (const [file, text] of files) {
    t.equal(fs.readFileSync(path.join(root, file), 'utf8'), text, `${file} is up to date (node build/browser-esm.mjs)`)
  }
})

t.test('each module of web/ exports what its file of lib/ exports', async (t) => {
  const { generate } = await import('../../build/browser-esm.mjs')
  let compared = 0
  for (const file of generate().keys()) {
    const source = file.replace(/^web\/(.*)\.mjs$/, 'lib/$1.js')
    const cjsFile = fs.existsSync(path.join(root, source)) ? source : file.replace(/^web\/(.*)\.mjs$/, '$1.js')
    const cjs = require(path.join(root, cjsFile))
    const esm = await import(path.join(root, file))
    t.same(Object.keys(esm).sort(), Object.keys(cjs).sort(), `${file}: the exports of ${cjsFile}`)
    compared++
  }
  t.ok(compared >= 40, `${compared} modules`)
})

t.test('the script refuses a form of require it does not rewrite', async (t) => {
  const { convert } = await import('../../build/browser-esm.mjs')
  t.throws(() => convert('lib/x.js', "'use strict'\nmodule.exports.x = 1\n"), /does not rewrite/)
  t.throws(() => convert('lib/x.js', "'use strict'\nconst { a } = require('node:fs')\n"), /not a file of the package/)
  const { text } = convert('lib/x.js', "'use strict'\nconst { a, codes: { B } } = require('./y')\nlet z = null\nfunction f () { z ??= require('#bytes') }\nfunction g () { return require('./w').h }\nmodule.exports = { f, g: 1 }\n")
  t.match(text, "import { codes as codes$0, a } from './y.mjs'")
  t.match(text, 'const { B } = codes$0')
  t.match(text, "import * as module$1 from './platform/bytes-web.mjs'")
  t.match(text, 'z ??= module$1')
  t.match(text, "import { h as h$2 } from './w.mjs'")
  t.match(text, 'return h$2')
  t.match(text, 'export { f, g$export as g }')
})

t.test('a top-level require with a comment after it is a named import all the same', async (t) => {
  // Taken as a lazy load, it became a namespace import, which a bundler keeps whole: the diagnostics'
  // namespace object cost the EventSource's browser bundle 70 B gzipped.
  const { convert } = await import('../../build/browser-esm.mjs')
  const { text } = convert('lib/x.js', "'use strict'\nconst { A, B } = require('./y') // why it is here\nmodule.exports = { A, B }\n")
  t.match(text, "import { A, B } from './y.mjs'")
  t.notMatch(text, 'import * as')
  t.notMatch(text, 'why it is here')
})
