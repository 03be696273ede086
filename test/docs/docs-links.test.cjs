'use strict'

// The documentation holds together, in the repository and in the npm package: every relative link of
// README.md, docs/*.md and SECURITY.md leads to a file that is in the package (`npm pack --dry-run`),
// and to a heading of it when it names one; a link to a file of the repository that is not in the
// package is absolute (package.json's `repository`) and leads to a file of this checkout. The README
// stays a front door, and every page of docs/ says what it is for in its first line.

const t = require('tap')
const fs = require('node:fs')
const path = require('node:path')
const { promisify } = require('node:util')
const { execFile } = require('node:child_process')
const { childEnv } = require('../helpers/index.cjs')
const { ROOT, REPOSITORY, REPOSITORY_PREFIXES, docPages, read, links, anchors } = require('../helpers/docs.cjs')

const PACKAGE = require('../../package.json')
const execFileAsync = promisify(execFile)
const README_MAX_LINES = 300

// Markdown of the repository that is not in the package: its relative links must exist in the
// repository (they are read on GitHub).
const REPOSITORY_PAGES = ['test/README.md', 'benchmarks/README.md', 'packages/README.md', 'test/fixtures/tls/README.md']

/** The files `npm pack` would put in the tarball, as paths from the root (once per process). */
let packing = null
function packedFiles () {
  packing ??= execFileAsync(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: ROOT,
    // Without the test runner's hooks and coverage, which would load into npm's own process.
    env: childEnv({ isolate: true, coverage: false }),
    timeout: 60_000
  }).then(({ stdout }) => new Set(JSON.parse(stdout)[0].files.map((f) => f.path)))
  return packing
}

/** A link's target as { file (from the root), fragment }, or null for a URL elsewhere. */
function resolve (page, target) {
  const repository = REPOSITORY_PREFIXES.find((prefix) => target.startsWith(prefix))
  const [where, fragment = null] = (repository ? target.slice(repository.length) : target).split('#')
  if (repository) return { file: where.replace(/\/$/, ''), fragment, absolute: true }
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return null
  const file = where === '' ? page : path.posix.normalize(path.posix.join(path.posix.dirname(page), decodeURIComponent(where)))
  return { file, fragment, absolute: false }
}

function checkLink (t, link, { packed }) {
  const at = `${link.page}:${link.line}: ${link.target}`
  const to = resolve(link.page, link.target)
  if (to === null) return
  t.notOk(to.file.startsWith('..'), `${at} stays inside the repository`)
  t.ok(fs.existsSync(path.join(ROOT, to.file)), `${at}: ${to.file} exists`)
  if (packed && !to.absolute) {
    const isDir = fs.existsSync(path.join(ROOT, to.file)) && fs.statSync(path.join(ROOT, to.file)).isDirectory()
    t.ok(isDir ? [...packed].some((f) => f.startsWith(`${to.file}/`)) : packed.has(to.file),
      `${at}: ${to.file} is in the package (else link to ${REPOSITORY}/blob/main/${to.file})`)
  }
  if (packed && to.absolute) {
    t.notOk(packed.has(to.file), `${at}: ${to.file} is in the package, so the link can be relative`)
  }
  if (to.fragment !== null && to.file.endsWith('.md')) {
    t.ok(anchors(to.file).has(to.fragment), `${at}: #${to.fragment} is a heading of ${to.file}`)
  }
}

t.test('the README is a front door: at most 300 lines', async (t) => {
  const lines = read('README.md').split('\n').length
  t.ok(lines <= README_MAX_LINES, `README.md has ${lines} lines`)
})

t.test('every page of docs/ opens with its title and a one-line purpose', async (t) => {
  for (const page of docPages().filter((p) => p.startsWith('docs/'))) {
    const [title, blank, purpose, after] = read(page).split('\n')
    t.match(title, /^# \S/, `${page}: a title`)
    t.equal(blank, '', `${page}: then a blank line`)
    t.ok(purpose.length > 20 && !purpose.startsWith('#') && !purpose.startsWith('|'), `${page}: then its purpose: ${purpose}`)
    t.equal(after, '', `${page}: in one line`)
  }
})

t.test('the package names its repository and ships its docs', async (t) => {
  t.match(PACKAGE.repository, { type: 'git', url: /^git\+https:\/\/github\.com\/[^/]+\/[^/]+\.git$/ })
  t.ok(REPOSITORY.startsWith('https://github.com/'))
  const packed = await packedFiles()
  for (const page of docPages()) t.ok(packed.has(page), `${page} is in the package`)
})

t.test('links of the shipped pages lead to files of the package, headings included', async (t) => {
  const packed = await packedFiles()
  let count = 0
  for (const page of docPages()) {
    for (const link of links(page)) {
      count++
      checkLink(t, link, { packed })
    }
  }
  t.ok(count > 50, `${count} links`)
})

t.test('links of the repository\'s own pages lead to files of the repository', async (t) => {
  for (const page of REPOSITORY_PAGES) {
    for (const link of links(page)) checkLink(t, link, { packed: null })
  }
})

t.test('the checks catch a broken link', async (t) => {
  const seen = []
  const fake = { ok: (value, message) => seen.push([value, message]), notOk: (value, message) => seen.push([!value, message]) }
  checkLink(fake, { page: 'README.md', line: 1, target: 'docs/no-such-page.md' }, { packed: new Set() })
  checkLink(fake, { page: 'README.md', line: 2, target: 'docs/api.md#no-such-heading' }, { packed: new Set(['docs/api.md']) })
  checkLink(fake, { page: 'README.md', line: 3, target: 'examples/demo.js' }, { packed: new Set() })
  checkLink(fake, { page: 'README.md', line: 4, target: `${REPOSITORY}/blob/main/examples/nothing.js` }, { packed: new Set() })
  const failed = seen.filter(([value]) => !value).map(([, message]) => message)
  t.match(failed, [/no-such-page\.md exists/, /no-such-page\.md is in the package/, /#no-such-heading is a heading/,
    /examples\/demo\.js is in the package/, /nothing\.js exists/])
  t.equal(failed.length, 5)
})
