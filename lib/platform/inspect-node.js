'use strict'

// How error messages show a value, on Node, Bun and Deno: util.inspect itself. package.json's "imports"
// maps `#inspect` here for the `node` condition, and to lib/platform/inspect-web.js elsewhere.

const { inspect } = require('node:util')

module.exports = { inspect }
