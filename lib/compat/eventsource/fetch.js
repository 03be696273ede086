// The fetch of `whatwg-eventsource/eventsource` (./eventsource.js): the user's fetch, called as the
// `eventsource` package calls it, and what it resolves with read as that package reads it. The call is
// rebuilt member by member, `{ mode, redirect, headers: { Accept, Last-Event-ID }, cache, signal }` and
// `credentials` where a `window` exists (code that spreads or compares `init` sees what it would see with
// that package); the response may be any object with a status, a url, `redirected`, headers with get() and
// a body with getReader() whose reader yields Uint8Array, DataView or ArrayBuffer chunks, and goes to the
// core's fetch transport as a Response. Without a body to read, its getReader() throws
// ERR_EVENTSOURCE_INVALID_BODY, which fails the connection after `open`, as that package does.
//
// That package's message for a rejection, the fetch's or a body read's, is the rejection flattened. The
// transport may keep only its cause (the socket's error of Node's "TypeError: fetch failed"), so the
// message is kept here for the error event (./error-event.js), keyed by the rejection and by its cause.

import { codes } from '../../errors/connection.js'
const { ERR_EVENTSOURCE_INVALID_BODY } = codes

// The response headers the core reads, for headers that can only be asked for by name.
const READ_HEADERS = ['content-type', 'content-encoding', 'location', 'www-authenticate']
const EMPTY = new Uint8Array(0)

// rejection (or its cause) -> that package's message for it
const packageMessages = new WeakMap()

// What that package's message says of a rejection: an AggregateError's errors, joined with ", "; an
// Error with an Error cause, as `${error}: ${cause, so flattened}`; else its message; a value that is not
// an Error, as a string. Node's fetch rejects with TypeError "fetch failed" and the socket's error as the
// cause: "TypeError: fetch failed: connect ECONNREFUSED 127.0.0.1:9".
function flattenError (error) {
  if (!(error instanceof Error)) return `${error}`
  if (Array.isArray(error.errors)) return error.errors.map(flattenError).join(', ')
  if (error.cause instanceof Error) return `${error}: ${flattenError(error.cause)}`
  return error.message
}

// Keeps that package's message for a rejection, under it and under its cause; returns the rejection.
function remember (error) {
  if (error !== null && typeof error === 'object') {
    const message = flattenError(error)
    packageMessages.set(error, message)
    const cause = error.cause
    if (cause !== null && typeof cause === 'object') packageMessages.set(cause, message)
  }
  return error
}

// That package's message for the rejection a network error came from: `cause` is the error's cause, the
// rejection or the cause the transport took from it.
function packageMessageOf (cause) {
  return packageMessages.get(cause) ?? flattenError(cause)
}

// A request's headers (lower-case names), as that package names them: Accept, then Last-Event-ID when there
// is one. Others (an Authorization answering a 401 from the URL's credentials, an Origin under a document)
// pass as they are.
function packageHeaders (headers) {
  const named = { Accept: headers.accept }
  for (const name of Object.keys(headers)) {
    if (name === 'accept') continue
    named[name === 'last-event-id' ? 'Last-Event-ID' : name] = headers[name]
  }
  return named
}

// Headers of a response that has only get() (that package types them so): the ones the core reads.
function headersOf (fetchHeaders) {
  const headers = new Headers()
  for (const name of READ_HEADERS) {
    const value = fetchHeaders?.get?.(name)
    if (value != null) headers.set(name, value)
  }
  return headers
}

// A chunk as bytes for the parser: a fetch's are Uint8Arrays; a body made by hand may yield another view
// or an ArrayBuffer, which that package's TextDecoder takes too, or nothing, which it skips.
function bytesOf (chunk) {
  if (chunk instanceof Uint8Array) return chunk
  if (ArrayBuffer.isView(chunk)) return new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength)
  if (chunk instanceof ArrayBuffer) return new Uint8Array(chunk)
  return chunk || EMPTY
}

// A reader's or a body's cancel(), whose outcome nobody waits for: one made by hand may have none.
function cancelQuietly (target) {
  try {
    return Promise.resolve(target.cancel()).catch(() => {})
  } catch {
    return Promise.resolve()
  }
}

function readResult (result) {
  return result.done ? result : { done: false, value: bytesOf(result.value) }
}

// The reader the transport reads: the body's, with its chunks as bytes and its rejections remembered.
class PackageReader {
  #reader

  constructor (reader) {
    this.#reader = reader
  }

  read () {
    return Promise.resolve(this.#reader.read()).then(readResult, (err) => { throw remember(err) })
  }

  cancel () {
    return cancelQuietly(this.#reader)
  }
}

// What the transport reads of the response a fetch resolved with.
function transportResponse (response) {
  const { status, body } = response
  const url = response.url ?? ''
  return {
    status,
    statusText: response.statusText ?? '',
    url,
    redirected: response.redirected === true,
    headers: typeof response.headers?.[Symbol.iterator] === 'function' ? response.headers : headersOf(response.headers),
    body: body != null && typeof body.getReader === 'function'
      ? {
          getReader: () => new PackageReader(body.getReader()),
          cancel: () => cancelQuietly(body)
        }
      : {
          getReader () {
            throw new ERR_EVENTSOURCE_INVALID_BODY({ status, statusText: response.statusText, url })
          }
        }
  }
}

// The fetch the core's fetch transport calls: `fetch`, called as that package calls it.
function packageFetch (fetch) {
  return async function fetchAsTheEventsourcePackage (url, init) {
    const packageInit = {
      mode: init.mode,
      redirect: init.redirect,
      headers: packageHeaders(init.headers),
      cache: init.cache,
      signal: init.signal
    }
    // That package sets credentials only where `window` exists: some runtimes' fetch (Cloudflare
    // Workers) throws on the member.
    if ('window' in globalThis) packageInit.credentials = init.credentials
    let response
    try {
      response = await fetch(new URL(url), packageInit)
    } catch (err) {
      throw remember(err)
    }
    return transportResponse(response)
  }
}

export { packageFetch, packageMessageOf }
