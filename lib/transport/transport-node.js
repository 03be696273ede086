// The seam between an EventSource and the network. An EventSource describes each attempt as one
// immutable request (lib/transport/request.js) and hands it to a transport, which sends it, follows its
// redirects, decodes its body, and reports back to the source's sink. The transport knows nothing of
// event streams (fields, Content-Type, readyState); the source knows nothing of sockets.
//
// A transport is chosen per attempt by createAttempt() below, from the request's `transport` (the
// init's fetch, dispatcher and http2): docs/transports.md says which is chosen when.
//
// The attempt (what createAttempt returns):
//   start()    sends the request; reports begin after start() has returned, or during it
//   pause()    stop delivering body bytes until resume(), and stop reading them (backpressure)
//   resume()
//   abort()    ends the attempt at once and releases its connection: nothing is reported after it
//   setSink(sink)  the reports from now on go to `sink` (a source hands a response it does not take to
//              the reader of its body, lib/transport/error-body.js)
//
// The sink (what the transport reports to), in this order:
//   opened(response)     once, for the final response of the attempt (after redirects and
//                        authentication), whatever its status. The sink that does not want the body
//                        calls abort() from there, or setSink() for another sink to take the reports below.
//   data(chunk)          body bytes (decoded), any number of times, never before opened()
//   then at most one of:
//   ended()              the body ended: the standard's "reestablish the connection"
//   networkError(error)  a network error, before or after opened(): "reestablish the connection"
//   failed(error)        an error that retrying would only meet again (an invalid redirect, a
//                        redirect loop, a body it will not decode): "fail the connection"
// Errors are the package's (lib/errors/index.js), with the details the error event shows (status, url...).

import { DispatcherAttempt } from './dispatcher-transport.js'
import { globalDispatcher, dispatcherMaxEventSize } from './dispatchers.js'
import { FetchAttempt } from './fetch-transport.js'
import { RedirectPolicy, isRedirect, fetchRedirects } from './redirect-policy-node.js'
import { http2Dispatcher } from './http2-sessions.js'

/**
 * @typedef {object} TransportResponse
 * @property {number} status
 * @property {string} statusText
 * @property {Record<string, string>} headers lower-case names, repeated headers joined with ", "
 * @property {string} url the final URL, after redirects (credentials included, when it has them)
 * @property {string | null} method the method of the final request (a redirect may have made it a
 *   GET); null when the transport cannot know it (a fetch that followed redirects by itself): the next
 *   attempt then starts again from the first URL
 */

// The sink and the attempt, as the header describes them.
/** @typedef {{ opened(response: TransportResponse): void, data(chunk: Uint8Array): void, ended(): void,
 *   networkError(error: Error): void, failed(error: Error): void }} TransportSink */
/** @typedef {{ start(): void, pause(): void, resume(): void, abort(): void,
 *   setSink(sink: TransportSink): void }} TransportAttempt */

// The attempt that sends `request`, not yet started.
function createAttempt (request, sink) {
  const transport = request.transport
  if (transport.fetch !== undefined) return fetchAttempt(transport.fetch, request, sink, true)
  // Nothing chosen, and globalThis.fetch is not the runtime's own: a program put a fetch there (a test's
  // mock: msw, nock, a stub; a framework's wrapper), and requests go through it, as a fetch's would.
  if (transport.dispatcher === undefined && transport.http2 === null && fetchReplaced()) {
    return fetchAttempt(globalThis.fetch, request, sink, false)
  }
  const dispatcher = dispatcherFor(transport)
  if (dispatcher === null) return fetchAttempt(globalThis.fetch, request, sink, false)
  return new DispatcherAttempt(dispatcher, request, sink)
}

// Whether globalThis.fetch is another than the runtime's, asked at each attempt, so that a mock set up
// or torn down between two attempts applies to the next. Mocking libraries replace globalThis.fetch
// while they intercept, none of them sees a request made on undici's dispatcher, and nock replaces fetch
// as soon as it is imported, maybe before this module is loaded. So Node's own fetch is recognized by its
// source, the same on every Node this package supports; on Deno, the fetch found at load is the runtime's.
// The answer is kept for the last value seen: an attempt costs one comparison, a new fetch one toString().
const NODE_FETCH = /^function fetch\(input, init = undefined\) \{/
const runtimeFetch = globalThis.fetch
let lastFetch
let lastReplaced = false

function fetchReplaced () {
  const fetch = globalThis.fetch
  if (fetch !== lastFetch) {
    lastFetch = fetch
    lastReplaced = typeof fetch === 'function' && (process.versions.deno === undefined
      ? !NODE_FETCH.test(Function.prototype.toString.call(fetch))
      : fetch !== runtimeFetch)
  }
  return lastReplaced
}

// FetchAttempt's redirect rules: fetch's, applied hop by hop where the fetch shows redirects.
const nodeRedirects = { RedirectPolicy, isRedirect, fetchRedirects }

function fetchAttempt (fetch, request, sink, usersFetch) {
  return new FetchAttempt(fetch, request, sink, usersFetch, nodeRedirects)
}

// The limit on one event that the transport's configuration asks for: an undici dispatcher's
// `eventSourceOptions.maxEventSize`, read at construction as undici's EventSource reads it
// (lib/transport/dispatchers.js). undefined when it asks for none.
function transportMaxEventSize (transport) {
  if (transport.fetch !== undefined) return undefined
  // With init.http2 the Agent is this package's (lib/transport/http2-sessions.js), which asks for no limit.
  if (transport.dispatcher === undefined && transport.http2 !== null) return undefined
  return dispatcherMaxEventSize(transport.dispatcher ?? globalDispatcher())
}

// The dispatcher an attempt goes through: the user's; else, with init.http2, the Agent that shares
// HTTP/2 sessions among the sources given the same init.http2 (lib/transport/http2-sessions.js); else undici's
// global dispatcher, looked up at each attempt so that setGlobalDispatcher() applies. null where
// undici is not usable (Bun): the runtime's fetch, which negotiates HTTP/2 by itself where it can.
function dispatcherFor (transport) {
  if (transport.dispatcher !== undefined) return transport.dispatcher
  const dispatcher = globalDispatcher()
  if (dispatcher === null || transport.http2 === null) return dispatcher
  return http2Dispatcher(transport.http2)
}

// The transport of Node's EventSource (lib/entries/node-eventsource.js).
const nodeTransport = { createAttempt, maxEventSize: transportMaxEventSize }

export { nodeTransport }
