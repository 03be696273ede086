#!/usr/bin/env node
'use strict'

// The whatwg-eventsource command line, installed as `ssecat` and `whatwg-eventsource`.
// `ssecat --help` lists the options; docs/cli.md describes them with examples.

const { basename } = require('node:path')
const { main } = require('./cli/main')

main(process.argv.slice(2), { prog: basename(process.argv[1] ?? 'ssecat').replace(/\.js$/, '') })
