// Where an EventStreamWriter (./writer.js) writes in Bun, Deno, workers and the frameworks of WHATWG requests
// (hono, Next.js route handlers): a ReadableStream of bytes, the body of the Response the application returns.
// Its queue holds HIGH_WATER_MARK bytes before send() says to wait; the runtime's pull() says when the client
// has read; cancel() or the request's signal, that the client left.

import { codes as argumentCodes } from '../errors/arguments.js'

const { ERR_INVALID_ARG_VALUE, ERR_INVALID_ARG_TYPE } = argumentCodes

const HIGH_WATER_MARK = 64 * 1024
const strategy = { highWaterMark: HIGH_WATER_MARK, size: (chunk) => chunk.byteLength }

/**
 * @param {{ drained: (writer: object) => void, ended: (writer: object, why: string) => void }} hooks the writer
 *   class's (./writer.js)
 * @returns {(target: unknown, compress: boolean) => object} the sink of a WHATWG Request, or of no request
 */
function createWebSinkFor (hooks) {
  const sink = {
    lastEventId: (request) => request?.headers.get('last-event-id') ?? undefined,
    open (request, writer, headers) {
      const signal = request?.signal
      const state = { controller: null, stream: null, headers, gone: signal?.aborted === true, signal, onAbort: null }
      state.stream = new ReadableStream({
        start (controller) {
          state.controller = controller
        },
        pull () {
          hooks.drained(writer)
        },
        cancel () {
          hooks.ended(writer, 'the client left')
        }
      }, strategy)
      // A request whose client left before the writer was made (a handler that awaited something first) has a
      // signal that will not fire again: the writer is closed at once, or it would beat into a body nobody reads.
      if (state.gone) {
        hooks.ended(writer, 'the client left')
      } else if (signal) {
        state.onAbort = () => hooks.ended(writer, 'the client left')
        signal.addEventListener('abort', state.onAbort, { once: true })
      }
      return state
    },
    gone: (state) => state.gone,
    write (state, bytes) {
      state.controller.enqueue(bytes)
      return state.controller.desiredSize > 0
    },
    // pull() is called once there is room again.
    waitForDrain () {},
    // how: 'end', 'cut' (errored: the runtime aborts the response and the queue is dropped) or 'gone'
    // (./writer.js).
    close (state, how, reason) {
      // A request's signal can outlive the stream (the runtime keeps the request until its connection
      // closes): the listener, which holds the writer, goes with the stream. (No state yet: the request was
      // aborted before, and open() is closing the writer.)
      if (state?.onAbort) state.signal.removeEventListener('abort', state.onAbort)
      if (how === 'gone') return
      try {
        if (how === 'end') state.controller.close()
        else state.controller.error(reason)
      } catch {
        // cancelled meanwhile: nothing to close
      }
    },
    readable: (state) => state.stream,
    response (state, init) {
      if (init !== undefined && (init === null || typeof init !== 'object')) {
        throw new ERR_INVALID_ARG_TYPE('init', 'of type object', init)
      }
      const headers = new Headers(init?.headers)
      for (const [name, value] of Object.entries(state.headers)) headers.set(name, value)
      return new Response(state.stream, { status: 200, statusText: init?.statusText, headers })
    }
  }

  return function webSinkFor (target, compress) {
    if (target !== undefined && target !== null && !(typeof target.headers?.get === 'function')) {
      throw new ERR_INVALID_ARG_TYPE('target',
        'a node:http or node:http2 response, an http2 stream, or a Request', target)
    }
    if (compress) {
      throw new ERR_INVALID_ARG_VALUE('options.compress', compress,
        'applies to Node responses only: a Response is compressed by the runtime that sends it')
    }
    return sink
  }
}

export { createWebSinkFor, HIGH_WATER_MARK }
