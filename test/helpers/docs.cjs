'use strict'

// The documentation as data: the Markdown files that ship with the package (README.md, docs/*.md,
// SECURITY.md), their fenced code blocks, links and heading anchors. test/docs/docs-examples.test.cjs runs
// the blocks; test/docs/docs-links.test.cjs follows the links.

const fs = require('node:fs')
const path = require('node:path')

const ROOT = path.join(__dirname, '..', '..')
const PACKAGE = require('../../package.json')

/** The GitHub address of the repository, from package.json's `repository` (no trailing slash). */
const REPOSITORY = PACKAGE.repository.url.replace(/^git\+/, '').replace(/\.git$/, '')
// Links to files of the repository that are not in the package (examples/, test/, benchmarks/) are
// absolute, so that they work from npm and from an installed copy: blob/ and tree/ for pages and
// folders, raw.githubusercontent.com for images. They are checked against this checkout.
const [, OWNER_NAME] = /^https:\/\/github\.com\/(.+)$/.exec(REPOSITORY)
const REPOSITORY_PREFIXES = [
  `${REPOSITORY}/blob/main/`,
  `${REPOSITORY}/tree/main/`,
  `https://raw.githubusercontent.com/${OWNER_NAME}/main/`
]

/** The documentation pages, as paths from the root: README.md, docs/*.md, SECURITY.md. */
function docPages () {
  const docs = fs.readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)
  return ['README.md', ...docs, 'SECURITY.md']
}

const read = (page) => fs.readFileSync(path.join(ROOT, page), 'utf8')

/**
 * The fenced code blocks of a page: { page, line (1-based, of the opening fence), lang, code, marker },
 * where `marker` is the text of an HTML comment on the line before the fence (`<!-- not run: why -->`),
 * or null.
 */
function codeBlocks (page, text = read(page)) {
  const lines = text.split('\n')
  const blocks = []
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*([\w+-]*)/.exec(lines[i])
    if (!open) continue
    const [, indent, fence, lang] = open
    const body = []
    let j = i + 1
    while (j < lines.length && !lines[j].trimStart().startsWith(fence)) body.push(lines[j++].slice(indent.length))
    let before = i - 1
    while (before >= 0 && lines[before].trim() === '') before--
    const comment = before >= 0 ? /^\s*<!--\s*(.*?)\s*-->\s*$/.exec(lines[before]) : null
    blocks.push({ page, line: i + 1, lang: lang.toLowerCase(), code: body.join('\n') + '\n', marker: comment ? comment[1] : null })
    i = j
  }
  return blocks
}

/** The text of a page outside its fenced code blocks and inline code, lines kept in place. */
function prose (text) {
  const lines = text.split('\n')
  let fence = null
  return lines.map((line) => {
    const m = /^\s*(`{3,}|~{3,})/.exec(line)
    if (fence) {
      if (m && m[1][0] === fence[0] && m[1].length >= fence.length) fence = null
      return ''
    }
    if (m) {
      fence = m[1]
      return ''
    }
    return line.replace(/(`+)(?:(?!\1).)+?\1/g, (code) => ' '.repeat(code.length))
  }).join('\n')
}

/**
 * The links and images of a page, outside code: { page, line, target, image }. Targets are as
 * written (a path, `#fragment`, `path#fragment` or a URL).
 */
function links (page, text = read(page)) {
  const out = []
  prose(text).split('\n').forEach((line, i) => {
    for (const m of line.matchAll(/(!?)\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      out.push({ page, line: i + 1, target: m[2], image: m[1] === '!' })
    }
    for (const m of line.matchAll(/<(?:a|img)\s[^>]*?(?:href|src)="([^"]+)"/g)) out.push({ page, line: i + 1, target: m[1], image: false })
  })
  return out
}

/**
 * GitHub's anchor for a heading's text: lower case, inline markup and punctuation but `-` and `_`
 * removed, spaces as `-` (github-slugger's rules).
 */
function slug (heading) {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[`*]/g, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-')
}

/** The anchors a page defines: each heading's slug (repeats get -1, -2 ...) and every `id="..."`. */
function anchors (page, text = read(page)) {
  const seen = new Map()
  const out = new Set()
  const raw = text.split('\n')
  prose(text).split('\n').forEach((line, i) => {
    // A heading outside code; its text from the page itself, as prose() blanks inline code.
    if (/^#{1,6}\s/.test(line)) {
      const base = slug(raw[i].replace(/^#{1,6}\s+/, '').replace(/\s+#+\s*$/, '').trim())
      const n = seen.get(base) ?? 0
      seen.set(base, n + 1)
      out.add(n === 0 ? base : `${base}-${n}`)
    }
    for (const m of line.matchAll(/\sid="([^"]+)"/g)) out.add(m[1])
  })
  return out
}

module.exports = { ROOT, REPOSITORY, REPOSITORY_PREFIXES, docPages, read, codeBlocks, prose, links, slug, anchors }
