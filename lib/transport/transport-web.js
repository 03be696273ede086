// The transports where there is no undici (browsers, workers), one per build of the EventSource: the
// interface is ./transport-node.js's. Every attempt is made with a fetch.
// - standardTransport (lib/entries/web-eventsource.js): every request is the standard's; StandardFetchAttempt
//   sends it, and a bundle holds neither FetchAttempt nor its redirect rules.
// - fetchTransport (with the extensions): FetchAttempt sends every request, with init.fetch or the runtime's
//   fetch. init.dispatcher has nothing to run on here and is ignored, so that code shared with Node may pass one.
// Neither is configured with a limit on events: the parser's default, or init.maxEventSize.

import { StandardFetchAttempt } from './standard-fetch.js'
import { FetchAttempt } from './fetch-transport.js'
import { RedirectPolicy, isRedirect, fetchRedirects } from './redirect-policy-web.js'

// FetchAttempt's redirect rules here: the runtime's fetch follows every redirect itself, and these keep
// credentials to their origin (an object of the functions rather than the module's namespace, which a
// bundle would build whole).
const webRedirects = { RedirectPolicy, isRedirect, fetchRedirects }

function noMaxEventSize () {
  return undefined
}

const standardTransport = {
  createAttempt (request, sink) {
    return new StandardFetchAttempt(request, sink)
  },
  maxEventSize: noMaxEventSize
}

const fetchTransport = {
  createAttempt (request, sink) {
    // The runtime's fetch is looked up at each attempt, as Node's global dispatcher is: an application may
    // wrap it after the source was made.
    const fetch = request.transport.fetch
    if (fetch !== undefined) return new FetchAttempt(fetch, request, sink, true, webRedirects)
    return new FetchAttempt(globalThis.fetch, request, sink, false, webRedirects)
  },
  maxEventSize: noMaxEventSize
}

export { standardTransport, fetchTransport }
