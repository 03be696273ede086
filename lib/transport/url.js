'use strict'

// What every transport, and the source, asks of a URL: whether a request can go to it, whether it holds
// credentials, and how it may be shown. Apart from lib/transport/redirect-policy-node.js, which a browser build
// does not load (package.json's "imports": lib/transport/redirect-policy-web.js there).

/**
 * Whether a URL's scheme is one a request can go to.
 * @param {URL} url
 */
function isHttpScheme (url) {
  return url.protocol === 'http:' || url.protocol === 'https:'
}

/**
 * Whether a URL includes credentials (the URL standard's "includes credentials").
 * @param {URL} url
 */
function includesCredentials (url) {
  return url.username !== '' || url.password !== ''
}

/**
 * The URL as it may be shown: in error messages and details, logs, a terminal. The password (and the
 * user name with it) must not travel further than the request does.
 * @param {URL} url
 * @returns {string}
 */
function displayHref (url) {
  if (!includesCredentials(url)) return url.href
  const shown = new URL(url.href)
  shown.username = ''
  shown.password = ''
  return shown.href
}

module.exports = { isHttpScheme, includesCredentials, displayHref }
