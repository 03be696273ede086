'use strict'

// The command line: node:util parseArgs, then every value checked and converted here, so that the
// rest of the CLI only sees valid settings. Anything wrong is a UsageError (exit status 2) whose
// message says what to type instead.

const { parseArgs } = require('node:util')
const { readFileSync } = require('node:fs')

class UsageError extends Error {}

const OPTIONS = {
  header: { type: 'string', short: 'H', multiple: true },
  method: { type: 'string', short: 'X' },
  data: { type: 'string', short: 'd' },
  idempotent: { type: 'boolean' },
  'last-event-id': { type: 'string' },
  'credential-header': { type: 'string', multiple: true },
  'allow-insecure-redirect': { type: 'boolean' },
  retry: { type: 'string' },
  backoff: { type: 'string' },
  'max-delay': { type: 'string' },
  jitter: { type: 'boolean' },
  'max-retries': { type: 'string' },
  'retry-on': { type: 'string', multiple: true },
  'idle-timeout': { type: 'string' },
  'connect-timeout': { type: 'string' },
  'max-event-size': { type: 'string' },
  once: { type: 'boolean' },
  type: { type: 'string', multiple: true },
  count: { type: 'string', short: 'n' },
  timeout: { type: 'string' },
  json: { type: 'boolean' },
  raw: { type: 'boolean' },
  quiet: { type: 'boolean', short: 'q' },
  verbose: { type: 'boolean', short: 'v' },
  proxy: { type: 'string' },
  cacert: { type: 'string' },
  insecure: { type: 'boolean', short: 'k' },
  http2: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'V' }
}

// Options that only make sense for an EventSource (events parsed, reconnections, redirects followed):
// refused with --raw rather than ignored.
const NOT_WITH_RAW = ['retry', 'backoff', 'max-delay', 'jitter', 'max-retries', 'retry-on', 'max-event-size',
  'type', 'count', 'json', 'credential-header', 'allow-insecure-redirect', 'http2', 'verbose', 'idempotent']
// --raw is one request anyway; --once with it is allowed and changes nothing.

// The --help sections: [flags, description] pairs, laid out in two columns.
const HELP = [
  ['Request', [
    ['-H, --header <name: value>', 'add a request header (repeatable)'],
    ['-X, --method <method>', 'request method (default GET, or POST with --data)'],
    ['-d, --data <data>', 'request body; @file reads a file, @- reads stdin'],
    ['    --idempotent', 'the request may be sent again: reconnect after a POST as after a GET'],
    ['    --last-event-id <id>', 'send Last-Event-ID with the first request'],
    ['    --credential-header <name>', 'do not send this header to another origin after a redirect (repeatable)'],
    ['    --allow-insecure-redirect', 'follow a redirect from https: to http:']
  ]],
  ['Reconnection (the server\'s "retry:" field replaces --retry)', [
    ['    --retry <time>', 'initial reconnection time (default 3s)'],
    ['    --backoff <factor>', 'multiply the delay by this after each failed attempt in a row (default 1)'],
    ['    --max-delay <time>', 'upper bound of the backed-off delay'],
    ['    --jitter', 'wait a random time between 0 and the delay'],
    ['    --max-retries <n>', 'fail after n reconnections in a row without an event (default: never)'],
    ['    --retry-on <statuses>', 'reconnect instead of failing on these statuses, e.g. 502,503,504,429'],
    ['    --idle-timeout <time>', 'reconnect when an open connection sends nothing for this long'],
    ['    --connect-timeout <time>', 'reconnect when no response arrives within this time'],
    ['    --max-event-size <size>', 'fail on an event larger than this (default 64M)'],
    ['    --once', 'no reconnection: exit 0 when the server ends the stream, 1 if it breaks']
  ]],
  ['Output', [
    ['    --type <type>', 'print only events of this type (repeatable)'],
    ['-n, --count <n>', 'exit after printing n events'],
    ['    --timeout <time>', 'exit after this time'],
    ['    --json', 'one JSON object per event: type, data, lastEventId, origin, time'],
    ['    --raw', 'print the response bytes as received, unescaped (one request, no parsing)'],
    ['-q, --quiet', 'no status lines (warnings and failures are still printed)'],
    ['-v, --verbose', 'also timings, request and response headers (credentials redacted), each attempt and the totals']
  ]],
  ['Network', [
    ['    --proxy <url>', 'use this proxy (default: HTTP_PROXY, HTTPS_PROXY and NO_PROXY)'],
    ['    --cacert <file>', 'trust the CA certificates in this PEM file instead of the built-in ones'],
    ['-k, --insecure', 'do not verify TLS certificates (unsafe)'],
    ['    --http2', 'use HTTP/2 when the server offers it (HTTP/1.1 otherwise); connects directly, not with --proxy']
  ]],
  ['Other', [
    ['-h, --help', 'show this help'],
    ['-V, --version', 'print the version']
  ]]
]

