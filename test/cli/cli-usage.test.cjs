'use strict'

// The CLI's command line: --help, --version, and exit status 2 with a message that says what to do
// for every kind of usage error. None of these may connect anywhere: the URLs point at a closed port
// with --max-retries 0, so an error that slipped through would show up as exit status 1.

const t = require('tap')
const { runCli } = require('../helpers/index.cjs')
const pkg = require('../../package.json')
const { parseCommandLine, UsageError } = require('../../bin/cli/options')

const NOWHERE = 'http://127.0.0.1:9/events'

t.test('--help prints the usage on stdout and exits 0', async (t) => {
  for (const flag of ['--help', '-h']) {
    const { code, stdout, stderr } = await runCli(t, [flag]).exited()
    t.equal(code, 0, flag)
    t.match(stdout, /^Usage: ssecat \[options\] <url>/, flag)
    for (const option of ['--header', '--data', '--count', '--json', '--raw', '--proxy', '--insecure']) {
      t.match(stdout, option, `${flag} lists ${option}`)
    }
    t.match(stdout, /Exit status: 0 .*1 .*2 usage error/)
    t.equal(stderr, '')
  }
})

t.test('--version prints the package version', async (t) => {
  for (const flag of ['--version', '-V']) {
    const { code, stdout } = await runCli(t, [flag]).exited()
    t.equal(code, 0)
    t.equal(stdout, `${pkg.version}\n`)
  }
})

