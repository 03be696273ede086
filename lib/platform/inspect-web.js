'use strict'

// How error messages show a value where there is no node:util (browsers, workers): util.inspect's
// output for what those messages show (primitives, functions, arrays, plain and null-prototype objects,
// class instances), written on plain JavaScript. Other objects are shown by their class name only.
// test/platform-web.test.js compares it with util.inspect. Options: `depth` (2 by default; -1 shows an
// object by its name alone), as util.inspect takes it.

// Characters util.inspect escapes in a string: C0 controls, the quote, the backslash, DEL and C1 controls.
// eslint-disable-next-line no-control-regex -- control characters are what it matches
const ESCAPED = /[\x00-\x1f\x27\x5c\x7f-\x9f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g
const SHORT_ESCAPES = { '\b': '\\b', '\t': '\\t', '\n': '\\n', '\f': '\\f', '\r': '\\r', "'": "\\'", '\\': '\\\\' }
const IDENTIFIER = /^[a-zA-Z_][a-zA-Z_0-9]*$/

function escapeChar (char) {
  if (SHORT_ESCAPES[char] !== undefined) return SHORT_ESCAPES[char]
  const code = char.charCodeAt(0)
  // Lone surrogates as \uXXXX in lower case, other characters as \xXX in upper case, as util.inspect.
  return code > 0xff ? `\\u${code.toString(16)}` : `\\x${code.toString(16).toUpperCase().padStart(2, '0')}`
}

// Single quotes, unless the string has one and can do without: then double quotes, then backticks.
function quote (string) {
  let quoteChar = "'"
  if (string.includes("'")) {
    if (!string.includes('"')) quoteChar = '"'
    else if (!string.includes('`') && !string.includes('${')) quoteChar = '`'
  }
  const escaped = string.replace(ESCAPED, (char) => (char === "'" && quoteChar !== "'" ? char : escapeChar(char)))
  return `${quoteChar}${escaped}${quoteChar}`
}

function formatFunction (fn) {
  const source = Function.prototype.toString.call(fn)
  if (source.startsWith('class')) return `[class ${fn.name || '(anonymous)'}]`
  return fn.name ? `[Function: ${fn.name}]` : '[Function (anonymous)]'
}

function formatObject (object, depth) {
  if (Array.isArray(object)) {
    if (object.length === 0) return '[]'
    if (depth < 0) return '[Array]'
    return `[ ${object.map((item) => format(item, depth - 1)).join(', ')} ]`
  }
  const proto = Object.getPrototypeOf(object)
  const name = proto === null ? '[Object: null prototype]' : proto.constructor?.name ?? 'Object'
  const keys = Object.keys(object)
  const prefix = name === 'Object' ? '' : `${name} `
  if (keys.length === 0) return `${prefix}{}`
  if (depth < 0) return proto === null ? name : `[${name}]`
  const entries = keys.map((key) => `${IDENTIFIER.test(key) ? key : quote(key)}: ${format(object[key], depth - 1)}`)
  return `${prefix}{ ${entries.join(', ')} }`
}

function format (value, depth) {
  switch (typeof value) {
    case 'string': return quote(value)
    case 'number': return Object.is(value, -0) ? '-0' : `${value}`
    case 'bigint': return `${value}n`
    case 'symbol': return value.toString()
    case 'function': return formatFunction(value)
    case 'object': return value === null ? 'null' : formatObject(value, depth)
    default: return `${value}`
  }
}

/**
 * @param {unknown} value
 * @param {{ depth?: number }} [options]
 * @returns {string}
 */
function inspect (value, options) {
  return format(value, options?.depth ?? 2)
}

module.exports = { inspect }
