'use strict'

// The CLI (bin/ssecat.js) as the test/cli/*.test.cjs files run it: a child process of the same Node,
// in an environment without the settings of the outside world that would change what it does.

const path = require('node:path')
const { runChild } = require('./child.cjs')

const CLI = path.join(__dirname, '..', '..', 'bin', 'ssecat.js')

// Variables that would change what the CLI prints (colours, terminal). NODE_V8_COVERAGE goes too
// (coverage: false): the library's coverage is measured by its own tests, and writing a profile from
// every CLI process would only slow these down.
const SCRUBBED = { NO_COLOR: undefined, FORCE_COLOR: undefined, NODE_DISABLE_COLORS: undefined, TERM: undefined }

/**
 * Runs the CLI; see runChild() for what the result offers (waitFor, exited, stdoutBuffer...).
 * @param {import('tap').Test} t
 * @param {string[]} args
 * @param {{ env?: Record<string, string>, stdin?: string }} [options] `stdin`: what the CLI reads on
 *   its standard input (nothing, by default: it is ended at once)
 */
function runCli (t, args, { env = {}, stdin = '' } = {}) {
  return runChild(t, [CLI, ...args], { env: { ...SCRUBBED, ...env }, isolate: true, coverage: false, input: stdin })
}

/** Lines of text, without the empty string after the final newline. */
function lines (text) {
  return text.split('\n').filter((line, i, all) => line !== '' || i < all.length - 1)
}

module.exports = { CLI, runCli, lines }