function helpText (prog) {
  const width = Math.max(...HELP.flatMap(([, rows]) => rows.map(([flags]) => flags.length))) + 2
  const sections = HELP.map(([title, rows]) =>
    `${title}:\n${rows.map(([flags, text]) => `  ${flags.padEnd(width)}${text}`).join('\n')}\n`)
  return `Usage: ${prog} [options] <url>

Prints the events of a server-sent events (text/event-stream) endpoint, one line per event.
Status lines (connecting, open, reconnecting, failed) go to stderr, so stdout stays pipeable.

${sections.join('\n')}
Times are milliseconds, or take a unit: 500ms, 30s, 5m, 1h. Sizes take k, M or G.
Exit status: 0 normal end (--count reached, --timeout, Ctrl-C), 1 connection failed, 2 usage error.
Colour only on a terminal; NO_COLOR=1 turns it off, FORCE_COLOR=1 turns it on.
Control characters, DEL, C1 and bidi controls from the server are printed escaped (\\x1b, \\u202e) on
stdout and stderr, and as \\u001b in --json; only the body bytes --raw copies to stdout are not.
`
}

// The known option a mistyped one most likely meant, for "did you mean": one that contains it
// (--retries: --max-retries), else the nearest within two edits (--jsn: --json).
function closestOption (name) {
  const candidates = Object.keys(OPTIONS)
  if (name.length >= 3) {
    const containing = candidates.find((candidate) => candidate.includes(name))
    if (containing !== undefined) return containing
  }
  let best = null
  let bestDistance = Math.min(3, name.length)
  for (const candidate of candidates) {
    const d = editDistance(name, candidate)
    if (d < bestDistance) {
      best = candidate
      bestDistance = d
    }
  }
  return best
}

function editDistance (a, b) {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1))
    }
    previous = current
  }
  return previous[b.length]
}

// parseArgs' messages are written for programmers; these say what to do on a command line.
function describeParseError (err) {
  const option = /'(-[^' ]*)/.exec(err.message)?.[1]
  switch (err.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION': {
      const suggestion = option?.startsWith('--') ? closestOption(option.slice(2)) : null
      return `unknown option '${option}'${suggestion === null ? '' : ` (did you mean --${suggestion}?)`}`
    }
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      if (/argument missing/.test(err.message)) return `option '${option}' needs a value`
      if (/does not take an argument/.test(err.message)) return `option '${option}' does not take a value`
      if (/ambiguous/.test(err.message)) {
        return `option '${option}' needs a value; to pass one that starts with '-', write ${option}=<value>`
      }
      return err.message
    default:
      return err.message
  }
}

const TIME_UNITS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }
const SIZE_UNITS = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 }

function parseTime (value, name, { min = 0 } = {}) {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(value.trim())
  const ms = match === null ? NaN : Math.round(Number(match[1]) * TIME_UNITS[match[2] ?? 'ms'])
  if (!(ms >= min) || !Number.isSafeInteger(ms)) {
    throw new UsageError(`--${name} must be a time such as 500, 500ms, 30s or 5m${min > 0 ? ' (more than 0)' : ''}; got '${value}'`)
  }
  return ms
}

function parseInteger (value, name, { min = 0 } = {}) {
  const n = /^\d+$/.test(value.trim()) ? Number(value) : NaN
  if (!(n >= min) || !Number.isSafeInteger(n)) {
    throw new UsageError(`--${name} must be a whole number of at least ${min}; got '${value}'`)
  }
  return n
}

function parseSize (value, name) {
  const match = /^(\d+)([kmg]?)i?b?$/i.exec(value.trim())
  const bytes = match === null ? NaN : Number(match[1]) * SIZE_UNITS[match[2].toLowerCase()]
  if (!(bytes >= 1) || !Number.isSafeInteger(bytes)) {
    throw new UsageError(`--${name} must be a size in bytes such as 65536, 64k or 16M; got '${value}'`)
  }
  return bytes
}

