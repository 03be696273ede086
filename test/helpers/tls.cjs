'use strict'

// The one TLS key pair of the tests: a self-signed certificate for 127.0.0.1 and localhost, valid until
// 2126, in test/fixtures/tls (see the README there for how it was made). It protects nothing.

const fs = require('node:fs')
const path = require('node:path')

const DIR = path.join(__dirname, '..', 'fixtures', 'tls')
const KEY_FILE = path.join(DIR, 'key.pem')
const CERT_FILE = path.join(DIR, 'cert.pem')

/**
 * The key and certificate (Buffers, for https.createServer and undici's `connect: { ca }`) and the
 * certificate's path (for the CLI's --cacert).
 */
function tlsFixture () {
  return { key: fs.readFileSync(KEY_FILE), cert: fs.readFileSync(CERT_FILE), certFile: CERT_FILE }
}

module.exports = { tlsFixture }
