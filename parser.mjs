// `import { createParser } from 'whatwg-eventsource/parser'`: the same objects as the CommonJS entry.
// Named exports only, as eventsource-parser has.
import cjs from './parser.js'

export const { createParser, ParseError } = cjs