function parseFactor (value, name) {
  const n = /^\d+(?:\.\d+)?$/.test(value.trim()) ? Number(value) : NaN
  if (!(n >= 1 && n <= 1000)) throw new UsageError(`--${name} must be a number from 1 to 1000; got '${value}'`)
  return n
}

function parseStatuses (values) {
  const statuses = []
  for (const value of values) {
    for (const part of value.split(',')) {
      const status = /^\d{3}$/.test(part.trim()) ? Number(part) : NaN
      if (!(status >= 100 && status <= 599) || status === 200) {
        throw new UsageError(`--retry-on takes HTTP statuses from 100 to 599 other than 200, e.g. 502,503; got '${part}'`)
      }
      statuses.push(status)
    }
  }
  return statuses
}

// RFC 9110 token characters: what a header name or a method may be made of.
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/

function parseHeader (value) {
  const colon = value.indexOf(':')
  const name = colon === -1 ? '' : value.slice(0, colon).trim()
  if (!TOKEN.test(name)) {
    throw new UsageError(`--header takes 'Name: value', e.g. -H 'Authorization: Bearer TOKEN'; got '${value}'`)
  }
  const text = value.slice(colon + 1).trim()
  if (/[\r\n\0]/.test(text)) throw new UsageError(`the value of header ${name} must not contain CR, LF or NUL`)
  return [name, text]
}

function parseUrl (value, name, schemes) {
  let url
  try {
    url = new URL(value)
  } catch {
    url = null
  }
  if (url === null || !schemes.includes(url.protocol)) {
    const hint = /^[\w.-]+(:\d+)?(\/|$)/.test(value) ? ` (did you mean http://${value}?)` : ''
    const list = schemes.map((s) => `${s}//`).join(' or ')
    throw new UsageError(`${name} must start with ${list}; got '${value}'${hint}`)
  }
  return url
}

function readData (value, stdin) {
  if (!value.startsWith('@')) return Buffer.from(value, 'utf8')
  const file = value.slice(1)
  try {
    return readFileSync(file === '-' ? stdin : file)
  } catch (err) {
    throw new UsageError(`--data ${value}: cannot read ${file === '-' ? 'stdin' : `'${file}'`}: ${err.message}`)
  }
}

// What Content-Type the body goes with when no -H gives one: JSON when it is a JSON object or array
// (the usual LLM-style POST), else plain text.
function sniffContentType (body) {
  const text = body.toString('utf8').trim()
  if (text.startsWith('{') || text.startsWith('[')) {
    try {
      JSON.parse(text)
      return 'application/json'
    } catch {}
  }
  return 'text/plain;charset=UTF-8'
}

/**
 * @param {string[]} args the arguments after the script name
 * @param {{ stdin?: number | string }} [io] where `-d @-` reads from (a file descriptor or path)
 * @returns {object} the settings, or { help: true } / { version: true }
 */
