// `whatwg-eventsource/parser`: a drop-in for eventsource-parser (version 4), a parser of strings
// (docs/migrating-from-eventsource-parser.md). Named exports only, as eventsource-parser has.

export { createParser } from '../compat/eventsource-parser/create-parser.js'
export { ParseError } from '../compat/eventsource-parser/parse-error.js'
