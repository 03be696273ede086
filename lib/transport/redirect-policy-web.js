// The redirect policy of the fetch transport where the runtime's fetch follows every redirect itself and
// hides them from code: browsers and workers (lib/transport/transport-web.js). Redirects are the browser's
// business there, by its own rules (credentials, CORS, mixed content); what remains ours is what
// lib/transport/redirect-policy-node.js does around the hops:
// - the request's credentials are not sent to another origin than the source URL's, when a reconnection
//   goes straight to a final URL there;
// - a fetch that followed redirects from https: to http: fails the connection unless allowInsecureRedirect.
// Not here (docs/browser.md): credentials in the URL are never used (a browser's fetch() refuses a URL
// that holds them), and no Origin header is added (a browser sends its own).

import { displayHref, insecureRedirect } from './url.js'

// As in redirect-policy-node.js: sent only to the origin they were meant for.
const CREDENTIAL_HEADERS = ['authorization', 'cookie', 'proxy-authorization']

// Who follows redirects: the fetch, always.
function fetchRedirects () {
  return { redirect: 'follow', withinOrigin: false }
}

// Whether a response is a redirect for the policy to follow: never, since the fetch follows them.
function isRedirect () {
  return false
}

// redirect-policy-node.js's RedirectPolicy, for an attempt whose fetch follows redirects.
class RedirectPolicy {
  // A fetch that follows redirects keeps the method and the body, and may go to any origin.
  withinOrigin = false
  method
  body
  #url
  #headers
  #credentialOrigin
  #credentialHeaders
  #allowInsecureRedirect

  /** @param {import('./request').EventSourceRequest} request */
  constructor (request) {
    this.#url = new URL(request.url)
    this.method = request.method
    this.body = request.body
    this.#headers = request.headers
    this.#credentialOrigin = request.credentialOrigin
    this.#credentialHeaders = request.credentialHeaders
    this.#allowInsecureRedirect = request.allowInsecureRedirect
  }

  get url () {
    return this.#url
  }

  get displayUrl () {
    return displayHref(this.#url)
  }

  /** The headers to send: without the credentials when the request goes to another origin than theirs. */
  hopHeaders () {
    const headers = { ...this.#headers }
    if (this.#url.origin !== this.#credentialOrigin) {
      for (const name of CREDENTIAL_HEADERS) delete headers[name]
      for (const name of this.#credentialHeaders) delete headers[name]
    }
    return headers
  }

  /** The fetch followed redirects to `href`: ERR_EVENTSOURCE_INSECURE_REDIRECT from https: to http:, or null. */
  followedTo (href) {
    const from = this.#url
    const next = this.#url = new URL(href)
    return insecureRedirect(from, next, this.#allowInsecureRedirect, { url: displayHref(from) })
  }

  /** A 401 is the response: the URL's credentials are not used here (see above). */
  answerChallenge () {
    return false
  }

  release () {}
}

export { RedirectPolicy, isRedirect, fetchRedirects }
