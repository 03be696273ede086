'use strict'

// What the CLI prints. Events go to stdout, one line each (human form) or one JSON object each
// (--json); status lines, warnings and failures go to stderr.
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

// Control characters a server could use to move the cursor, retitle the window or hide text in a
// terminal: C0 except tab, DEL and C1. The human form shows them as \xNN; --json escapes them anyway.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\x00-\x08\x0a-\x1f\x7f-\x9f]/g

function visible (text) {
  return text.replace(CONTROL, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`)
}

/**
 * The human form: `[type #id] data`, further data lines indented under the first.
 * @param {MessageEvent} event
 * @param {(style: string, text: string) => string} paint
 */
function formatEvent (event, paint) {
  const type = visible(event.type)
  const id = visible(event.lastEventId)
  const head = id === '' ? `[${type}]` : `[${type} #${id}]`
  const painted = id === '' ? `[${paint('cyan', type)}]` : `[${paint('cyan', type)} ${paint('dim', `#${id}`)}]`
  const lines = event.data.split('\n')
  let text = `${painted} ${visible(lines[0])}`
  const indent = ' '.repeat(head.length + 1)
  for (let i = 1; i < lines.length; i++) text += `\n${indent}${visible(lines[i])}`
  return `${text}\n`
}

/**
 * The --json form: one object per line.
 * @param {MessageEvent} event
 */
function formatJson (event) {
  return `${JSON.stringify({
    type: event.type,
    data: event.data,
    lastEventId: event.lastEventId,
    origin: event.origin,
    // When the event was dispatched (Event#timeStamp counts from the process's time origin).
    time: new Date(performance.timeOrigin + event.timeStamp).toISOString()
  })}\n`
}

/**
 * Status lines, warnings and failures on stderr.
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
      if (!quiet) write(`${paint(style, `* ${text}`)}\n`)
    },
    /** A failure: always shown. */
    failure (text) {
      write(`${paint('red', `* ${text}`)}\n`)
    },
    /** A warning: always shown. */
    warning (text) {
      write(`${paint('bold', paint('red', `${prog}: WARNING: ${text}`))}\n`)
    }
  }
}

module.exports = { colorEnabled, painter, formatEvent, formatJson, createReporter, visible }
