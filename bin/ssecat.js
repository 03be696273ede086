#!/usr/bin/env node
'use strict'

// The whatwg-eventsource command line, installed as `ssecat` and `whatwg-eventsource`.
// `ssecat --help` lists the options; docs/cli.md describes them with examples.

// Node 22.1 and later: V8's code for the CLI and the library kept on disk between runs (Node's compile
// cache, in the OS's temporary directory), so that each run after the first loads it rather than
// compiling every module again. A CLI is started many times; NODE_DISABLE_COMPILE_CACHE=1 turns it off.
require('node:module').enableCompileCache?.()

// Node 20 (V8 11): a process does not exit before V8 has finished compiling, in the background, all of
// the WebAssembly HTTP parser (llhttp) that undici loads with the first connection: about 150 ms added
// to the end of every run (benchmarks/startup). Compiled by Liftoff, V8's baseline WebAssembly
// compiler, only, the exit is at once, and events per second over loopback do not change (llhttp
// reads the headers and the body's framing; the event parser is JavaScript). V8 12 (Node 22) and
// later tier up only the functions that run hot and exit at once either way: there the flag is not set.
if (Number.parseInt(process.versions.v8, 10) < 12) require('node:v8').setFlagsFromString('--liftoff-only')

const { basename } = require('node:path')
const { main } = require('./cli/main')

main(process.argv.slice(2), { prog: basename(process.argv[1] ?? 'ssecat').replace(/\.js$/, '') })
