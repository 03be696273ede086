// Where the core and the web transport find the parts of the extensions they do not import themselves: what
// the init's members beyond withCredentials mean (lib/eventsource/init-extensions.js), every reconnection
// decision beyond the standard's (lib/eventsource/reconnect-policy.js), `for await`
// (lib/eventsource/message-iterator.js), the request those members describe (lib/transport/request.js) and
// the fetch attempt that sends it (lib/transport/fetch-transport.js). They ask this registry for them by
// name rather than importing them, so that a browser build of the standard EventSource leaves them out.
// It lives with the shared modules, below every layer that asks it.
// On Node, Bun and Deno every part is always here: package.json's "imports" maps `#extensions` to
// lib/eventsource/extensions-all.js there, which imports and registers them all. In browsers and
// workers `#extensions` is this file alone, and nothing is registered until the application imports
// `whatwg-eventsource/extensions` (lib/eventsource/extensions-all.js again); until then an init that uses an extension,
// or `for await`, throws ERR_EVENTSOURCE_EXTENSION_NOT_LOADED, naming the member and what to import.
// An option is never ignored. docs/browser.md says what each build holds.

import { codes } from './errors/extensions.js'

const { ERR_EVENTSOURCE_EXTENSION_NOT_LOADED } = codes

// Part name -> a function that returns it (what the core calls of its module), or null while none is registered.
const loaders = { init: null, reconnect: null, iterator: null, request: null, fetch: null }
// Part name -> the part, once asked for.
const loaded = { init: null, reconnect: null, iterator: null, request: null, fetch: null }

/**
 * Registers parts, each as a function that returns it. A part registered already stays as it was.
 * @param {{
 *   init: () => Function, reconnect: () => Function, iterator: () => object, request: () => object,
 *   fetch: () => Function
 * }} parts
 *   init: init-extensions.js's resolveExtensions; reconnect: reconnect-policy.js's decide; iterator:
 *   message-iterator.js's MessageIterators and finishedIterator; request: request.js's buildRequest and
 *   previousAttempt; fetch: fetch-transport.js's FetchAttempt
 */
function registerExtensions (parts) {
  for (const name of Object.keys(loaders)) loaders[name] ??= parts[name]
}

/**
 * A part, or null when it is not registered.
 * @param {'init' | 'reconnect' | 'iterator' | 'request' | 'fetch'} name
 */
function loadedExtension (name) {
  const part = loaded[name]
  if (part !== null) return part
  const load = loaders[name]
  return load === null ? null : (loaded[name] = load())
}

/**
 * A part that `member` needs: thrown for when it is not registered.
 * @param {'init' | 'reconnect' | 'iterator' | 'request' | 'fetch'} name
 * @param {string} member what the user used, as the error names it ('init.headers', 'for await')
 */
function extension (name, member) {
  const part = loadedExtension(name)
  if (part === null) throw notLoaded(member)
  return part
}

/**
 * The error for an extension used where it is not registered.
 * @param {string} member what the user used, as the error names it
 */
function notLoaded (member) {
  return new ERR_EVENTSOURCE_EXTENSION_NOT_LOADED(member)
}

export { registerExtensions, loadedExtension, extension, notLoaded }