// [arguments, what the message must say]. Checked in-process against the parser: spawning a process
// for each would cost more than all the other CLI tests.
const USAGE_ERRORS = [
  [['--retries', '3', NOWHERE], /unknown option '--retries' \(did you mean --max-retries\?\)/],
  [['--jsn', NOWHERE], /unknown option '--jsn' \(did you mean --json\?\)/],
  [['-Z', NOWHERE], /unknown option '-Z'$/],
  [[], /missing the URL/],
  [['-q'], /missing the URL/],
  [[NOWHERE, NOWHERE], /expected one URL, got 2/],
  [['localhost:8080/events'], /the URL must start with http:\/\/ or https:\/\/.*did you mean http:\/\/localhost:8080\/events\?/],
  [['ftp://127.0.0.1/events'], /the URL must start with http:\/\/ or https:\/\//],
  [['--count', 'abc', NOWHERE], /--count must be a whole number of at least 1; got 'abc'/],
  [['--count', '0', NOWHERE], /--count must be a whole number of at least 1/],
  [['--max-retries', '2.5', NOWHERE], /--max-retries must be a whole number/],
  [['--max-retries', '-1', NOWHERE], /option '--max-retries' needs a value; to pass one that starts with '-', write --max-retries=<value>/],
  [['--retry', '1x', NOWHERE], /--retry must be a time such as 500, 500ms, 30s or 5m; got '1x'/],
  [['--timeout', '0', NOWHERE], /--timeout must be a time .*more than 0/],
  [['--idle-timeout', 'soon', NOWHERE], /--idle-timeout must be a time/],
  [['--backoff', '0.5', NOWHERE], /--backoff must be a number from 1 to 1000/],
  [['--retry-on', '502,200', NOWHERE], /--retry-on takes HTTP statuses.*got '200'/],
  [['--max-event-size', '12q', NOWHERE], /--max-event-size must be a size/],
  [[NOWHERE, '--timeout'], /option '--timeout' needs a value/],
  [['--json=yes', NOWHERE], /option '--json' does not take a value/],
  [['-H', 'NoColon', NOWHERE], /--header takes 'Name: value'.*got 'NoColon'/],
  [['-H', 'Bad Name: x', NOWHERE], /--header takes 'Name: value'/],
  [['-H', ': value', NOWHERE], /--header takes 'Name: value'/],
  [['-X', 'GET', '-d', 'x', NOWHERE], /--data cannot be sent with GET/],
  [['-X', 'NOT A METHOD', NOWHERE], /--method must be an HTTP method/],
  [['--raw', '--json', '--count', '2', NOWHERE], /--raw .* cannot be used with --count, --json/],
  [['--raw', '--allow-insecure-redirect', NOWHERE], /--raw .* cannot be used with --allow-insecure-redirect/],
  [['--raw', '-d', 'x', '--idempotent', NOWHERE], /--raw .* cannot be used with --idempotent/],
  [['--credential-header', 'X Key', NOWHERE], /--credential-header takes a header name/],
  [['--proxy', 'proxy.local:3128', NOWHERE], /--proxy must start with http:\/\//],
  [['--cacert', '/nonexistent/ca.pem', NOWHERE], /--cacert: cannot read '\/nonexistent\/ca.pem'/],
  [['--cacert', __filename, NOWHERE], /holds no PEM certificate/],
  [['-d', '@/nonexistent/body.json', NOWHERE], /--data @\/nonexistent\/body.json: cannot read/]
]

t.test('the parser refuses bad command lines with a message that says what to type', async (t) => {
  for (const [args, message] of USAGE_ERRORS) {
    t.throws(() => parseCommandLine(args), { constructor: UsageError, message }, `ssecat ${args.join(' ')}`)
  }
})

t.test('the parser turns options into library settings', async (t) => {
  const config = parseCommandLine(['--retry', '2s', '--backoff', '1.5', '--max-delay', '1m', '--jitter',
    '--max-retries', '4', '--retry-on', '502,503', '--retry-on', '429', '--idle-timeout', '30s',
    '--connect-timeout', '500ms', '--max-event-size', '64k', '--timeout', '1h', '-n', '3',
    '--type', 'a', '--type', 'b', '-H', 'X-A: 1', '-H', 'last-event-id: 7', '--once',
    '--credential-header', 'X-A', '--allow-insecure-redirect', '--idempotent', NOWHERE])
  t.same(config.reconnect, { delay: 2000, factor: 1.5, maxDelay: 60000, jitter: 'full', maxRetries: 4, retryOnStatus: [502, 503, 429] })
  t.equal(config.idleTimeout, 30000)
  t.equal(config.connectTimeout, 500)
  t.equal(config.maxEventSize, 65536)
  t.equal(config.timeout, 3600000)
  t.equal(config.count, 3)
  t.same([...config.types], ['a', 'b'])
  // A Last-Event-ID header means "start from this ID": EventSource manages the header itself.
  t.same(config.headers, [['X-A', '1']])
  t.equal(config.lastEventId, '7')
  t.equal(config.url, NOWHERE)
  t.equal(config.once, true)
  t.same(config.credentialHeaders, ['X-A'])
  t.equal(config.allowInsecureRedirect, true)
  t.equal(config.idempotent, true)
  t.equal(parseCommandLine([NOWHERE]).idempotent, false)
})

// End to end: what a user sees for each kind of usage error (and for a value only the library refuses).
const SPAWNED = [
  [['--retries', '3', NOWHERE], /^ssecat: unknown option '--retries' \(did you mean --max-retries\?\)\n/],
  [[], /^ssecat: missing the URL to connect to\n/],
  [['--count', 'many', NOWHERE], /^ssecat: --count must be a whole number of at least 1; got 'many'\n/],
  [['-H', 'Authorization Bearer x', NOWHERE], /^ssecat: --header takes 'Name: value'/],
  [['-H', 'Content-Length: 3', '--max-retries', '0', NOWHERE], /^ssecat: .*must not set Content-Length/]
]

t.test('usage errors exit 2 with the message on stderr', async (t) => {
  const runs = SPAWNED.map(([args]) => runCli(t, args).exited())
  for (const [i, result] of (await Promise.all(runs)).entries()) {
    const [args, message] = SPAWNED[i]
    const name = `ssecat ${args.join(' ')}`
    t.equal(result.code, 2, `${name}: exit status`)
    t.match(result.stderr, message, `${name}: message`)
    t.match(result.stderr, /\nRun 'ssecat --help' for the options\.\n$/, `${name}: points to --help`)
    t.notMatch(result.stderr, /^\s+at /m, `${name}: no stack trace`)
    t.notMatch(result.stderr, /connecting/, `${name}: no connection attempted`)
    t.equal(result.stdout, '', `${name}: nothing on stdout`)
  }
})
