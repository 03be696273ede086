// ParseError: what the eventsource-parser drop-in (./create-parser.js) hands to `onError`, and what its
// stream form errors with, in eventsource-parser's shape (types/parser.d.ts). It is a class of its own,
// not one of the coded errors of lib/errors/: eventsource-parser's users tell it apart by `instanceof
// ParseError` and `type`, and nothing here throws it.

class ParseError extends Error {
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
