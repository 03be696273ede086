// `whatwg-eventsource/parser`: a drop-in for eventsource-parser (version 4), a parser of strings. Change
// `eventsource-parser` to `whatwg-eventsource/parser` in an import and the code works as before;
// docs/migrating-from-eventsource-parser.md says what differs. Named exports only, as eventsource-parser has.

export { createParser } from '../compat/eventsource-parser/create-parser.js'
export { ParseError } from '../compat/eventsource-parser/parse-error.js'
