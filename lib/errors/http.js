// The codes of a bad request description (a header, a method, a last event ID), with Node's codes, classes
// and meaning: (what, value). A table of its own, apart from lib/errors/arguments.js, because only
// lib/validators/http.js makes them: a bundle of a parser, which never does, holds none of it. Declared
// as lib/errors/error-class.js says.

import { declare } from './error-class.js'

const codes = declare({
  ERR_INVALID_CHAR: [2, TypeError],
  ERR_INVALID_HTTP_TOKEN: [2, TypeError]
})

export { codes }
