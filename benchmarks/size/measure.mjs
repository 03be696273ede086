// What a browser application ships for each entry point of the package, and for its peers: the entry
// bundled by esbuild as a front-end build makes it (`--bundle --platform=browser --minify`, ESM, the
// `browser` condition), then gzip -9. Each row is one import statement, so that what is measured is what
// the statement pulls in after tree-shaking: `export { EventSourceParser } from 'whatwg-eventsource'` is
// the parser alone, not the whole entry. The package is resolved as a user's bundler resolves it, by its
// name, from a node_modules that links to this checkout (and to the peers installed beside it).
// Used by benchmarks/size.mjs (the table in benchmarks/README.md) and test/package/bundle-size.test.cjs (the budgets).

import { mkdtempSync, mkdirSync, rmSync, symlinkSync, realpathSync } from 'node:fs'
import { createRequire } from 'node:module'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'

export const root = fileURLToPath(new URL('../..', import.meta.url))
const require = createRequire(import.meta.url)

/**
 * The budgets of issue 29, gzipped bytes: test/package/bundle-size.test.cjs asserts them (those not met yet as
 * todo), and the table shows them.
 */
export const BUDGETS = {
  EventSource: 8 * 1024,
  EventSourceParser: 3.5 * 1024,
  'whatwg-eventsource/parser': 3 * 1024,
  'whatwg-eventsource/parser/stream': 3 * 1024
}

/** The rows of the table: ours, then the peers a user would otherwise ship. */
export const ENTRIES = [
  { name: 'EventSource', source: "export { EventSource } from 'whatwg-eventsource'" },
  { name: 'whatwg-eventsource/extensions', source: "export { EventSource } from 'whatwg-eventsource/extensions'" },
  { name: 'EventSourceParser', source: "export { EventSourceParser } from 'whatwg-eventsource'" },
  { name: 'whatwg-eventsource (every export)', source: "export * from 'whatwg-eventsource'" },
  { name: 'whatwg-eventsource/polyfill', source: "import 'whatwg-eventsource/polyfill'" },
  { name: 'whatwg-eventsource/eventsource', source: "export * from 'whatwg-eventsource/eventsource'" },
  { name: 'whatwg-eventsource/parser', source: "export * from 'whatwg-eventsource/parser'" },
  { name: 'whatwg-eventsource/parser/stream', source: "export * from 'whatwg-eventsource/parser/stream'" },
  { name: 'whatwg-eventsource/server', source: "export * from 'whatwg-eventsource/server'" },
  { name: 'encodeEvent', source: "export { encodeEvent } from 'whatwg-eventsource/server'" }
]
export const PEERS = [
  { name: 'eventsource', package: 'eventsource', source: "export * from 'eventsource'" },
  { name: 'eventsource-parser', package: 'eventsource-parser', source: "export * from 'eventsource-parser'" },
  { name: 'eventsource-parser/stream', package: 'eventsource-parser', source: "export * from 'eventsource-parser/stream'" },
  { name: 'hono/streaming (streamSSE)', package: 'hono', source: "export { streamSSE } from 'hono/streaming'" }
]

/**
 * A directory whose node_modules links `whatwg-eventsource` to this checkout and each peer to its
 * installed copy. Call the returned function to remove it.
 * @returns {{ dir: string, remove: () => void }}
 */
export function linkedInstall () {
  const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'whatwg-eventsource-size-')))
  mkdirSync(path.join(dir, 'node_modules'))
  symlinkSync(root, path.join(dir, 'node_modules', 'whatwg-eventsource'), 'dir')
  for (const name of new Set(PEERS.map((peer) => peer.package))) {
    symlinkSync(path.join(root, 'node_modules', name), path.join(dir, 'node_modules', name), 'dir')
  }
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) }
}

/**
 * Bundles one import statement for the browser and measures it.
 * @param {string} source the statement
 * @param {string} dir where it is resolved from (linkedInstall())
 * @returns {Promise<{ minified: number, gzipped: number, inputs: string[] }>} sizes in bytes, and the
 *   files the bundle holds, as paths from the package's root (or from node_modules for a peer's)
 */
export async function measure (source, dir) {
  const esbuild = require('esbuild')
  const result = await esbuild.build({
    stdin: { contents: source, resolveDir: dir, loader: 'js' },
    absWorkingDir: dir,
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    write: false,
    metafile: true,
    logLevel: 'silent'
  })
  const code = result.outputFiles[0].contents
  // The files with code in the output (the metafile's inputs also list those tree-shaking dropped).
  const [output] = Object.values(result.metafile.outputs)
  const inputs = Object.entries(output.inputs)
    .filter(([input, { bytesInOutput }]) => input !== '<stdin>' && bytesInOutput > 0)
    .map(([input]) => input)
    .map((input) => path.relative(root, path.resolve(dir, input)).split(path.sep).join('/'))
  return { minified: code.length, gzipped: gzipSync(code, { level: 9 }).length, inputs }
}

/**
 * Every row, measured: { name, minified, gzipped, inputs } or { name, error } for an entry that does
 * not bundle.
 * @param {Array<{ name: string, source: string }>} [rows]
 */
export async function measureAll (rows = [...ENTRIES, ...PEERS]) {
  const { dir, remove } = linkedInstall()
  try {
    const out = []
    for (const row of rows) {
      try {
        out.push({ name: row.name, source: row.source, ...(await measure(row.source, dir)) })
      } catch (err) {
        out.push({ name: row.name, source: row.source, error: (err.errors?.[0]?.text ?? err.message).split('\n')[0] })
      }
    }
    return out
  } finally {
    remove()
  }
}

/** The esbuild version measuring, for the table's heading. */
export function esbuildVersion () {
  return require('esbuild/package.json').version
}