function parseCommandLine (args, { stdin = 0 } = {}) {
  let parsed
  try {
    parsed = parseArgs({ args, options: OPTIONS, allowPositionals: true, strict: true })
  } catch (err) {
    if (typeof err.code === 'string' && err.code.startsWith('ERR_PARSE_ARGS')) throw new UsageError(describeParseError(err))
    throw err
  }
  const { values, positionals } = parsed
  if (values.help) return { help: true }
  if (values.version) return { version: true }

  if (positionals.length === 0) throw new UsageError('missing the URL to connect to')
  if (positionals.length > 1) {
    throw new UsageError(`expected one URL, got ${positionals.length}: ${positionals.map((p) => `'${p}'`).join(' ')}`)
  }
  const config = {
    url: parseUrl(positionals[0], 'the URL', ['http:', 'https:']).href,
    raw: values.raw === true,
    json: values.json === true,
    once: values.once === true,
    idempotent: values.idempotent === true,
    quiet: values.quiet === true,
    verbose: values.verbose === true,
    headers: [],
    credentialHeaders: [],
    allowInsecureRedirect: values['allow-insecure-redirect'] === true,
    method: 'GET',
    body: null,
    lastEventId: undefined,
    reconnect: {},
    idleTimeout: undefined,
    connectTimeout: undefined,
    maxEventSize: undefined,
    types: values.type === undefined ? null : new Set(values.type),
    count: undefined,
    timeout: undefined,
    proxy: undefined,
    cacert: undefined,
    insecure: values.insecure === true,
    http2: values.http2 === true
  }

  if (config.raw) {
    const conflicting = NOT_WITH_RAW.filter((name) => values[name] !== undefined)
    if (conflicting.length > 0) {
      throw new UsageError(`--raw prints bytes without parsing events, so it cannot be used with ${conflicting.map((n) => `--${n}`).join(', ')}`)
    }
  }

  if (config.verbose && config.quiet) throw new UsageError('--verbose and --quiet cannot be used together')

  for (const header of values.header ?? []) {
    const [name, value] = parseHeader(header)
    // EventSource sends Last-Event-ID itself; a header for it means "start from this ID".
    if (!config.raw && name.toLowerCase() === 'last-event-id') config.lastEventId = value
    else config.headers.push([name, value])
  }
  for (const name of values['credential-header'] ?? []) {
    if (!TOKEN.test(name)) throw new UsageError(`--credential-header takes a header name such as X-Api-Key; got '${name}'`)
    config.credentialHeaders.push(name)
  }
  if (values['last-event-id'] !== undefined) {
    if (/[\r\n\0]/.test(values['last-event-id'])) throw new UsageError('--last-event-id must not contain CR, LF or NUL')
    config.lastEventId = values['last-event-id']
  }
  if (values.data !== undefined) {
    config.body = readData(values.data, stdin)
    config.method = 'POST'
    if (!config.headers.some(([name]) => name.toLowerCase() === 'content-type')) {
      config.headers.push(['Content-Type', sniffContentType(config.body)])
    }
  }
  if (values.method !== undefined) {
    if (!TOKEN.test(values.method)) throw new UsageError(`--method must be an HTTP method such as GET or POST; got '${values.method}'`)
    config.method = values.method.toUpperCase()
    if (config.body !== null && (config.method === 'GET' || config.method === 'HEAD')) {
      throw new UsageError(`--data cannot be sent with ${config.method}; use -X POST (the default with --data)`)
    }
  }

  if (values.retry !== undefined) config.reconnect.delay = parseTime(values.retry, 'retry')
  if (values.backoff !== undefined) config.reconnect.factor = parseFactor(values.backoff, 'backoff')
  if (values['max-delay'] !== undefined) config.reconnect.maxDelay = parseTime(values['max-delay'], 'max-delay')
  if (values.jitter) config.reconnect.jitter = 'full'
  if (values['max-retries'] !== undefined) config.reconnect.maxRetries = parseInteger(values['max-retries'], 'max-retries')
  if (values['retry-on'] !== undefined) config.reconnect.retryOnStatus = parseStatuses(values['retry-on'])
  if (values['idle-timeout'] !== undefined) config.idleTimeout = parseTime(values['idle-timeout'], 'idle-timeout')
  if (values['connect-timeout'] !== undefined) config.connectTimeout = parseTime(values['connect-timeout'], 'connect-timeout')
  if (values['max-event-size'] !== undefined) config.maxEventSize = parseSize(values['max-event-size'], 'max-event-size')
  if (values.count !== undefined) config.count = parseInteger(values.count, 'count', { min: 1 })
  if (values.timeout !== undefined) config.timeout = parseTime(values.timeout, 'timeout', { min: 1 })

  if (values.proxy !== undefined) {
    // init.http2 has sessions of its own, which do not go through a proxy (see docs/http2.md).
    if (config.http2) throw new UsageError('--http2 connects directly, so it cannot be used with --proxy')
    config.proxy = parseUrl(values.proxy, '--proxy', ['http:', 'https:', 'socks5:', 'socks:']).href
  }
  if (values.cacert !== undefined) {
    try {
      config.cacert = readFileSync(values.cacert)
    } catch (err) {
      throw new UsageError(`--cacert: cannot read '${values.cacert}': ${err.message}`)
    }
    if (!config.cacert.includes('-----BEGIN CERTIFICATE-----')) {
      throw new UsageError(`--cacert: '${values.cacert}' holds no PEM certificate (-----BEGIN CERTIFICATE-----)`)
    }
  }
  return config
}

module.exports = { parseCommandLine, helpText, UsageError }
