'use strict'

// The network options: --proxy (undici ProxyAgent), the proxy environment variables (undici
// EnvHttpProxyAgent, NO_PROXY honoured), --cacert and --insecure (warned about, always), and the
// redirect safeguards (--credential-header, --allow-insecure-redirect).

const t = require('tap')
const { runCli, serve, tlsFixture, proxyServer, sse } = require('../helpers/index.cjs')

const oneEvent = (req, res) => sse(res, 'data: through\n\n', { end: false })

t.test('--proxy tunnels the request through the proxy', async (t) => {
  const srv = await serve(t, oneEvent)
  const px = await proxyServer(t)
  const { code, stdout, stderr } = await runCli(t, ['--proxy', px.url, '-n', '1', srv.url()]).exited()
  t.equal(code, 0)
  t.equal(stdout, '[message] through\n')
  t.same(px.seen.map((r) => [r.method, r.target]), [['CONNECT', new URL(srv.origin).host]])
  t.match(stderr, `* connecting to ${srv.url()} via ${px.url}/\n`)
})

t.test('HTTP_PROXY is used when --proxy is not given', async (t) => {
  const srv = await serve(t, oneEvent)
  const px = await proxyServer(t)
  const { code, stdout, stderr } = await runCli(t, ['-n', '1', srv.url()], { env: { HTTP_PROXY: px.url } }).exited()
  t.equal(code, 0)
  t.equal(stdout, '[message] through\n')
  t.same(px.seen.map((r) => [r.method, r.target]), [['CONNECT', new URL(srv.origin).host]])
  t.match(stderr, 'via HTTP_PROXY')
})

t.test('NO_PROXY keeps a host away from the proxy', async (t) => {
  const srv = await serve(t, oneEvent)
  const px = await proxyServer(t)
  const env = { http_proxy: px.url, NO_PROXY: 'localhost,127.0.0.1' }
  const { code, stdout } = await runCli(t, ['-n', '1', srv.url()], { env }).exited()
  t.equal(code, 0)
  t.equal(stdout, '[message] through\n')
  t.same(px.seen, [], 'the proxy saw nothing')
  t.equal(srv.requests.length, 1)
})

t.test('--proxy wins over the environment', async (t) => {
  const srv = await serve(t, oneEvent)
  const chosen = await proxyServer(t)
  const other = await proxyServer(t)
  const { code } = await runCli(t, ['--proxy', chosen.url, '-n', '1', srv.url()], { env: { HTTP_PROXY: other.url } }).exited()
  t.equal(code, 0)
  t.same(chosen.seen.map((r) => r.method), ['CONNECT'])
  t.same(other.seen, [])
})

t.test('https with a self-signed certificate fails without --cacert', async (t) => {
  const srv = await serve(t, oneEvent, { tls: tlsFixture() })
  const { code, stdout, stderr } = await runCli(t, ['--max-retries', '0', srv.url()]).exited()
  t.equal(code, 1)
  t.equal(stdout, '')
  t.match(stderr, /\* failed: .*(self[- ]signed|certificate)/i)
})

t.test('--cacert trusts the given certificate', async (t) => {
  const srv = await serve(t, oneEvent, { tls: tlsFixture() })
  const { code, stdout, stderr } = await runCli(t, ['--cacert', tlsFixture().certFile, '-n', '1', srv.url()]).exited()
  t.equal(code, 0)
  t.equal(stdout, '[message] through\n')
  t.notMatch(stderr, 'WARNING')
})

t.test('--insecure connects anyway, with a warning that --quiet does not hide', async (t) => {
  const srv = await serve(t, oneEvent, { tls: tlsFixture() })
  const { code, stdout, stderr } = await runCli(t, ['-k', '-q', '-n', '1', srv.url()]).exited()
  t.equal(code, 0)
  t.equal(stdout, '[message] through\n')
  t.match(stderr, /^ssecat: WARNING: --insecure: TLS certificates are NOT verified/)
})

// Redirects are followed by the library; these two options map onto its redirect safeguards.
const redirectTo = (target) => (req, res) => {
  res.writeHead(307, { location: target })
  res.end()
}

t.test('--credential-header keeps a header from another origin after a redirect', async (t) => {
  const to = await serve(t, oneEvent)
  const from = await serve(t, redirectTo(to.url('/moved')))
  const { code, stdout } = await runCli(t, ['-H', 'X-Api-Key: k3y', '-H', 'X-Trace: 1',
    '--credential-header', 'x-api-key', '-n', '1', from.url()]).exited()
  t.equal(code, 0)
  t.equal(stdout, '[message] through\n')
  t.equal(from.requests[0].headers['x-api-key'], 'k3y')
  t.equal(to.requests[0].headers['x-api-key'], undefined, 'not sent to the other origin')
  t.equal(to.requests[0].headers['x-trace'], '1', 'other headers are')
})

t.test('https: to http: redirects fail unless --allow-insecure-redirect', async (t) => {
  const plain = await serve(t, oneEvent)
  const secure = await serve(t, redirectTo(plain.url('/plain')), { tls: tlsFixture() })
  let result = await runCli(t, ['--cacert', tlsFixture().certFile, secure.url()]).exited()
  t.equal(result.code, 1)
  t.match(result.stderr, /\* failed: The server redirected from https: to http:.*\(ERR_EVENTSOURCE_INSECURE_REDIRECT\)/)
  t.equal(plain.requests.length, 0)
  result = await runCli(t, ['--cacert', tlsFixture().certFile, '--allow-insecure-redirect', '-n', '1', secure.url()]).exited()
  t.equal(result.code, 0)
  t.equal(result.stdout, '[message] through\n')
})

t.test('a URL with credentials: the challenge is answered, and the password is never printed', async (t) => {
  const srv = await serve(t, (req, res) => {
    if (req.headers.authorization === undefined) res.writeHead(401, { 'www-authenticate': 'Basic realm="x"' }).end()
    else sse(res, 'data: through\n\n', { end: false })
  })
  const url = srv.url().replace('http://', 'http://user:s3cret@')
  const { code, stdout, stderr } = await runCli(t, ['-n', '1', url]).exited()
  t.equal(code, 0)
  t.equal(stdout, '[message] through\n')
  t.match(stderr, `* connecting to ${srv.url()}\n`)
  t.notMatch(stderr, 's3cret')
})
