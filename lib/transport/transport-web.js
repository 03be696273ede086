// The transports where there is no undici (browsers, workers): package.json's "imports" maps
// `#transport` here for any runtime that does not match the `node` condition, and to lib/transport/transport-node.js,
// which documents the interface, for Node, Bun and Deno. Every attempt is made with a fetch: init.fetch,
// or the runtime's. init.dispatcher, an undici Dispatcher, has nothing to run on here and is ignored, so
// that code shared with Node may pass one.
//
// Until the application imports `whatwg-eventsource/extensions`, an init holds nothing but withCredentials
// and every request is the standard's (./request.js, standardRequest): StandardFetchAttempt sends it, and a
// bundle holds neither FetchAttempt nor its redirect rules. Once they are imported, the registry
// (lib/extension-registry.js) has FetchAttempt, which sends every request, the standard's included.

import { loadedExtension } from '../extension-registry.js'
import { StandardFetchAttempt } from './standard-fetch.js'

/**
 * @param {import('./request').EventSourceRequest} request
 * @param {import('./transport-node').TransportSink} sink
 * @returns {import('./transport-node').TransportAttempt}
 */
function createAttempt (request, sink) {
  const FetchAttempt = loadedExtension('fetch')
  if (FetchAttempt === null) return new StandardFetchAttempt(request, sink)
  // The runtime's fetch is looked up at each attempt, as Node's global dispatcher is: an application may
  // wrap it after the source was made.
  const fetch = request.transport.fetch
  if (fetch !== undefined) return new FetchAttempt(fetch, request, sink, true)
  return new FetchAttempt(globalThis.fetch, request, sink, false)
}

/**
 * No transport here is configured with a limit on events: the parser's default, or init.maxEventSize.
 * @returns {undefined}
 */
function transportMaxEventSize () {
  return undefined
}

export { createAttempt, transportMaxEventSize }
