// The content codings the Dispatcher transport decodes (./content-decoding.js), and how a request offers
// them (a fetch does both by itself): gzip (x-gzip), deflate and br, and zstd where the runtime's zlib has
// it (process.versions.zstd). br and zstd are offered only over https:, as fetch and browsers do, where no
// middlebox in between can mangle what it does not know; asked per hop, since a redirect may change the
// scheme.

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
