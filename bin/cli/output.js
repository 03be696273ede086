'use strict'

// What the CLI prints. Events go to stdout, one line each (human form) or one JSON object each
// (--json); status lines, warnings and failures go to stderr. Nothing a server sent reaches either
// unescaped (escapeControls below), but for the body bytes that --raw copies on purpose.
//
// Colour is decided per stream: never when NO_COLOR is set to anything but the empty string
// (https://no-color.org); else always when FORCE_COLOR is set to anything but "0" or "false"; else
// only when the stream is a terminal and TERM is not "dumb".

const STYLES = {
  bold: ['\x1b[1m', '\x1b[22m'],
  dim: ['\x1b[2m', '\x1b[22m'],
  red: ['\x1b[31m', '\x1b[39m'],
  green: ['\x1b[32m', '\x1b[39m'],
  yellow: ['\x1b[33m', '\x1b[39m'],
  cyan: ['\x1b[36m', '\x1b[39m']
}

/**
 * @param {{ isTTY?: boolean }} stream
 * @param {Record<string, string | undefined>} env
 */
function colorEnabled (stream, env) {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false
  if (env.FORCE_COLOR !== undefined) return env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false'
  return stream.isTTY === true && env.TERM !== 'dumb'
}

/** A function painting text in one of STYLES, or leaving it as it is when colour is off. */
function painter (enabled) {
  if (!enabled) return (style, text) => text
  return (style, text) => `${STYLES[style][0]}${text}${STYLES[style][1]}`
}

// escapeControls() is the one escaping function of the CLI. Everything a server controls (event type,
// ID and data, status text, header values, redirect targets, error messages and their causes) goes
// through it before it is written, on stdout and on stderr alike, so that a server cannot move the
// cursor, clear the screen, retitle the window, ring the bell, hide text or reorder it in the terminal
// of the person running the CLI. Escaped:
//   C0 controls but tab (U+0000-U+0008, U+000A-U+001F): ESC starts CSI and OSC sequences, CR returns
//     to the start of the line, BS moves back over what was printed. A newline that the output keeps
//     (between data lines, between the lines of a message) is split off first (escapeLines).
//   DEL (U+007F) and the C1 controls (U+0080-U+009F): U+009B is CSI and U+009D is OSC on terminals
//     that honour 8-bit controls, U+0085 is a line break to some.
//   the Unicode bidi controls (U+061C, U+200E, U+200F, U+202A-U+202E, U+2066-U+2069), which reorder
//     the text around them ("Trojan Source", CVE-2021-42574), and the line and paragraph separators
//     U+2028 and U+2029, which editors, log viewers and pre-2019 JavaScript take for line breaks.
// Tab is kept: it only moves to the next tab stop.
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\x00-\x08\x0a-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g

const hex = (code, width) => code.toString(16).padStart(width, '0')
// For people: \x1b below U+0100, as C and JavaScript write them, \u202e above.
const textEscape = (c) => {
  const code = c.charCodeAt(0)
  return code < 0x100 ? `\\x${hex(code, 2)}` : `\\u${hex(code, 4)}`
}
// For JSON: \u007f, which JSON.parse turns back into the same character.
const jsonEscape = (c) => `\\u${hex(c.charCodeAt(0), 4)}`

/**
 * Escapes the characters above. 'text' writes them as \xNN (below U+0100) or \uNNNN, for the human
 * forms; a backslash the server sent is left as it is, so only --json is unambiguous. 'json' is for
 * text that JSON.stringify produced: it has escaped C0 already, and the characters left can only be
 * inside its strings, where \uNNNN keeps the JSON valid and parses back to the same string.
 * @param {string} text
 * @param {'text' | 'json'} [form]
 * @returns {string}
 */
function escapeControls (text, form = 'text') {
  return text.replace(UNSAFE, form === 'json' ? jsonEscape : textEscape)
}

/**
 * Text of several lines: each line escaped, the newlines kept, every line after the first indented
 * so that a server cannot start a line of its own (a fake "* open" or event line) at the margin.
 * @param {string} text
 * @param {string} indent
 */
function escapeLines (text, indent) {
  const lines = text.split('\n')
  let escaped = escapeControls(lines[0])
  for (let i = 1; i < lines.length; i++) escaped += `\n${indent}${escapeControls(lines[i])}`
  return escaped
}

/**
 * The human form: `[type #id] data`, further data lines indented under the first.
 * @param {MessageEvent} event
 * @param {(style: string, text: string) => string} paint
 */
function formatEvent (event, paint) {
  const type = escapeControls(event.type)
  const id = escapeControls(event.lastEventId)
  const head = id === '' ? `[${type}]` : `[${type} #${id}]`
  const painted = id === '' ? `[${paint('cyan', type)}]` : `[${paint('cyan', type)} ${paint('dim', `#${id}`)}]`
  return `${painted} ${escapeLines(event.data, ' '.repeat(head.length + 1))}\n`
}

/**
 * The --json form: one object per line, escaped as escapeControls() says.
 * @param {MessageEvent} event
 */
function formatJson (event) {
  return `${escapeControls(JSON.stringify({
    type: event.type,
    data: event.data,
    lastEventId: event.lastEventId,
    origin: event.origin,
    // When the event was dispatched (Event#timeStamp counts from the process's time origin).
    time: new Date(performance.timeOrigin + event.timeStamp).toISOString()
  }), 'json')}\n`
}

// A message on stderr: its own lines indented under the first, after "* " or "prog: ".
const MESSAGE_INDENT = '  '

/**
 * Status lines, warnings and failures on stderr. Every text is escaped here, whoever built it: a
 * library error message quotes the status text, a Content-Type or a redirect target.
 * @param {NodeJS.WritableStream & { isTTY?: boolean }} stream
 * @param {{ quiet: boolean, prog: string, env: Record<string, string | undefined> }} options
 */
function createReporter (stream, { quiet, prog, env }) {
  const paint = painter(colorEnabled(stream, env))
  const write = (text) => {
    // stderr going away (a closed pipe) must not crash the CLI.
    try {
      stream.write(text)
    } catch {}
  }
  return {
    /** A status line; --quiet hides it. */
    status (text, style = 'dim') {
      if (!quiet) write(`${paint(style, `* ${escapeLines(text, MESSAGE_INDENT)}`)}\n`)
    },
    /** A failure: always shown. */
    failure (text) {
      write(`${paint('red', `* ${escapeLines(text, MESSAGE_INDENT)}`)}\n`)
    },
    /** A warning: always shown. */
    warning (text) {
      write(`${paint('bold', paint('red', `${prog}: WARNING: ${escapeLines(text, MESSAGE_INDENT)}`))}\n`)
    }
  }
}

module.exports = { colorEnabled, painter, escapeControls, escapeLines, MESSAGE_INDENT, formatEvent, formatJson, createReporter }
