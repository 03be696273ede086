// ParseError: what the eventsource-parser drop-in (./create-parser.js) hands to `onError`, and
// what its stream form errors with. It has eventsource-parser's shape, so that code which checks
// `error.type`, `error.field`, `error.value`, `error.line` or `error.name` works unchanged:
// - 'unknown-field': a line whose field name is none of data, event, id, retry (field, value, line);
// - 'invalid-retry': a `retry` value that is not all ASCII digits, an empty one included (value, line);
// - 'max-buffer-size-exceeded': more than `maxBufferSize` characters buffered (no field, value, line).
// It is a class of its own, not one of the coded errors of lib/errors/: eventsource-parser's users tell it
// apart by `instanceof ParseError` and `type`, and nothing here throws it.

class ParseError extends Error {
  /**
   * @param {string} message
   * @param {{ type: 'invalid-retry' | 'unknown-field' | 'max-buffer-size-exceeded', field?: string,
   *   value?: string, line?: string }} options
   */
  constructor (message, options) {
    super(message)
    this.name = 'ParseError'
    // Own properties even when undefined, as eventsource-parser's are (a deep comparison sees them).
    this.type = options.type
    this.field = options.field
    this.value = options.value
    this.line = options.line
  }
}

export { ParseError }
