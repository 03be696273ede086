// The codes of a bad header, method or last event ID, with Node's codes, classes and meaning: (what, value).
// Apart from ./arguments.js because only lib/validators/http.js makes them: a parser's bundle holds none.

import { declare } from './error-class.js'

const codes = declare({
  ERR_INVALID_CHAR: [2, TypeError],
  ERR_INVALID_HTTP_TOKEN: [2, TypeError]
})

export { codes }
