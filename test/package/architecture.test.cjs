'use strict'

// The layers of lib/ (docs/architecture.md), held by their imports: each folder may import only the
// layers below it. Read from the source of every file under lib/: its import and export-from statements of
// relative paths and of package.json's "imports" (`#bytes`..., both their Node and their web files).
//
//   entries/           the entry points: any layer
//   compat/<drop-in>/  its own folder, the core, the parser, the transport, shared, platform
//   eventsource/       the core: itself, the parser, the transport, shared, platform; never a drop-in
//   transport/         itself, shared, platform: nothing of event streams (core, parser)
//   server/            itself, shared, platform: serving writes event streams, it reads none (no core, parser,
//                      transport)
//   parser/            itself, shared, platform: it runs with nothing but bytes
//   errors/, validators/, constants.js (shared): each other and platform
//   platform/          nothing of lib/
//
// Also: a file of lib/ over 800 lines says why in its opening comment (a line `// Long: why`). Files follow
// concepts, not a budget: STYLE.md 2.12. And no line of lib/ is over 120 characters (issue 47 item 5): a
// long line is rewrapped, never squeezed by merging statements.

const t = require('tap')
const fs = require('node:fs')
const path = require('node:path')

const root = path.join(__dirname, '..', '..')
const lib = path.join(root, 'lib')
const { imports } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'))
const LONG_FILE = 800
const LONG_LINE = 120

// What every layer may use: lib/errors/, lib/validators/ and the files at the top of lib/.
const SHARED_FOLDERS = ['errors', 'validators']

// The layer of a file, as a path from lib/: its first folder, 'compat/<drop-in>', or 'shared'.
function layerOf (file) {
  const parts = file.split('/')
  if (parts[0] === 'entries') return 'entries'
  if (parts.length === 1 || SHARED_FOLDERS.includes(parts[0])) return 'shared'
  if (parts[0] === 'compat') return `compat/${parts[1]}`
  return parts[0]
}

// What each layer may require, besides itself.
const ALLOWED = {
  platform: [],
  shared: ['platform'],
  parser: ['shared', 'platform'],
  transport: ['shared', 'platform'],
  server: ['shared', 'platform'],
  eventsource: ['parser', 'transport', 'shared', 'platform']
}

function allowed (from, to) {
  if (from === to || from === 'entries') return true
  if (to === 'entries') return false
  if (from.startsWith('compat/')) return !to.startsWith('compat/')
  return ALLOWED[from].includes(to)
}

