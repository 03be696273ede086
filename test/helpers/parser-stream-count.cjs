'use strict'

// How many EventSourceParserStreams of ours a dependency (the MCP SDK) made: counted where pipeThrough()
// reads a stream's readable side, once per stream. The class cannot be swapped for a counting subclass:
// a module's exports are an ES module's namespace, read-only. Used by
// test/compat/eventsource-parser/mcp-streamable-http.test.cjs and, copied beside it into a temporary
// project, by test/children/overrides-mcp-client.mjs.

/**
 * @param {typeof TransformStream} EventSourceParserStream whatwg-eventsource/parser/stream's
 * @returns {{ made: () => number, restore: () => void }}
 */
function countParserStreams (EventSourceParserStream) {
  let made = 0
  const counted = new WeakSet()
  const readableOf = Object.getOwnPropertyDescriptor(TransformStream.prototype, 'readable').get
  Object.defineProperty(EventSourceParserStream.prototype, 'readable', {
    configurable: true,
    get () {
      if (!counted.has(this)) {
        counted.add(this)
        made++
      }
      return readableOf.call(this)
    }
  })
  return {
    made: () => made,
    restore: () => { delete EventSourceParserStream.prototype.readable }
  }
}

module.exports = { countParserStreams }
