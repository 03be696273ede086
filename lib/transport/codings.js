// The content codings the Dispatcher transport decodes (lib/transport/content-decoding.js), and how a
// request offers them. A fetch does both by itself.
// - gzip (and its alias x-gzip), deflate and br everywhere; zstd where the runtime's zlib has it (Node
//   22.15 and 23.8 on, which say so in process.versions.zstd), as undici 8's fetch and browsers since 2024
//   decode it.
// - Offered as fetch offers them, and browsers do: br and zstd only over https:, where no proxy or
//   middlebox in between can mangle what it does not know. Asked per hop: a redirect may change the
//   scheme.

const ZSTD = typeof globalThis.process?.versions?.zstd === 'string'

const OVER_HTTP = 'gzip, deflate'
const OVER_HTTPS = ZSTD ? 'br, gzip, deflate, zstd' : 'br, gzip, deflate'

// The Accept-Encoding a request to `url` offers.
function acceptEncoding (url) {
  return url.protocol === 'https:' ? OVER_HTTPS : OVER_HTTP
}

// Whether a content coding (lower-cased) is one that is decoded here.
function isDecoded (coding) {
  return coding === 'gzip' || coding === 'x-gzip' || coding === 'deflate' || coding === 'br' ||
    (ZSTD && coding === 'zstd')
}

export { acceptEncoding, isDecoded }
