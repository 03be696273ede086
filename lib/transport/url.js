// What every transport, and the source, asks of a URL: whether a request can go to it, whether it holds
// credentials, how it may be shown, and whether a redirect to it is one we refuse. Apart from
// ./redirect-policy-node.js, which a browser build does not load.

import { codes } from '../errors/connection.js'
const { ERR_EVENTSOURCE_INSECURE_REDIRECT } = codes

// Whether a URL's scheme is one a request can go to.
function isHttpScheme (url) {
  return url.protocol === 'http:' || url.protocol === 'https:'
}

// Whether a URL includes credentials (the URL standard's "includes credentials").
function includesCredentials (url) {
  return url.username !== '' || url.password !== ''
}

// The URL as it may be shown: in error messages and details, logs, a terminal. The password (and the
// user name with it) must not travel further than the request does.
function displayHref (url) {
  if (!includesCredentials(url)) return url.href
  const shown = new URL(url.href)
  shown.username = ''
  shown.password = ''
  return shown.href
}

// ERR_EVENTSOURCE_INSECURE_REDIRECT for a redirect from https: to http:, else null. Fetch follows them, but
// the request (its headers and body, or what comes back) would then go in clear text because a server said
// so: refused unless the user opts in (browsers block it as mixed content on secure pages).
function insecureRedirect (from, next, allowInsecureRedirect, details) {
  if (allowInsecureRedirect || from.protocol !== 'https:' || next.protocol !== 'http:') return null
  return new ERR_EVENTSOURCE_INSECURE_REDIRECT(displayHref(next), details)
}

export { isHttpScheme, includesCredentials, displayHref, insecureRedirect }