/** The lib/ files a file imports, as paths from lib/ (an import's every condition counts). */
function requiresOf (file) {
  const source = fs.readFileSync(path.join(lib, file), 'utf8')
  const targets = []
  for (const [, spec] of source.matchAll(/^(?:import|export)\b[^'"]*?(?:\bfrom\s*)?'([^']+)'/gms)) {
    if (spec.startsWith('#')) {
      for (const target of Object.values(imports[spec])) targets.push(path.relative(lib, path.join(root, target)))
    } else if (spec.startsWith('.')) {
      targets.push(path.relative(lib, path.join(lib, path.dirname(file), spec)))
    }
  }
  return targets.map((target) => target.split(path.sep).join('/'))
}

const files = fs.readdirSync(lib, { recursive: true })
  .filter((file) => file.endsWith('.js'))
  .map((file) => file.split(path.sep).join('/'))

t.test('every import of lib/ goes down the layers', async (t) => {
  t.ok(files.length > 30, `${files.length} files`)
  for (const file of files) {
    for (const target of requiresOf(file)) {
      t.ok(fs.existsSync(path.join(lib, target)), `${file} -> ${target}: the file exists`)
      t.ok(allowed(layerOf(file), layerOf(target)),
        `${file} (${layerOf(file)}) may require ${target} (${layerOf(target)})`)
    }
  }
})

t.test('the rules themselves: each would catch an import the wrong way', async (t) => {
  t.notOk(allowed('parser', 'eventsource'), 'the parser requires nothing of the core')
  t.notOk(allowed('parser', 'transport'), 'nor of the transports')
  t.notOk(allowed('transport', 'parser'), 'a transport knows nothing of event streams')
  t.notOk(allowed('eventsource', 'compat/eventsource'), 'the core requires no drop-in')
  t.notOk(allowed('compat/eventsource-parser', 'compat/eventsource'), 'nor does another drop-in')
  t.notOk(allowed('platform', 'shared'), 'platform modules require nothing above them')
  t.notOk(allowed('shared', 'eventsource'), 'shared modules require no layer above platform')
  t.notOk(allowed('eventsource', 'entries'), 'no module imports an entry point')
  t.ok(allowed('entries', 'compat/eventsource'), 'an entry point composes any layer')
  t.ok(allowed('compat/eventsource', 'eventsource'), 'a drop-in is built on the core')
  t.same(layerOf('compat/eventsource/departures.js'), 'compat/eventsource')
  t.same(requiresOf('eventsource/eventsource.js').filter((file) => file.startsWith('platform/listeners-')).sort(),
    ['platform/listeners-node.js', 'platform/listeners-web.js'], 'an import counts with its Node and its web file')
})

t.test('only the entry points and the drop-in itself import a drop-in', async (t) => {
  for (const file of files) {
    if (file.startsWith('compat/') || file.startsWith('entries/')) continue
    for (const target of requiresOf(file)) t.notOk(target.startsWith('compat/'), `${file} -> ${target}`)
  }
})

// The Redis backplane (issue 50) is the one part of lib/ that needs node-redis, an optional peer dependency: only
// its entry point imports it, and the backplane, so that nothing else of the package loads the Redis client.
const REDIS_ENTRY = 'entries/server-redis.js'
const BACKPLANE = 'server/redis-channel.js'

/** The packages a file of lib/ imports (bare specifiers: not relative, not package.json's "imports"). */
function packagesOf (file) {
  const source = fs.readFileSync(path.join(lib, file), 'utf8')
  const found = []
  for (const [, spec] of source.matchAll(/^(?:import|export)\b[^'"]*?(?:\bfrom\s*)?'([^']+)'/gms)) {
    if (!spec.startsWith('.') && !spec.startsWith('#') && !spec.startsWith('node:')) found.push(spec)
  }
  // import('x'), require('x') and createRequire(...)('x')
  for (const [, spec] of source.matchAll(/(?:\bimport|\brequire|\))\(\s*'([^']+)'\s*\)/g)) {
    if (!spec.startsWith('.') && !spec.startsWith('#') && !spec.startsWith('node:')) found.push(spec)
  }
  return found
}

t.test('only whatwg-eventsource/server/redis loads the Redis client, and the backplane', async (t) => {
  t.ok(files.includes(REDIS_ENTRY) && files.includes(BACKPLANE), 'both files are there')
  t.same(packagesOf(REDIS_ENTRY), ['redis'], `${REDIS_ENTRY} imports node-redis`)
  for (const file of files) {
    if (file !== REDIS_ENTRY) t.notOk(packagesOf(file).some((spec) => /^(?:@?redis|ioredis)\b/.test(spec)), `${file}`)
    if (file !== REDIS_ENTRY) t.notOk(requiresOf(file).includes(BACKPLANE), `${file} does not import the backplane`)
  }
  t.same(packagesOf('entries/server.js'), [], 'the rule itself: whatwg-eventsource/server imports no package')
  t.ok(packagesOf('transport/dispatchers.js').includes('undici'), 'and sees undici where a transport requires it')
})

t.test(`a file of lib/ over ${LONG_FILE} lines says why`, async (t) => {
  for (const file of files) {
    const text = fs.readFileSync(path.join(lib, file), 'utf8')
    const lines = text.split('\n').length - 1
    // The opening comment: the lines before the first that is neither a comment, blank nor 'use strict'.
    const opening = text.split('\n').slice(0, text.split('\n').findIndex((line) => !/^(\/\/|$)/.test(line)))
    t.ok(lines <= LONG_FILE || opening.some((line) => line.startsWith('// Long: ')), `${file}: ${lines} lines`)
  }
})

// The lines of a file over LONG_LINE characters, as 'line: length'.
function longLines (text) {
  return text.split('\n').flatMap((line, i) => line.length > LONG_LINE ? [`${i + 1}: ${line.length}`] : [])
}

t.test(`no line of lib/ is over ${LONG_LINE} characters`, async (t) => {
  for (const file of files) {
    t.same(longLines(fs.readFileSync(path.join(lib, file), 'utf8')), [], file)
  }
})

t.test('the rule itself: a line one character over is caught, one at the limit is not', async (t) => {
  t.same(longLines(`${'x'.repeat(LONG_LINE)}\n${'y'.repeat(LONG_LINE + 1)}\n`), [`2: ${LONG_LINE + 1}`])
})

// docs/architecture.md maps lib/ file by file: a file added, moved or renamed without it fails here.
t.test('docs/architecture.md names every file of lib/', async (t) => {
  const map = fs.readFileSync(path.join(root, 'docs', 'architecture.md'), 'utf8')
  for (const file of files) {
    const name = path.posix.basename(file)
    // A pair (<job>-node.js, <job>-web.js) may be named once, as <job>-*.js.
    const pair = name.replace(/-(node|web)\.js$/, '-*.js')
    const folder = path.posix.dirname(file) === '.' ? '' : `${path.posix.dirname(file)}/`
    const named = [name, pair].some((shown) => map.includes(` ${shown} `) || map.includes(`lib/${folder}${shown}`))
    t.ok(named, `${file} is in the map`)
  }
})
